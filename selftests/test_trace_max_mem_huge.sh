#!/usr/bin/env bash
# max_mem above S64_MAX (here ULONG_MAX, "no per-session limit") limits
# nothing: the old module compared the session's bytes with (s64)max_mem,
# a negative number, so every allocation was refused and nothing traced.
# Rows are exact and no drop is counted; max_mem_total still applies.
# tags: trace
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog sites
on_exit mod_unload_quiet
mod_load max_mem=18446744073709551615
assert_eq "$(mod_param max_mem)" 18446744073709551615 "max_mem after insmod"

trace -- "$PROGS/sites" 10 20 3
assert_eq "$TRACE_RC" 0 "exit status"
pycheck test_trace_max_mem_huge.py "$D" "$PROGS/sites"
