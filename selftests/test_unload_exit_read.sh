#!/usr/bin/env bash
# rmmod while a counter's exit read is still queued, and it is the read of
# the session's last task: the read runs during the unload and queues the
# probes' unregistration, which the unload must wait for (issue 34, C).
# test_work_delay_ms=2000 makes each exit read and each unregistration
# sleep 2 s first, so the order is forced: spin (task-clock counters)
# exits, its read sleeps, rmmod starts. On an unload that flushed the
# unregistration before the reads (c3ccaa5), the unregistration still
# sleeps in the freed module when rmmod returns (a kernel worker in msleep,
# its frames in no module; nothing crashes at once, since the freed module
# stays mapped until a lazy TLB flush). Here rmmod returns 0, no kernel
# worker sleeps in msleep after it, the module is gone, start returns
# spin's 7, and the kernel logs nothing of ours for 5 s after; a reloaded
# module traces exactly.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog spin
need_prog sites
on_exit mod_unload_quiet
mod_load test_work_delay_ms=2000

"$SYSTRACECTL" start --counters task-clock -- "$PROGS/spin" "$T/stop" 7 >"$T/spin.out" 2>"$T/spin.err" &
sp=$!
on_exit "kill $sp 2>/dev/null; touch $T/stop"
for ((i = 0; i < 300; i++)); do
	[ -e "$T/stop.started" ] && break
	sleep 0.1
done
[ -e "$T/stop.started" ] || fail "spin did not start: $(cat "$T/spin.err")"
ctl_ok list --json
pid=$(csvq --json get sessions.0.root_pid <<<"$CTL_OUT")
log "spin is pid $pid"
touch "$T/stop"
# spin has exited once its systracectl reaped it; its exit read sleeps.
for ((i = 0; i < 100; i++)); do
	[ -d "/proc/$pid" ] || break
	[ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
	sleep 0.05
done
ctl_ok list --json
expect_eq "$(csvq --json get sessions.0.live_tasks <<<"$CTL_OUT")" 1 \
	"live tasks while spin's exit read sleeps"
klog_mark
ok=0
for ((i = 1; i <= 20; i++)); do
	if out=$(rmmod systrace 2>&1); then
		ok=1
		break
	fi
	log "rmmod attempt $i: $out"
	sleep 0.5
done
assert_eq "$ok" 1 "rmmod systrace with an exit read queued"
# Only the test's delay sleeps in msleep in a kernel worker here.
for st in /proc/[0-9]*/stack; do
	c=$(cat "${st%/stack}/comm" 2>/dev/null) || continue
	[[ $c == kworker* ]] || continue
	stack=$(cat "$st" 2>/dev/null) || continue
	[[ $stack == *msleep* ]] && fail "a kernel worker ($c) still sleeps in msleep after rmmod: $stack"
done
mod_loaded && fail "systrace still in /proc/modules after rmmod"
wait $sp
rc=$?
log "spin's systracectl: $(cat "$T/spin.err")"
expect_eq "$rc" 7 "exit status of systracectl start (spin's 7)"
sleep 5
expect_eq "$(klog_since | grep -cE 'BUG|Oops|WARNING|systrace')" 0 "kernel log lines after the unload: $(klog_since)"

mod_load
trace -- "$PROGS/sites" 10 5 3
assert_eq "$TRACE_RC" 0 "a trace after the reload: exit status"
pycheck test_trace_unload_running.py "$D"
