#!/usr/bin/env bash
# attach --tree when the process the walk pauses at leaves the task list
# (review finding 3 of issue 23). The walk of the task list pauses when its
# table is full (after the 64th, 128th... process it takes) and when
# another task should run; a program that makes the process there exit
# (churn at those predictable places, busy CPUs) used to send the walk
# back to the list's head, 8 times a round at most, after which the
# processes not reached were neither attached nor counted. The module's
# test knobs make that happen on demand: test_walk_gone takes the process
# after each one the walk adds as gone, test_walk_stuck every process.
# progs/forest (a chain of D, W children of its last, an orphan; N = D+W+2
# processes, all blocked in read(2)):
# - test_walk_gone: the walk resumes after its last process still listed:
#   one row per process (exactly the forest's pids), dropped_procs 0, and
#   2 (N - 1) departures taken (one per descendant a round, 2 rounds: the
#   second attaches nothing);
# - test_walk_stuck 72: every walk ends early (8 rounds of 9 resumes in a
#   row that took nothing): the root's row alone, and the descendants never
#   reached count once in dropped_procs (1), 0 knob left.
# tags: trace debug
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog forest
[ "${SYSTRACE_BACKEND:-kmod}" = kmod ] || skip "the BPF backend has no attach --tree"
on_exit mod_unload_quiet
mod_load
PARAMS=/sys/module/systrace/parameters
[ -w "$PARAMS/test_walk_gone" ] || fail "the module has no test_walk_gone parameter"

P=$PROGS/forest
DEPTH=20 W=60 M=1
N=$((DEPTH + W + 2))

forest_start
want_pids=$(printf '%s\n' "${pids[@]}" | sort -n)

# --- the process after each one the walk takes leaves the list ----------
BIG=100000
echo "$BIG" >"$PARAMS/test_walk_gone"
ctl attach --tree --counters none --name gone "$top"
left=$(cat "$PARAMS/test_walk_gone")
echo 0 >"$PARAMS/test_walk_gone"
[ "$CTL_RC" -eq 0 ] || fail "attach --tree with test_walk_gone: exit $CTL_RC: $CTL_ERR"
SID=$CTL_OUT
expect_contains "$CTL_ERR" "attached to pid $top: $N processes, $N live tasks" "test_walk_gone: the summary"
expect_eq "$((BIG - left))" "$((2 * (N - 1)))" "test_walk_gone: departures taken (one per descendant in each of 2 rounds)"
D=$T/gone
mkdir -p "$D"
trace_dump "$SID"
expect_eq "$(q "$D/procs.csv" get pid | sort -n)" "$want_pids" "test_walk_gone: the rows' pids (the forest's)"
expect_eq "$(csvq -f "$D/dump.json" --json get session.dropped_procs)" 0 "test_walk_gone: dropped_procs"
ctl_ok reset "$SID"

# --- every process the walk visits leaves the list: every walk ends early ----
echo 72 >"$PARAMS/test_walk_stuck"
ctl attach --tree --counters none --name stuck "$top"
left=$(cat "$PARAMS/test_walk_stuck")
echo 0 >"$PARAMS/test_walk_stuck"
[ "$CTL_RC" -eq 0 ] || fail "attach --tree with test_walk_stuck: exit $CTL_RC: $CTL_ERR"
SID=$CTL_OUT
expect_eq "$left" 0 "test_walk_stuck: departures left (8 rounds of 9)"
D=$T/stuck
mkdir -p "$D"
trace_dump "$SID"
expect_eq "$(q "$D/procs.csv" get pid)" "$top" "test_walk_stuck: the rows' pids (the root's alone)"
expect_eq "$(csvq -f "$D/dump.json" --json get session.dropped_procs)" 1 \
	"test_walk_stuck: dropped_procs (the processes never reached, once)"
ctl_ok reset "$SID"
exec 8>&-
