#!/usr/bin/env bash
# Process rows of a forking program: 5 children, child i makes i+1 getppid
# and exits 10+i; parent links, pids, exit codes and per-child counts exact.
# tags: trace debug bpf bpf-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog forks
on_exit mod_unload_quiet
mod_load

P=$PROGS/forks
off=$(elf_offset "$P" child_site_insn) || exit 1
trace -- "$P" 5
assert_eq "$TRACE_RC" 3 "systracectl start's exit status (the program's: 3)"

pycheck test_trace_forks.py "$D" "$P" "$off"
