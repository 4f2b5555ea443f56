#!/usr/bin/env bash
# Who keeps the BPF programs attached, and for how long: no program of
# systrace's is attached unless a session has a traced task alive.
#   finished   4 finished sessions: nothing attached; each holds only its
#              rows (its maps cut to them: under 64 KiB for sites 7 3 2),
#              and dumps them exactly: 1 process, exit 0, 10 getppid
#   daemon     CMD leaves a child behind: start returns, the session runs
#              until the child exits, then the programs come off
#   start -9   start killed while CMD runs: the session goes on and ends
#              when CMD does
#   keeper -9  the keeper killed: the programs come off at once, and the
#              next command ends the session as detached
#   made -9    start killed at each point of making a session (stopped
#              there by SYSTRACE_BPF_STOP), and at random times: list,
#              status and reset --all agree, the next start works, and
#              nothing stays attached
# tags: bpf
# timeout: 240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_prog sites
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
# An array, not a function: a background job of it is systracectl itself.
start=("$SYSTRACECTL" start --backend bpf --counters none)
nsessions() { "$SYSTRACECTL" list | grep -c '^[0-9]'; }
need_cmd fuser

# --- made -9 ----------------------------------------------------------------------
last=0
for point in slot maps keeper; do
	SYSTRACE_BPF_STOP=$point "${start[@]}" -q -- "$P" 5 5 5 2>"$T/m.err" &
	st=$!
	for ((i = 0; i < 200; i++)); do
		[ "$(awk '{ print $3 }' "/proc/$st/stat" 2>/dev/null)" = T ] && break
		sleep 0.05
	done
	if [ "$(awk '{ print $3 }' "/proc/$st/stat" 2>/dev/null)" != T ]; then
		expect_eq "start did not stop" "start stopped" "start bpf_stopped at '$point' (SYSTRACE_BPF_STOP)"
		wait "$st"
		ctl_ok reset --all
		continue
	fi
	kill -9 "$st"
	wait "$st" 2>/dev/null
	ctl_ok list
	expect_eq "$(grep -c '^[0-9]' <<<"$CTL_OUT")" 0 "sessions listed after start was killed at '$point'"
	ctl_ok status --json
	expect_eq "$(csvq --json get sessions_live <<<"$CTL_OUT")" 0 "sessions status counts after start was killed at '$point'"
	bpf_wait_detached 5
	expect_eq "$(ls "$BPF_TREE/keep")" "" "keepers' locks after start was killed at '$point'"
	"${start[@]}" -q -- "$P" 7 3 2 2>"$T/m2.err" || fail "start after a start killed at '$point': $(cat "$T/m2.err")"
	sid=$(bpf_sid "$T/m2.err")
	expect_ge "$sid" $((last + 2)) "the id after a start killed at '$point' (ids are never handed out twice)"
	last=$sid
	ctl_ok reset --all
done
# At random, and as soon as anything of the new session shows in the tree
# (a keeper's lock, or an older layout's folder): at most the one session
# that start made, list and status agree,
# every listed session dumps, and reset --all leaves nothing.
for ((r = 0; r < 12; r++)); do
	"${start[@]}" -q -- "$P" 50 5 1 >/dev/null 2>&1 &
	st=$!
	if ((r % 2)); then
		sleep "0.0$((r % 10))$r"
	else
		for ((i = 0; i < 4000; i++)); do
			[ -n "$(find "$BPF_TREE" -mindepth 1 -maxdepth 2 \( -regex '.*/[0-9]+' \) 2>/dev/null)" ] && break
		done
	fi
	kill -9 "$st" 2>/dev/null
	wait "$st" 2>/dev/null
	ctl list
	expect_eq "$CTL_RC" 0 "list after a start killed (round $r)"
	listed=$(grep -c '^[0-9]' <<<"$CTL_OUT")
	expect_le "$listed" 1 "sessions listed after one start was killed (round $r): that start's, or none"
	ctl_ok status --json
	expect_eq "$(csvq --json get sessions_live <<<"$CTL_OUT")" "$listed" "sessions status counts and list shows after a start killed (round $r)"
	ctl list
	while read -r sid _; do
		[[ $sid =~ ^[0-9]+$ ]] || continue
		ctl dump "$sid" --json --no-symbols -o "$T/r.json"
		expect_eq "$CTL_RC" 0 "dump of session $sid after a start killed (round $r): exit status"
	done <<<"$CTL_OUT"
	ctl_ok reset --all
	expect_eq "$(nsessions)" 0 "sessions after reset --all (round $r)"
	expect_eq "$(find "$BPF_TREE" -mindepth 1 -maxdepth 1 -regex '.*/[0-9]+' | wc -l)" 0 "session folders left (round $r)"
done
bpf_wait_detached

# --- finished ------------------------------------------------------------------
for n in 1 2 3 4; do
	"${start[@]}" -q -- "$P" 7 3 2 2>"$T/f$n.err" || fail "start $n: $(cat "$T/f$n.err")"
done
bpf_wait_detached
ctl_ok status --json
expect_eq "$(csvq --json get sessions_live <<<"$CTL_OUT")" 4 "finished sessions"
for n in 0 1 2 3; do
	expect_eq "$(csvq --json get sessions.$n.state <<<"$CTL_OUT")" finished "session $n's state"
	expect_le "$(csvq --json get sessions.$n.mem_bytes <<<"$CTL_OUT")" 65536 "session $n's memory, finished"
done
# Each holds the rows of its run, exactly: sites 7 3 2 makes one process
# that exits 0 after 10 getppid at its sites.
for n in 1 2 3 4; do
	sid=$(bpf_sid "$T/f$n.err")
	ctl_ok dump "$sid" --json --no-symbols -o "$T/f$n.json"
	expect_eq "$(csvq -f "$T/f$n.json" --json len processes)" 1 "finished session $sid: process rows"
	expect_eq "$(csvq -f "$T/f$n.json" --json get processes.0.exit_code)" 0 "finished session $sid: exit code"
	expect_eq "$(csvq -f "$T/f$n.json" --json sum sites calls nr=110 path="$P")" 10 "finished session $sid: getppid calls"
done
expect_eq "$(ls "$BPF_TREE/keep")" "" "keepers' locks of finished sessions"
ctl_ok reset --all

# --- daemon ----------------------------------------------------------------------
"${start[@]}" -q -- sh -c "\"$P\" 5 5 5 \"$T/go\" & exit 3" 2>"$T/d.err"
expect_eq "$?" 3 "start of a CMD that leaves a child behind: exit status (CMD's)"
sid=$(bpf_sid "$T/d.err")
ctl_ok list
expect_line "$CTL_OUT" "^$sid +- +running " "the session runs on after start returned"
expect_eq "$(bpf_probes_active)" true "programs attached while the child runs"
expect_ne "$(bpf_keeper "$sid")" "" "session $sid's keeper"
touch "$T/go"
bpf_wait_detached
ctl_ok dump "$sid" --json --no-symbols -o "$T/d.json"
expect_eq "$(csvq -f "$T/d.json" --json get session.state)" finished "the session once the child exited"
expect_eq "$(csvq -f "$T/d.json" --json sum sites calls nr=110 path="$P")" 10 "the child's getppid calls"
ctl_ok reset --all
rm -f "$T/go"

# --- start -9 ---------------------------------------------------------------------
"${start[@]}" -q -- "$P" 5 5 5 "$T/go" 2>"$T/k.err" &
st=$!
for ((i = 0; i < 200; i++)); do
	sid=$(bpf_sid "$T/k.err")
	[ -n "$sid" ] && [ -n "$(bpf_keeper "$sid")" ] && break
	sleep 0.05
done
[ -n "$sid" ] || fail "start printed no session id: $(cat "$T/k.err")"
kill -9 "$st"
wait "$st" 2>/dev/null
ctl_ok list
expect_line "$CTL_OUT" "^$sid +- +(waiting|running) " "the session once start was killed"
touch "$T/go"
bpf_wait_detached
ctl_ok dump "$sid" --json --no-symbols -o "$T/k.json"
expect_eq "$(csvq -f "$T/k.json" --json get session.state)" finished "the session once CMD exited"
expect_eq "$(csvq -f "$T/k.json" --json sum sites calls nr=110)" 10 "CMD's getppid calls, start killed"
ctl_ok reset --all
rm -f "$T/go"

# --- keeper -9 --------------------------------------------------------------------
"${start[@]}" -q -- "$P" 5 5 5 "$T/go" 2>"$T/kk.err" &
st=$!
for ((i = 0; i < 200; i++)); do
	sid=$(bpf_sid "$T/kk.err")
	[ -n "$sid" ] && [ -n "$(bpf_keeper "$sid")" ] && break
	sleep 0.05
done
kp=$(bpf_keeper "$sid")
[[ $kp =~ ^[0-9]+$ ]] || fail "session $sid's keeper: '$kp'"
expect_eq "$(cat "/proc/$kp/comm")" systrace-keep "the keeper's name"
kill -9 "$kp"
bpf_wait_detached 2
ctl_ok list
expect_line "$CTL_OUT" "^$sid +- +detached " "the session once its keeper was killed"
touch "$T/go"
wait "$st"
ctl_ok reset --all
rm -f "$T/go"

bpf_wait_detached
