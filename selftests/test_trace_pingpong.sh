#!/usr/bin/env bash
# Context switches: 2000 round trips over two pipes between a parent and a
# child pinned to one CPU make each of them switch at least 2000 times;
# the calls on the pipes are exact and the session's event counters match
# the rows.
# tags: trace bpf
# timeout: 180
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog pingpong
on_exit mod_unload_quiet
mod_load

R=2000
trace -- "$PROGS/pingpong" $R
assert_eq "$TRACE_RC" 0 "exit status"
pycheck test_trace_pingpong.py "$D" $R
