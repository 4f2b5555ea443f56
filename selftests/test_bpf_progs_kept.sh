#!/usr/bin/env bash
# The BPF backend's programs stay loaded between sessions, pinned in the
# tree, and attached only while a session runs (a fresh bpffs, a private
# mount namespace):
#   first     the first start loads the 5 programs of a session without
#             counters and pins them (prog-DIGEST-NAME); once it ends, all
#             5 stay loaded and none is attached
#   again     a second start loads nothing: the same 5 programs (same ids)
#             are attached while it runs (its command waits on a FIFO), and
#             none once it ends
#   stranger  a map pinned at st_sys_enter's name, and a program pinned under
#             another build's digest: the next start loads st_sys_enter
#             again and pins it in the map's place, keeps the other 4 (same
#             ids), and lets the other build's pin go
# tags: bpf bpf-quick
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_bpf
in_private_bpffs "$@"

start=("$SYSTRACECTL" start --backend bpf --counters none -q)
pins() { find "$BPF_TREE" -maxdepth 1 -name 'prog-*' -printf '%f\n' | sort; }

# --- first -------------------------------------------------------------------------
"${start[@]}" -- true 2>"$T/first.err" || fail "start -- true: $(cat "$T/first.err")"
bpf_wait_detached
bpf_our_loaded >"$T/first.loaded"
pins >"$T/first.pins"

# --- again -------------------------------------------------------------------------
mkfifo "$T/fifo"
"${start[@]}" -- head -c 1 <"$T/fifo" >/dev/null 2>"$T/again.err" &
st=$!
exec 7>"$T/fifo"
for ((i = 0; i < 200; i++)); do
	[ "$(bpf_our_progs)" = 5 ] && break
	sleep 0.05
done
bpf_our_progs >"$T/again.attached"
bpf_our_loaded >"$T/again.during"
printf x >&7
exec 7>&-
wait "$st" || fail "start -- head: exit $?: $(cat "$T/again.err")"
bpf_wait_detached
bpf_our_loaded >"$T/again.loaded"

# --- stranger ----------------------------------------------------------------------
digest=$(sed -n 's/^prog-\([0-9a-f]*\)-st_sys_enter$/\1/p' "$T/first.pins")
[ -n "$digest" ] || fail "no prog-DIGEST-st_sys_enter pin: $(cat "$T/first.pins")"
rm "$BPF_TREE/prog-$digest-st_sys_enter"
bpftool map create "$BPF_TREE/prog-$digest-st_sys_enter" type array key 4 value 8 entries 1 name st_sys_enter ||
	fail "bpftool map create prog-$digest-st_sys_enter"
exit_id=$(awk '$1 == "st_exit" { print $2 }' "$T/again.loaded")
bpftool prog pin id "$exit_id" "$BPF_TREE/prog-0000000000000000-st_exit" || fail "bpftool prog pin id $exit_id"
"${start[@]}" -- true 2>"$T/stranger.err" || fail "start -- true with strangers: $(cat "$T/stranger.err")"
bpf_wait_detached
# A program goes with its last pin or link, maybe a moment later: wait for 5.
for ((i = 0; i < 200; i++)); do
	[ "$(bpf_our_loaded | wc -l)" = 5 ] && break
	sleep 0.05
done
bpf_our_loaded >"$T/stranger.loaded"
pins >"$T/stranger.pins"

pycheck test_bpf_progs_kept.py "$T" "$digest"
