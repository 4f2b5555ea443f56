#!/usr/bin/env bash
# 200 short processes at once (a shell starting /bin/true 200 times in the
# background): 200 rows of true that exited 0, each the exec of a shell
# child, and the shell's rows: 403 rows in all, none dropped.
# tags: trace bpf
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
on_exit mod_unload_quiet
mod_load

# shellcheck disable=SC2016 # the child shell expands it
trace -- bash -c 'for i in $(seq 200); do /bin/true & done; wait'
assert_eq "$TRACE_RC" 0 "exit status"
pycheck test_trace_many_procs.py "$D"
