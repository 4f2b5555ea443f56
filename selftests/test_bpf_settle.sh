#!/usr/bin/env bash
# Settling is resumable: a command killed while it settles a session
# whose keeper died leaves nothing that the next command does not finish.
#   detach -9  the keeper of a running session killed, then the command
#              that settles it killed in its detach pass (stopped there by
#              SYSTRACE_BPF_STOP=detach, test-only): the next command ends
#              it as detached, with 0 live tasks, its one process row
#              ended "detached", and its maps cut to its rows (bpftool:
#              each inner map's max_entries is its row count)
# tags: bpf
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_prog sites
need_cmd fuser
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
start=("$SYSTRACECTL" start --backend bpf --counters none)
keeper() { fuser "$BPF_TREE/keep/$1" 2>/dev/null | tr -d ' '; }
stopped() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
		sleep 0.05
	done
	return 1
}
# inner MAP: max_entries of the tree's MAP's inner map (one session).
inner() {
	local id
	id=$(bpftool -j map dump pinned "$BPF_TREE/$1" | csvq --json le . value)
	[[ $id =~ ^[0-9]+$ ]] || { echo "no one inner map in $1: '$id'"; return; }
	bpftool -j map show id "$id" | csvq --json get max_entries
}

# --- detach -9 ---------------------------------------------------------------------
"${start[@]}" -q -- "$P" 5 5 5 "$T/go" 2>"$T/s.err" &
st=$!
for ((i = 0; i < 200; i++)); do
	sid=$(bpf_sid "$T/s.err")
	[ -n "$sid" ] && [ -n "$(keeper "$sid")" ] && break
	sleep 0.05
done
# CMD's exec seen (its row made) before the keeper goes.
for ((i = 0; i < 200; i++)); do
	child=$(cat "/proc/$st/task/$st/children" 2>/dev/null)
	[ -n "$child" ] && [ "$(readlink "/proc/${child% }/exe")" = "$(readlink -f "$P")" ] && break
	sleep 0.05
done
kp=$(keeper "$sid")
[[ $kp =~ ^[0-9]+$ ]] || fail "session $sid's keeper: '$kp'"
kill -9 "$kp"
for ((i = 0; i < 200; i++)); do
	[ -z "$(keeper "$sid")" ] && break
	sleep 0.05
done
SYSTRACE_BPF_STOP=detach "$SYSTRACECTL" list >/dev/null 2>"$T/l.err" &
ls=$!
stopped "$ls" || fail "list did not stop in its settle's detach (SYSTRACE_BPF_STOP): $(cat "$T/l.err")"
kill -9 "$ls"
wait "$ls" 2>/dev/null
ctl_ok list
expect_line "$CTL_OUT" "^$sid +- +detached " "the session once its settle was killed half-way"
ctl_ok status --json
expect_eq "$(csvq --json pick sessions live_tasks id="$sid" <<<"$CTL_OUT")" 0 "live tasks of the detached session"
expect_le "$(csvq --json pick sessions mem_bytes id="$sid" <<<"$CTL_OUT")" 65536 "memory of the detached session (cut to its rows)"
ctl_ok dump "$sid" --json --no-symbols -o "$T/d.json"
expect_eq "$(csvq -f "$T/d.json" --json len processes)" 1 "process rows"
expect_eq "$(csvq -f "$T/d.json" --json pick processes end)" detached "the process row's end"
expect_eq "$(inner procs)" 1 "the processes map's max_entries (bpftool), cut to its 1 row"
expect_eq "$(inner sites)" "$(csvq -f "$T/d.json" --json len sites)" "the sites map's max_entries (bpftool), cut to its rows"
touch "$T/go"
wait "$st"
ctl_ok reset --all
bpf_wait_detached 10
