#!/usr/bin/env bash
# A site's first_ordinal is O(1) to take, from the thread that hits it
# first: the image's calls that thread saw, i.e. its own and those its
# creator had seen when it made it. Up to 90f44eb, each new site walked
# every live thread of the image under its lock (quadratic with many
# threads), and summed calls the new thread never saw. threadord 10 1000:
# main calls getppid from site a, getuid 10 times from site c, creates a
# thread, calls getuid 1000 more times from c, and lets the thread (which
# spins, making no syscall) call getgid from site b. strace -f -o of the
# same program gives the calls in between: b's first_ordinal is a's plus
# main's calls from a's up to its clone3 plus the thread's calls before b,
# with none of the 1000 after the clone (the old walk counted them).
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog threadord
need_cmd strace
on_exit mod_unload_quiet
mod_load

P=$PROGS/threadord
strace -f -o "$T/strace.out" "$P" 10 1000 || fail "strace -f $P: exit $?"
trace -- "$P" 10 1000
assert_eq "$TRACE_RC" 0 "threadord: exit status ($TRACE_ERR)"
pycheck test_trace_thread_ordinal.py "$D" "$P" "$T/strace.out"
