#!/usr/bin/env bash
# Settling is resumable: a command killed while it settles a session
# whose keeper died leaves nothing that the next command does not finish.
#   detach -9  the keeper of a running session killed, then the command
#              that settles it killed in its detach pass (bpf_stopped there by
#              SYSTRACE_BPF_STOP=detach, test-only): the next command ends
#              it as detached, with 0 live tasks, its one process row
#              ended "detached", and its maps cut to its rows (bpftool:
#              each inner map's max_entries is its row count)
#   rings      a finished session holds no ring: its notify ring goes when
#              it finishes (bpftool: the notify map holds 0 entries), a log
#              ring that holds records stays until a log read drains it
#              (one per possible CPU, then 0), and status's memory of the
#              session drops by exactly their bytes; a start --log session
#              keeps none once done
#   spares     the spare maps a finished session's keeper makes for the
#              next start are counted by status (spare_bytes: exactly the
#              sum of bpftool's bytes_memlock of the 6 spare pins, made for
#              the limits asked: max_entries 16 and 64), and dropped by the
#              next command once older than SYSTRACE_BPF_SPARE_TTL seconds:
#              no pin, spare_bytes 0, the maps gone from the kernel
# tags: bpf
# timeout: 180
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_prog sites
need_cmd fuser
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
start=("$SYSTRACECTL" start --backend bpf --counters none)
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
	[ -n "$sid" ] && [ -n "$(bpf_keeper "$sid")" ] && break
	sleep 0.05
done
# CMD's exec seen (its row made) before the keeper goes.
for ((i = 0; i < 200; i++)); do
	child=$(cat "/proc/$st/task/$st/children" 2>/dev/null)
	[ -n "$child" ] && [ "$(readlink "/proc/${child% }/exe")" = "$(readlink -f "$P")" ] && break
	sleep 0.05
done
kp=$(bpf_keeper "$sid")
[[ $kp =~ ^[0-9]+$ ]] || fail "session $sid's keeper: '$kp'"
kill -9 "$kp"
for ((i = 0; i < 200; i++)); do
	[ -z "$(bpf_keeper "$sid")" ] && break
	sleep 0.05
done
SYSTRACE_BPF_STOP=detach "$SYSTRACECTL" list >/dev/null 2>"$T/l.err" &
ls=$!
bpf_stopped "$ls" || fail "list did not stop in its settle's detach (SYSTRACE_BPF_STOP): $(cat "$T/l.err")"
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

# --- rings ------------------------------------------------------------------------
ncpus=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1 } } END { print c }' \
	/sys/devices/system/cpu/possible)
# ids MAP: the inner maps' ids in the tree's MAP, one a line, but the
# spare notify ring a keeper put at the next session's slot.
ids() {
	local out spare
	out=$(bpftool -j map dump pinned "$BPF_TREE/$1")
	spare=$(bpftool -j map show pinned "$BPF_TREE/spare-notify" 2>/dev/null | csvq --json get id 2>/dev/null)
	[ "$out" = "[]" ] || csvq --json le . value <<<"$out" | grep -vx "${spare:-none}"
}
mem() { "$SYSTRACECTL" status --json | csvq --json pick sessions mem_bytes id="$1"; }
need_cmd taskset
# On CPU 0 only: the log's records are all in CPU 0's ring.
taskset -c 0 "${start[@]}" -q --log-buffer 64K -- "$P" 7 3 2 2>"$T/r.err" || fail "start --log-buffer 64K: $(cat "$T/r.err")"
sid=$(bpf_sid "$T/r.err")
bpf_wait_keepers 10
expect_eq "$(ids notify | wc -l)" 0 "notify rings once the session finished"
expect_eq "$(ids logs | wc -l)" 1 "log rings of the finished session, not drained (CPU 0's; the $ncpus possible CPUs' others were empty)"
for id in $(ids logs); do
	expect_eq "$(bpftool -j map show id "$id" | csvq --json get max_entries)" 65536 "log ring $id: bytes"
done
before=$(mem "$sid")
ctl_ok log "$sid" -o "$T/r.csv" --no-symbols
expect_eq "$(ids logs | wc -l)" 0 "log rings of the finished session once its log was read"
expect_eq "$(mem "$sid")" $((before - 65536)) "the session's memory once its last log ring went (before: $before)"
expect_eq "$(grep -c ',getppid,' "$T/r.csv")" 10 "the log's getppid calls (7 + 3)"
ctl_ok reset --all
"${start[@]}" -q --log "$T/l.csv" --log-buffer 64K -- "$P" 7 3 2 2>"$T/l.err" || fail "start --log: $(cat "$T/l.err")"
bpf_wait_keepers 10
expect_eq "$(ids logs | wc -l)" 0 "log rings of a finished start --log session"
expect_eq "$(ids notify | wc -l)" 0 "notify rings of a finished start --log session"
ctl_ok reset --all

# --- spares -----------------------------------------------------------------------
spares="procs sites files argv notify paths"
SYSTRACE_MAX_PROCS=16 SYSTRACE_MAX_SITES=64 "${start[@]}" -q -- "$P" 7 3 2 2>"$T/sp.err" ||
	fail "start with max_procs 16: $(cat "$T/sp.err")"
bpf_wait_keepers 10
memlock=0
spare_ids=
for m in $spares; do
	bpftool -j map show pinned "$BPF_TREE/spare-$m" >"$T/sp.json" 2>/dev/null || fail "no spare-$m pin after a session"
	memlock=$((memlock + $(csvq -f "$T/sp.json" --json get bytes_memlock)))
	spare_ids="$spare_ids $(csvq -f "$T/sp.json" --json get id)"
done
expect_eq "$(bpftool -j map show pinned "$BPF_TREE/spare-procs" | csvq --json get max_entries)" 16 "spare-procs: max_entries (SYSTRACE_MAX_PROCS)"
expect_eq "$(bpftool -j map show pinned "$BPF_TREE/spare-sites" | csvq --json get max_entries)" 64 "spare-sites: max_entries (SYSTRACE_MAX_SITES)"
ctl_ok status --json
expect_eq "$(csvq --json get spare_bytes <<<"$CTL_OUT")" "$memlock" "status spare_bytes: bpftool's bytes_memlock of the 6 spares"
expect_ge "$memlock" 262144 "the spares' memlock (the files map's buckets alone are 16 x 16384)"
ctl_ok status
expect_line "$CTL_OUT" "^spare maps: +$memlock bytes " "status (text): the spares' bytes"
sleep 2
SYSTRACE_BPF_SPARE_TTL=1 ctl_ok list
expect_eq "$(find "$BPF_TREE" -maxdepth 1 -name 'spare-*' | wc -l)" 0 "spare pins once expired (SYSTRACE_BPF_SPARE_TTL=1, 2 s idle)"
ctl_ok status --json
expect_eq "$(csvq --json get spare_bytes <<<"$CTL_OUT")" 0 "status spare_bytes once the spares expired"
for ((i = 0; i < 100; i++)); do
	left=0
	for id in $spare_ids; do
		bpftool map show id "$id" >/dev/null 2>&1 && left=$((left + 1))
	done
	[ "$left" = 0 ] && break
	sleep 0.05
done
expect_eq "$left" 0 "spare maps still in the kernel once expired (bpftool map show id)"
ctl_ok reset --all
bpf_wait_detached 10
