#!/usr/bin/env bash
# exit and exit_group never return but are counted once per thread and
# process that made them; a clone, fork or vfork child's return from the
# call is not counted in the child.
# tags: trace bpf
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog exits
on_exit mod_unload_quiet
mod_load

trace -- "$PROGS/exits"
assert_eq "$TRACE_RC" 0 "exit status"
pycheck test_trace_exits.py "$D"
