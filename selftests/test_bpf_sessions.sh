#!/usr/bin/env bash
# BPF sessions cannot be confused:
#   ids        an id is never handed out twice: reset 1, then start, gives 2
#   reset      a start whose session is reset while CMD runs, and whose id
#              would have gone to the next session, prints no summary of
#              another session and logs none of its events
#   names      an empty name is refused; a name is unique among the
#              sessions that exist; reset '' and dump '' name no session
#   at once    4 starts at once get 4 ids, each with its program's exact
#              calls; reset --all beside starts leaves sessions whole or
#              gone; dumps beside a reset are whole or "no session"
# tags: bpf
# timeout: 240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_prog sites
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
start() { "$SYSTRACECTL" start --backend bpf --counters none "$@"; }

# --- ids ---------------------------------------------------------------------
start -- "$P" 7 3 2 2>"$T/a.err" || fail "start a: $(cat "$T/a.err")"
a=$(bpf_sid "$T/a.err")
ctl_ok reset "$a"
start -- "$P" 7 3 2 2>"$T/b.err" || fail "start b: $(cat "$T/b.err")"
b=$(bpf_sid "$T/b.err")
expect_eq "$b" $((a + 1)) "the id after session $a was reset"
ctl_ok reset --all

# --- reset while CMD runs ------------------------------------------------------
go=$T/go
start --log "$T/one.csv" -- "$P" 5 5 5 "$go" >"$T/one.out" 2>"$T/one.err" &
one=$!
on_exit "kill $one 2>/dev/null"
for ((i = 0; i < 200; i++)); do
	s1=$(bpf_sid "$T/one.err")
	[ -n "$s1" ] && break
	sleep 0.05
done
[ -n "$s1" ] || fail "the first start printed no session id: $(cat "$T/one.err")"
ctl_ok reset "$s1"
start -- "$P" 400 300 2 2>"$T/two.err" || fail "the second start: $(cat "$T/two.err")"
s2=$(bpf_sid "$T/two.err")
two_pid=$(sed -n 's/.*: tracing .* (pid \([0-9]*\))$/\1/p' "$T/two.err")
touch "$go"
wait "$one"
rc=$?
log "the first start's stderr: $(cat "$T/one.err")"
# CMD's status, as trace_reset_running's start without a log; the log keeps
# what was drained while the session lived, and says the rest went out
# without its rows.
expect_eq "$rc" 0 "the first start's exit status (CMD's: sites exits 0)"
expect_contains "$(cat "$T/one.err")" "log: session $s1 is gone (reset?)" "the first start's stderr: its log's session is gone"
expect_ne "$s2" "$s1" "the second session's id"
expect_not_contains "$(cat "$T/one.err")" "process, " "the first start's stderr: no summary of a session"
expect_contains "$(cat "$T/one.err")" "no session with that id ($s1" "the first start's stderr: its session is gone"
if [ -f "$T/one.csv" ]; then
	expect_eq "$(grep -c ",$two_pid," "$T/one.csv")" 0 "events of the second session's pid $two_pid in the first start's log"
fi
ctl_ok reset --all

# --- names ---------------------------------------------------------------------
ctl start --backend bpf --counters none --name '' -- "$P" 1 1 1
expect_ne "$CTL_RC" 0 "start --name '': exit status"
expect_contains "$CTL_ERR" "empty" "start --name '': message"
ctl list
expect_eq "$(grep -c '^[0-9]' <<<"$CTL_OUT")" 0 "sessions after start --name ''"
ctl_ok start --backend bpf --counters none --name dup -- "$P" 1 1 1
ctl start --backend bpf --counters none --name dup -- "$P" 1 1 1
expect_eq "$CTL_RC" 4 "a second session named dup: exit status"
expect_contains "$CTL_ERR" "the name \"dup\" is taken by session" "a second session named dup: message"
expect_not_contains "$CTL_ERR" "kernel rejected" "a second session named dup: a refusal of systracectl's"
ctl_ok start --backend bpf --counters none -- "$P" 1 1 1
ctl list
expect_eq "$(grep -c '^[0-9]' <<<"$CTL_OUT")" 2 "sessions: dup and an unnamed one"
for cmd in reset dump; do
	ctl $cmd ''
	expect_eq "$CTL_RC" 4 "$cmd '': exit status"
	expect_contains "$CTL_ERR" "an empty name names no session" "$cmd '': message"
done
ctl list
expect_eq "$(grep -c '^[0-9]' <<<"$CTL_OUT")" 2 "sessions after reset ''"
ctl_ok reset --all

# --- at once -------------------------------------------------------------------
pids=()
for n in 1 2 3 4; do
	start -- "$P" $((100 * n)) $((10 * n)) "$n" "$go.4" >"$T/at$n.out" 2>"$T/at$n.err" &
	pids+=($!)
done
for ((i = 0; i < 300; i++)); do
	[ "$(cat "$T"/at?.err | grep -c ': tracing ')" = 4 ] && break
	sleep 0.05
done
touch "$go.4"
for p in "${pids[@]}"; do
	wait "$p" || fail "a start of the four: exit $?"
done
ids=$(for n in 1 2 3 4; do bpf_sid "$T/at$n.err"; done | sort -n | uniq | wc -l)
expect_eq "$ids" 4 "distinct ids of 4 starts at once"
for n in 1 2 3 4; do
	sid=$(bpf_sid "$T/at$n.err")
	ctl_ok dump "$sid" --json --no-symbols -o "$T/at$n.json"
	expect_eq "$(csvq -f "$T/at$n.json" --json sum sites calls nr=110)" $((110 * n)) \
		"session $sid: getppid calls of sites $((100 * n)) $((10 * n)) $n"
done
ctl_ok reset --all

# Starts beside a reset --all: each session is whole or gone, never in between.
for ((r = 0; r < 8; r++)); do
	start -q -- "$P" 50 5 1 >/dev/null 2>"$T/race$r.err" &
	pids=($!)
	sleep "0.0$r"
	ctl reset --all
	[ "$CTL_RC" = 0 ] || expect_eq "$CTL_RC" 0 "reset --all beside a start (round $r): exit status ($CTL_ERR)"
	wait "${pids[0]}"
done
ctl list
while read -r sid _; do
	[[ $sid =~ ^[0-9]+$ ]] || continue
	ctl dump "$sid" --json --no-symbols -o "$T/left.json"
	expect_eq "$CTL_RC" 0 "dump of session $sid, left by a start beside a reset"
done <<<"$CTL_OUT"
ctl_ok status --json
expect_eq "$(csvq --json get sessions_live <<<"$CTL_OUT")" "$(csvq --json len sessions <<<"$CTL_OUT")" \
	"sessions status counts and lists"
ctl_ok reset --all

# Dumps beside a reset: the rows of the whole session, or no session. Two
# dumps start before the reset and two with it; rounds go on until both
# ends have been seen (a dump whole, a dump refused), and the test fails if
# they never are: a check that every dump could skip would check nothing.
won=0 lost=0
for ((round = 0; round < 8 && (won == 0 || lost == 0); round++)); do
	ctl_ok start --backend bpf --counters none -q -- "$P" 20000 10000 7
	sid=$(bpf_sid <(echo "$CTL_ERR"))
	[ -n "$sid" ] || sid=$(SYSTRACE_BACKEND=bpf "$SYSTRACECTL" list | awk 'NR == 2 { print $1 }')
	for ((r = 0; r < 4; r++)); do
		[ $r != 2 ] || "$SYSTRACECTL" reset "$sid" 2>"$T/beside.reset.err" &
		[ $r != 2 ] || reset_pid=$!
		"$SYSTRACECTL" dump "$sid" --json --no-symbols -o "$T/beside$r.json" 2>"$T/beside$r.err" &
		pids[r]=$!
	done
	wait "$reset_pid" || expect_eq "$?" 0 "round $round: the reset beside the dumps: exit status ($(cat "$T/beside.reset.err"))"
	for ((r = 0; r < 4; r++)); do
		wait "${pids[r]}"
		rc=$?
		if [ $rc = 0 ]; then
			won=$((won + 1))
			expect_eq "$(csvq -f "$T/beside$r.json" --json sum sites calls nr=110)" 30000 "round $round: a dump beside the reset: getppid calls"
		else
			lost=$((lost + 1))
			expect_eq "$rc" 4 "round $round: a dump beside the reset: exit status"
			expect_contains "$(cat "$T/beside$r.err")" "no session with that id" "round $round: a dump beside the reset: message"
		fi
	done
done
log "dumps beside a reset: $won whole, $lost refused, in $round rounds"
expect_ne "$won" 0 "dumps beside a reset that gave the whole session (in $round rounds)"
expect_ne "$lost" 0 "dumps beside a reset that found no session (in $round rounds)"
