#!/usr/bin/env bash
# Teardown racing a busy tree. Each of ROUNDS rounds traces racetree (4
# worker processes of 8 threads that exit, exec and fork; the session made
# by systracectl start, or by SESSION_NEW on its pid with nlraw), lets it
# run a random 0-500 ms, then ends the session with one of: systracectl
# reset, a raw SESSION_DEL, rmmod (then insmod), reset and SESSION_DEL at
# once (exactly one of them deletes it), or all three at once. After each
# round: racetree and systracectl ended with status 0, the module is loaded
# and answers status with no session and 0 bytes, the kernel logged nothing
# bad. After all rounds: a whole trace of racetree counts exactly the
# forks, clones, execs and exits racetree tallied itself, a trace of sites
# gives exact numbers, and the module unloads.
#   SYSTRACE_STRESS_ROUNDS  rounds (default 100)
#   SYSTRACE_STRESS_SEED    seed of the round choices and of racetree
#                           (default: random, printed), to replay a run
# tags: stress debug
# timeout: 900
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog racetree
need_prog nlraw
need_prog sites
on_exit mod_unload_quiet
mod_load

rounds=${SYSTRACE_STRESS_ROUNDS:-100}
seed=${SYSTRACE_STRESS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
[[ $rounds =~ ^[0-9]+$ ]] || fail "SYSTRACE_STRESS_ROUNDS wants a number, not '$rounds'"
[[ $seed =~ ^[0-9]+$ ]] || fail "SYSTRACE_STRESS_SEED wants a number, not '$seed'"
log "rounds $rounds, seed $seed (SYSTRACE_STRESS_SEED=$seed replays the choices)"
RANDOM=$seed
NL=$PROGS/nlraw
RACETREE_MS=1000

# The kernel log lines selftests/run fails a test on, to name the round.
klog_re=$(grep -hv '^#' "$TOP"/selftests/klog-patterns* | grep . | paste -sd'|')
ignore_re=$(grep -v '^#' "$TOP/selftests/klog-ignore" | grep . | paste -sd'|')
klog_bad() { klog_since | grep -E "$klog_re" | grep -vE "$ignore_re"; }

# rmmod, retried while deferred counter work holds the module (EBUSY).
rmmod_retry() {
	local i out
	for ((i = 1; i <= 40; i++)); do
		out=$(rmmod systrace 2>&1) && return 0
		mod_loaded || { echo "rmmod: the module went away under us: $out"; return 0; }
		sleep 0.25
	done
	echo "rmmod systrace: still failing after 40 tries: $out"
	return 1
}

ms_sleep() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }

declare -A n_op n_how
reset_won=0 del_won=0 tally_sum=0

for ((r = 1; r <= rounds; r++)); do
	hows=(ctl nlraw)
	how=${hows[RANDOM % 2]}
	ops=(reset del rmmod reset+del reset+del+rmmod)
	op=${ops[RANDOM % 5]}
	delay=$((RANDOM % 501))
	rseed=$((seed * 1000 + r))
	n_op[$op]=$((${n_op[$op]:-0} + 1))
	n_how[$how]=$((${n_how[$how]:-0} + 1))
	what="round $r ($how, $op after ${delay} ms)"
	t0=$EPOCHREALTIME
	klog_mark
	: >"$T/tree.out"
	: >"$T/tree.err"

	if [ "$how" = ctl ]; then
		"$SYSTRACECTL" start --counters none --name "r$r" -- \
			"$PROGS/racetree" $RACETREE_MS $rseed >"$T/tree.out" 2>"$T/tree.err" &
		pid=$!
		sid=
		for ((i = 0; i < 600; i++)); do
			sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*: tracing .*/\1/p' "$T/tree.err")
			[ -z "$sid" ] || break
			sleep 0.05
		done
		[ -n "$sid" ] || fail "$what: systracectl start made no session: $(cat "$T/tree.err")"
	else
		"$PROGS/racetree" -s $RACETREE_MS $rseed >"$T/tree.out" 2>"$T/tree.err" &
		pid=$!
		for ((i = 0; i < 600; i++)); do
			[ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = T ] && break
			sleep 0.05
		done
		out=$("$NL" --show 2 9:u32:$pid)
		kill -CONT $pid
		sid=$(sed -n 's/^row 2=\([0-9][0-9]*\) .*/\1/p' <<<"$out")
		[ -n "$sid" ] || fail "$what: SESSION_NEW on racetree (pid $pid): $out"
	fi

	ms_sleep $delay
	case $op in
	reset)
		ctl reset "$sid"
		[ "$CTL_RC" = 0 ] || fail "$what: systracectl reset $sid: exit $CTL_RC: $CTL_ERR"
		;;
	del)
		out=$("$NL" 3 8:u32:"$sid" 2>&1)
		[ "$out" = ack ] || fail "$what: SESSION_DEL $sid: $out"
		;;
	rmmod)
		out=$(rmmod_retry) || fail "$what: $out"
		[ -z "$out" ] || log "$what: $out"
		mod_load
		;;
	reset+del | reset+del+rmmod)
		"$SYSTRACECTL" reset "$sid" >"$T/reset.out" 2>"$T/reset.err" &
		rp=$!
		"$NL" 3 8:u32:"$sid" >"$T/del.out" 2>&1 &
		dp=$!
		if [ "$op" = reset+del+rmmod ]; then
			out=$(rmmod_retry) || fail "$what: $out"
		fi
		wait $rp
		rrc=$?
		wait $dp
		drc=$?
		dout=$(cat "$T/del.out")
		rerr=$(cat "$T/reset.err")
		if [ "$op" = reset+del ]; then
			# Both reach the module: one deletes, the other finds nothing.
			if [ $rrc = 0 ] && [ "$dout" = "error 2 ENOENT systrace: no session with that id" ]; then
				reset_won=$((reset_won + 1))
			elif [ $rrc = 4 ] && [ "$dout" = ack ]; then
				del_won=$((del_won + 1))
				expect_contains "$rerr" "no session with that id" "$what: the reset that lost"
			else
				fail "$what: reset exit $rrc ($rerr) and SESSION_DEL '$dout' (exit $drc): not one winner"
			fi
		else
			# rmmod may come first: then the module is gone (systracectl:
			# exit 2; nlraw: no family) or going (ENOENT).
			[[ $rrc =~ ^(0|2|4)$ ]] || fail "$what: systracectl reset: exit $rrc: $rerr"
			[[ $dout =~ ^(ack|error\ 2\ ENOENT\ .*|nlraw:\ no\ family\ systrace.*)$ ]] ||
				fail "$what: SESSION_DEL: '$dout' (exit $drc)"
			[ $rrc = 0 ] && [ "$dout" = ack ] && fail "$what: reset and SESSION_DEL both deleted session $sid"
			mod_loaded && fail "$what: the module is still loaded after rmmod"
			mod_load
		fi
		;;
	esac

	wait $pid
	rc=$?
	[ $rc = 0 ] || fail "$what: racetree ($how) exit $rc: $(tail -n 5 "$T/tree.err")"
	line=$(grep '^racetree: forks' "$T/tree.out")
	[ -n "$line" ] || fail "$what: racetree printed no tally: $(cat "$T/tree.out")"
	grep -q '^racetree' "$T/tree.err" && fail "$what: racetree: $(grep '^racetree' "$T/tree.err")"
	tally_sum=$((tally_sum + $(awk '{ print $3 + $5 + $7 + $9 }' <<<"$line")))

	mod_loaded || fail "$what: the module is not loaded after the round"
	ctl status
	[ "$CTL_RC" = 0 ] || fail "$what: systracectl status: exit $CTL_RC: $CTL_ERR"
	expect_line "$CTL_OUT" '^sessions live: +0$' "$what: status" || exit 1
	expect_line "$CTL_OUT" '^memory: +0 bytes$' "$what: status" || exit 1
	expect_not_contains "$CTL_OUT" "session " "$what: status lists no session" || exit 1
	bad=$(klog_bad)
	[ -z "$bad" ] || fail "$what: the kernel logged:
$bad"
	log "$what: ok in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s, $line"
done
log "rounds by start: ${n_how[ctl]:-0} systracectl start, ${n_how[nlraw]:-0} SESSION_NEW;" \
	"by end: reset ${n_op[reset]:-0}, del ${n_op[del]:-0}, rmmod ${n_op[rmmod]:-0}," \
	"reset+del ${n_op[reset+del]:-0} (reset won $reset_won, del won $del_won)," \
	"reset+del+rmmod ${n_op[reset+del+rmmod]:-0}; racetree events in all: $tally_sum"

# A whole run, untouched: the session counts what racetree tallied.
trace -- "$PROGS/racetree" $RACETREE_MS $((seed * 1000))
assert_eq "$TRACE_RC" 0 "racetree traced whole: exit status ($TRACE_ERR)"
tree=$D
tree_sid=$SID
tally=$(grep '^racetree: forks' <<<"$TRACE_OUT")
[ -n "$tally" ] || fail "racetree traced whole printed no tally: $TRACE_OUT"
log "$tally"
trace -- "$PROGS/sites" 10 5 3
assert_eq "$TRACE_RC" 0 "sites after the rounds: exit status"
# shellcheck disable=SC2046 # four numbers of the tally
pycheck test_stress_races.py "$tree" "$D" $(awk '{ print $3, $5, $7, $9 }' <<<"$tally")

for id in "$tree_sid" "$SID"; do
	ctl reset "$id"
	expect_eq "$CTL_RC" 0 "systracectl reset $id ($CTL_ERR)"
done
ctl status
expect_line "$CTL_OUT" '^sessions live: +0$' "status at the end"
expect_line "$CTL_OUT" '^memory: +0 bytes$' "status at the end"
expect_not_contains "$CTL_OUT" "session " "status at the end lists no session"
ctl list
expect_eq "$(tail -n +2 <<<"$CTL_OUT")" "" "list at the end: no session"
mod_unload
