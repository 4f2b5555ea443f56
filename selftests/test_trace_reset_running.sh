#!/usr/bin/env bash
# A reset while the traced program runs: the program goes on untraced and
# ends with its own exit status; the session is gone (dump and reset of
# its id fail cleanly with exit 4); tracing works afterwards.
# tags: trace debug debug-quick bpf
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog spin
need_prog sites
on_exit mod_unload_quiet
mod_load

"$SYSTRACECTL" start --counters none --name resetme -- "$PROGS/spin" "$T/stop" 7 >"$T/start.out" 2>"$T/start.err" &
sp=$!
on_exit "kill $sp 2>/dev/null; touch $T/stop"
for ((i = 0; i < 300; i++)); do
	[ -e "$T/stop.started" ] && break
	sleep 0.1
done
[ -e "$T/stop.started" ] || fail "spin did not start: $(cat "$T/start.err")"
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*: tracing .*/\1/p' "$T/start.err" | head -n 1)
[ -n "$sid" ] || fail "no session id: $(cat "$T/start.err")"
# Wait until it has counted some of spin's loop.
for ((i = 0; i < 100; i++)); do
	ctl list
	n=$(awk -v id="$sid" '$1 == id { print $6 }' <<<"$CTL_OUT")
	[ "${n:-0}" -gt 20 ] && break
	sleep 0.1
done
log "$CTL_OUT"
assert_match "$(awk -v id="$sid" '$1 == id { print $3 }' <<<"$CTL_OUT")" '^running$' "session $sid state before the reset"

ctl reset resetme
assert_eq "$CTL_RC" 0 "systracectl reset resetme: exit status ($CTL_ERR)"
ctl status
expect_line "$CTL_OUT" '^sessions live: +0$' "status after the reset"
expect_line "$CTL_OUT" '^probes active: +no$' "status after the reset"
ctl list
expect_not_contains "$CTL_OUT" resetme "list after the reset"

# spin still runs, untraced; it ends when told, with its own status.
kill -0 $sp 2>/dev/null || fail "systracectl start (spin) ended with the reset"
touch "$T/stop"
wait $sp
rc=$?
log "systracectl start's stderr: $(cat "$T/start.err")"
expect_eq "$rc" 7 "exit status of systracectl start (spin's 7)"

ctl dump "$sid"
expect_eq "$CTL_RC" 4 "dump of the deleted session: exit status"
expect_contains "$CTL_ERR" "no session with that id" "dump of the deleted session: message"
ctl reset "$sid"
expect_eq "$CTL_RC" 4 "reset of the deleted session: exit status"
expect_contains "$CTL_ERR" "no session with that id" "reset of the deleted session: message"

trace -- "$PROGS/sites" 10 5 3
assert_eq "$TRACE_RC" 0 "a trace after the reset: exit status"
pycheck test_trace_reset_running.py "$D"
