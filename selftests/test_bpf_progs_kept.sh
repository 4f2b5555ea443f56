#!/usr/bin/env bash
# A BPF start only fills maps and attaches: the programs stay loaded between
# sessions, pinned in the tree and attached only while a session runs, and a
# session's hash maps are made ahead of need by the keeper of the one before
# (a fresh bpffs, a private mount namespace):
#   first     the first start loads the 5 programs of a session without
#             counters and pins them (prog-DIGEST-NAME); once it ends, all
#             5 stay loaded and none is attached; its keeper leaves the
#             spare hash maps (spare-procs, -sites, -files, -argv), each
#             already put at a slot of its array of maps
#   again     a second start loads nothing: the same 5 programs (same ids)
#             are attached while it runs (its command waits on a FIFO); its
#             4 hash maps are the spares (same ids, at its slot), whose pins
#             are gone; once it ends none is attached, and its keeper leaves
#             4 new spare hash maps
#   limits    a start with SYSTRACE_MAX_PROCS=64 takes the spares of the
#             sites and files (same limits) and makes procs and argv (whose
#             sizes follow max_procs): those spares' ids are not at its slot
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
need_cmd fuser
in_private_bpffs "$@"

start=("$SYSTRACECTL" start --backend bpf --counters none -q)
KINDS="procs sites files argv"
pins() { find "$BPF_TREE" -maxdepth 1 -name "$1-*" -printf '%f\n' | sort; }
# spares OUT: "KIND ID" of each spare map pinned
spares() {
	local k
	for k in $KINDS; do
		[ -e "$BPF_TREE/spare-$k" ] && echo "$k $(bpftool -j map show pinned "$BPF_TREE/spare-$k" | csvq --json get id)"
	done >"$1"
}
# inner OUT: OUT.KIND, each of the tree's arrays of maps as bpftool dumps it
inner() {
	local k
	for k in $KINDS; do
		bpftool -j map dump pinned "$BPF_TREE/$k" >"$1.$k" || fail "bpftool map dump pinned $BPF_TREE/$k"
	done
}
# waiting CMD...: starts a session of `head -c 1` on a FIFO and waits for its 5 links
waiting() {
	rm -f "$T/fifo"
	mkfifo "$T/fifo"
	env "$@" "${start[@]}" -- head -c 1 <"$T/fifo" >/dev/null 2>"$T/waiting.err" &
	st=$!
	exec 7>"$T/fifo"
	for ((i = 0; i < 200; i++)); do
		[ "$(bpf_our_progs)" = 5 ] && break
		sleep 0.05
	done
}
release() {
	printf x >&7
	exec 7>&-
	wait "$st" || fail "start -- head: exit $?: $(cat "$T/waiting.err")"
	bpf_wait_detached 10
	bpf_wait_keepers 10
}

# --- first -------------------------------------------------------------------------
"${start[@]}" -- true 2>"$T/first.err" || fail "start -- true: $(cat "$T/first.err")"
bpf_wait_detached 10
bpf_wait_keepers 10
bpf_our_loaded >"$T/first.loaded"
pins prog >"$T/first.pins"
spares "$T/first.spares"
inner "$T/first.inner"

# --- again -------------------------------------------------------------------------
waiting
bpf_our_progs >"$T/again.attached"
bpf_our_loaded >"$T/again.during"
inner "$T/again.inner"
pins spare >"$T/again.spare_pins"
release
bpf_our_loaded >"$T/again.loaded"
spares "$T/again.spares"

# --- limits ------------------------------------------------------------------------
waiting SYSTRACE_MAX_PROCS=64
inner "$T/limits.inner"
release

# --- stranger ----------------------------------------------------------------------
digest=$(sed -n 's/^prog-\([0-9a-f]*\)-st_sys_enter$/\1/p' "$T/first.pins")
[ -n "$digest" ] || fail "no prog-DIGEST-st_sys_enter pin: $(cat "$T/first.pins")"
rm "$BPF_TREE/prog-$digest-st_sys_enter"
bpftool map create "$BPF_TREE/prog-$digest-st_sys_enter" type array key 4 value 8 entries 1 name st_sys_enter ||
	fail "bpftool map create prog-$digest-st_sys_enter"
exit_id=$(awk '$1 == "st_exit" { print $2 }' "$T/again.loaded")
bpftool prog pin id "$exit_id" "$BPF_TREE/prog-0000000000000000-st_exit" || fail "bpftool prog pin id $exit_id"
"${start[@]}" -- true 2>"$T/stranger.err" || fail "start -- true with strangers: $(cat "$T/stranger.err")"
bpf_wait_detached 10
bpf_wait_keepers 10
# A program goes with its last pin or link, maybe a moment later: wait for 5.
for ((i = 0; i < 200; i++)); do
	[ "$(bpf_our_loaded | wc -l)" = 5 ] && break
	sleep 0.05
done
bpf_our_loaded >"$T/stranger.loaded"
pins prog >"$T/stranger.pins"

pycheck test_bpf_progs_kept.py "$T" "$digest"
