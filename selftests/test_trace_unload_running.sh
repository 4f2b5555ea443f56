#!/usr/bin/env bash
# rmmod while traced programs run (one sleeping in a loop, one whose 4
# threads make getppid as fast as they can, with task-clock counters): the
# module unloads, the programs finish normally with their own exit status,
# and a reloaded module traces exactly.
# tags: trace debug debug-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog spin
need_prog sites
on_exit mod_unload_quiet
mod_load

"$SYSTRACECTL" start --counters none -- "$PROGS/spin" "$T/stop" 7 >"$T/spin.out" 2>"$T/spin.err" &
sp=$!
"$SYSTRACECTL" start --counters task-clock -- "$PROGS/spin" "$T/bstop" 9 4 >"$T/busy.out" 2>"$T/busy.err" &
tp=$!
on_exit "kill $sp $tp 2>/dev/null; touch $T/stop $T/bstop"
for ((i = 0; i < 300; i++)); do
	[ -e "$T/stop.started" ] && [ -e "$T/bstop.started" ] && break
	sleep 0.1
done
{ [ -e "$T/stop.started" ] && [ -e "$T/bstop.started" ]; } || fail "spin did not start: $(cat "$T/spin.err") $(cat "$T/busy.err")"
for ((i = 0; i < 100; i++)); do
	ctl list
	[ "$(grep -c ' running ' <<<"$CTL_OUT")" -eq 2 ] && break
	sleep 0.1
done
log "$CTL_OUT"
ctl status
log "$(grep -E '^session|dropped' <<<"$CTL_OUT")"
kill -0 $sp 2>/dev/null || fail "spin ended before the unload: $(cat "$T/spin.err")"
kill -0 $tp 2>/dev/null || fail "busy spin ended before the unload: $(cat "$T/busy.err")"

# Unloading is safe while tracing: it may only have to wait for deferred
# counter work (EBUSY) for a moment.
ok=0
for ((i = 1; i <= 20; i++)); do
	if out=$(rmmod systrace 2>&1); then
		ok=1
		break
	fi
	log "rmmod attempt $i: $out"
	sleep 0.5
done
assert_eq "$ok" 1 "rmmod systrace while tracing"
mod_loaded && fail "systrace still in /proc/modules after rmmod"

touch "$T/stop" "$T/bstop"
wait $sp
rc=$?
log "spin's systracectl: $(cat "$T/spin.err")"
expect_eq "$rc" 7 "exit status of systracectl start (spin's 7)"
wait $tp
rc=$?
log "busy spin's systracectl: $(cat "$T/busy.err")"
expect_eq "$rc" 9 "exit status of systracectl start (busy spin's 9)"

mod_load
trace -- "$PROGS/sites" 10 5 3
assert_eq "$TRACE_RC" 0 "a trace after the reload: exit status"
pycheck test_trace_unload_running.py "$D"
