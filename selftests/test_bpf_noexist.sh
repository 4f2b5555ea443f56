#!/usr/bin/env bash
# A BPF_NOEXIST insert that meets an existing key, on purpose: the next
# process row id (2) is taken by a row written from userspace before the
# traced fork, so the fork program's insert fails with -EEXIST and takes
# the next id. On 6.1 the verifier calls a hash map's update directly and
# its int return came back zero-extended (4294967279, not -17): without
# the (int) cast of map_insert() the fork counts as a dropped process (and
# a failed allocation), and the child is not followed. Run by the 6.1-bpf
# guest tier. Exact: rows 1 and 3 (attachee, its child: exit 5, M getppid
# at child_site), 1 fork, nothing dropped.
# tags: bpf bpf-quick
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_bpf
need_prog attachee
on_exit mod_unload_quiet
mod_load

P=$PROGS/attachee
K=3 M=4
coff=$(elf_offset "$P" child_site_insn) || exit 1

wait_line() { # FILE TEXT
	local i
	for ((i = 0; i < 6000; i++)); do
		grep -qx "$2" "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	fail "attachee never wrote '$2' (its output: $(cat "$1"))"
}

# procs_map SID: the id of the process map of session SID, and its value size.
procs_map() {
	python3 - "$1" "$BPF_TREE" <<'EOF'
import json, subprocess, sys
sid, tree = int(sys.argv[1]), sys.argv[2]
def bpftool(*a):
    return json.loads(subprocess.run(["bpftool", "-j"] + list(a), check=True,
                                     capture_output=True, text=True).stdout)
def val(e, n=8):
    return int.from_bytes(bytes(int(b, 16) for b in e[:n]), "little")
slots = [e for e in bpftool("map", "dump", "pinned", tree + "/sessions") if val(e["value"]) == sid]
assert len(slots) == 1, "session %d in %d slots" % (sid, len(slots))
key = [b[2:] for b in slots[0]["key"]]
inner = bpftool("map", "lookup", "pinned", tree + "/procs", "key", "hex", *key)
mid = inner.get("inner_map_id", inner.get("value"))
mid = mid if isinstance(mid, int) else val(mid, 4)
print(mid, bpftool("map", "show", "id", str(mid))["bytes_value"])
EOF
}

id_hex() { printf '%016x' "$1" | sed 's/../& /g' | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }'; }

mkfifo "$T/fifo"
"$SYSTRACECTL" start --backend bpf --counters none -- "$P" "$K" "$M" <"$T/fifo" >"$T/out" 2>"$T/err" &
st=$!
exec 8>"$T/fifo"
on_exit "kill -9 $st 2>/dev/null"
wait_line "$T/out" ready
sid=$(bpf_sid "$T/err")
[ -n "$sid" ] || fail "no session id: $(cat "$T/err")"
read -r map vsize <<<"$(procs_map "$sid")" || fail "session $sid's process map"
# Row 2, all zero but its id: what the fork program's first insert meets.
read -ra two <<<"$(id_hex 2)"
read -ra zeros <<<"$(printf '00 %.0s' $(seq 9 "$vsize"))"
bpftool map update id "$map" key hex "${two[@]}" value hex "${two[@]}" "${zeros[@]}" noexist ||
	fail "bpftool map update id $map: row 2"
printf g >&8
wait_line "$T/out" "done"
printf g >&8
exec 8>&-
wait "$st"
assert_eq "$?" 7 "attachee's exit status"
# The session is finished: its maps are cut to its rows; row 2 goes from there.
bpf_wait_detached 10
read -r map vsize <<<"$(procs_map "$sid")" || fail "session $sid's process map, cut"
bpftool map delete id "$map" key hex "${two[@]}" || fail "bpftool map delete id $map: row 2"

D=$T/dump
mkdir -p "$D"
trace_dump "$sid"
j=$D/dump.json
expect_eq "$(csvq -f "$j" --json get processes.0.id processes.1.id | tr '\n' ' ')" "1 3 " "the rows' ids (2 was taken)"
expect_eq "$(csvq -f "$j" --json get processes.1.parent_id processes.1.exit_code | tr '\n' ' ')" "1 5 " \
	"the child's row: parent, exit code"
expect_eq "$(csvq -f "$j" --json sum sites calls proc_id=3 offset="$coff")" "$M" "the child's getppid calls at child_site"
for k in forks dropped_procs dropped_nomem dropped_syscalls; do
	want=0
	[ $k = forks ] && want=1
	expect_eq "$(csvq -f "$j" --json get "session.$k")" "$want" "session $k"
done
