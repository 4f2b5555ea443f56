#!/usr/bin/env bash
# A process ends once: 20 children each end with exit_group(5) right after
# joining 4 threads whose own exits overlap it; each child's row says
# exited 5 and the session counts 21 exits.
# tags: trace debug debug-quick bpf bpf-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog exitrace
on_exit mod_unload_quiet
mod_load

trace -- "$PROGS/exitrace" 20 4
assert_eq "$TRACE_RC" 0 "exit status (0: every child exited 5)"
pycheck test_trace_exit_race.py "$D"
