#!/usr/bin/env bash
# A signal to start while it makes its session strands nothing: CMD's child
# exists before the session does, and start passes SIGTERM on to it, so
# CMD may be gone before the session follows it. Such a session ends with
# 0 processes, its keeper goes and no program stays attached.
#   term at POINT  start bpf_stopped at each point of making the session
#                  (SYSTRACE_BPF_STOP, test-only), sent SIGTERM, let go:
#                  start dies of SIGTERM (CMD's signal), the session is
#                  finished with 0 live tasks and 0 process rows
#   child -9       CMD's child killed while the session's root is already
#                  marked but the session not yet live ('keeper'): the same
#   term at random start sent SIGTERM 1-100 ms after it began, 9 times:
#                  every session is finished within the keeper's tick,
#                  nothing stays attached, no keeper lock stays
# tags: bpf
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_prog sites
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
start=("$SYSTRACECTL" start --backend bpf --counters none)

# finished SID WHAT: session SID ends (6 s: the keeper's 5 s tick) with
# no live task and no process row, and nothing of it stays attached.
finished() {
	local i state=
	for ((i = 0; i < 120; i++)); do
		ctl_ok status --json
		state=$(csvq --json pick sessions state id="$1" <<<"$CTL_OUT")
		[ "$state" = finished ] && break
		sleep 0.05
	done
	expect_eq "$state" finished "$2: the session's state"
	expect_eq "$(csvq --json pick sessions live_tasks id="$1" <<<"$CTL_OUT")" 0 "$2: live tasks"
	ctl_ok dump "$1" --json --no-symbols -o "$T/f.json"
	expect_eq "$(csvq -f "$T/f.json" --json len processes)" 0 "$2: process rows"
	bpf_wait_detached 6
	bpf_wait_keepers 6
	expect_eq "$(ls "$BPF_TREE/keep")" "" "$2: keepers' locks"
}

# --- term at POINT ---------------------------------------------------------------
for point in slot maps keeper; do
	SYSTRACE_BPF_STOP=$point "${start[@]}" -q -- "$P" 5 5 5 2>"$T/t.err" &
	st=$!
	bpf_stopped "$st" || fail "start did not stop at '$point' (SYSTRACE_BPF_STOP)"
	child=$(cat "/proc/$st/task/$st/children")
	[[ $child =~ ^[0-9]+\ ?$ ]] || fail "start's child at '$point': '$child'"
	kill -TERM "$st"
	kill -CONT "$st"
	wait "$st"
	expect_eq "$?" 143 "start sent SIGTERM at '$point': its exit status (CMD's SIGTERM)"
	sid=$(bpf_sid "$T/t.err")
	[ -n "$sid" ] || fail "start printed no session id at '$point': $(cat "$T/t.err")"
	finished "$sid" "SIGTERM at '$point'"
	ctl_ok reset --all
done

# --- child -9 ----------------------------------------------------------------------
SYSTRACE_BPF_STOP=keeper "${start[@]}" -q -- "$P" 5 5 5 2>"$T/c.err" &
st=$!
bpf_stopped "$st" || fail "start did not stop at 'keeper' (SYSTRACE_BPF_STOP)"
child=$(cat "/proc/$st/task/$st/children")
kill -9 "$child"
kill -CONT "$st"
wait "$st"
expect_eq "$?" 137 "start whose CMD was killed: its exit status (CMD's SIGKILL)"
sid=$(bpf_sid "$T/c.err")
[ -n "$sid" ] || fail "start printed no session id: $(cat "$T/c.err")"
finished "$sid" "CMD killed before its session was live"
ctl_ok reset --all

# --- term at random ----------------------------------------------------------------
for ((r = 1; r <= 9; r++)); do
	"${start[@]}" -q -- sleep 1 2>"$T/r$r.err" &
	st=$!
	sleep "0.0$((r * 11 % 100))"
	kill -TERM "$st"
	wait "$st"
done
for ((i = 0; i < 140; i++)); do
	ctl_ok status --json
	[ "$(csvq --json count sessions state!=finished <<<"$CTL_OUT")" = 0 ] && break
	sleep 0.05
done
expect_eq "$(csvq --json count sessions state!=finished <<<"$CTL_OUT")" 0 "sessions not finished 7 s after 9 starts sent SIGTERM"
expect_eq "$(csvq --json sum sessions live_tasks <<<"$CTL_OUT")" 0 "live tasks after 9 starts sent SIGTERM"
bpf_wait_detached 6
bpf_wait_keepers 6
expect_eq "$(ls "$BPF_TREE/keep")" "" "keepers' locks after 9 starts sent SIGTERM"
ctl_ok reset --all
bpf_wait_detached
