#!/usr/bin/env bash
# A hash table that cannot grow loses nothing. test_grow_fail makes every
# grow of a table find no memory, as a large bucket array may not be had:
# manysites 3000 makes 3000 getppid sites in one thread, whose private
# site table and its image's would grow from 16 to 2048 buckets. With the
# parameter on, they stay at 16: every site row is there with its exact
# calls (stub i: i % 3 + 1, 6000 in all, which strace -f -c counts too),
# dropped_nomem and every other drop stay 0, and hash_grow_failed counts
# the refused grows: at least one, and no more than two tables' once a
# second (ST_CHASH_RETRY) over the run. Up to 90f44eb, the probe itself
# grew the tables, and a failed grow counted dropped_nomem at every later
# insert. With the parameter off, the tables grow (in the thread's deferred
# work) and nothing is counted.
# tags: trace debug
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog manysites
need_cmd strace
on_exit mod_unload_quiet
mod_load test_grow_fail=1
assert_eq "$(mod_param test_grow_fail)" 1 "test_grow_fail after insmod"

S=3000
P=$PROGS/manysites
strace -f -c -e trace=getppid -o "$T/strace.out" "$P" "$S" >"$T/strace.stdout" ||
	fail "strace -f -c $P $S: exit $?"
scalls=$(awk '$NF == "getppid" { print $4 }' "$T/strace.out")
log "strace -f -c: getppid $scalls"

t0=$(date +%s%N)
trace -- "$P" "$S"
t1=$(date +%s%N)
assert_eq "$TRACE_RC" 0 "manysites, grows failing: exit status ($TRACE_ERR)"
dfail=$D
secs=$(( (t1 - t0 + 999999999) / 1000000000 ))
echo 0 >/sys/module/systrace/parameters/test_grow_fail
trace -- "$P" "$S"
assert_eq "$TRACE_RC" 0 "manysites, grows working: exit status ($TRACE_ERR)"

pycheck test_trace_hash_grow.py "$S" "$scalls" "$secs" "$dfail" "$D"
