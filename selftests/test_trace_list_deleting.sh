#!/usr/bin/env bash
# systracectl list (the session-list dump) while sessions are deleted (review
# finding 5 of issue 23). The dump fills each session holding a reference
# of its own, out of RCU (its totals walk all its rows), and finds the next
# one again by id. S finished sessions of F+1 rows each (progs/forkstorm F)
# are deleted one by one while list --json runs in a loop: every list is in
# id order, without duplicates, shows each session exactly as a list taken
# before the deletions did (same object), holds every session not yet being
# deleted when it started and none deleted before it started. On the debug
# kernel, no RCU stall and no "sleeping function" report (klog patterns).
# tags: trace debug
# timeout: 900
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog forkstorm
[ "${SYSTRACE_BACKEND:-kmod}" = kmod ] || skip "module sessions only"
on_exit mod_unload_quiet
mod_load

S=12 F=400
ids=()
for ((i = 1; i <= S; i++)); do
	ctl_ok start --counters none --name "l$i" -- "$PROGS/forkstorm" "$F"
	assert_eq "$CTL_OUT" "forks $F" "forkstorm $F's output (session $i)"
	id=$(sed -nE 's/^systracectl: session ([0-9]+).*/\1/p' <<<"$CTL_ERR" | head -1)
	[ -n "$id" ] || fail "no session id in: $CTL_ERR"
	ids+=("$id")
done
ctl_ok list --json
echo "$CTL_OUT" >"$T/ref.json"
assert_eq "$(csvq --json len sessions <"$T/ref.json")" "$S" "sessions listed before the deletions"
for ((i = 0; i < S; i++)); do
	assert_eq "$(csvq --json get "sessions.$i.processes" <"$T/ref.json")" $((F + 1)) "rows of session ${ids[i]}"
done

log=$T/log
: >"$log"
(
	for id in "${ids[@]}"; do
		echo "del $id" >>"$log"
		"$SYSTRACECTL" reset "$id" >/dev/null 2>>"$T/reset.err" || echo "reset-failed $id" >>"$log"
		echo "done $id" >>"$log"
		sleep 0.2
	done
	echo finished >>"$log"
) &
deleter=$!
on_exit "kill $deleter 2>/dev/null"
k=0
while ! grep -qx finished "$log"; do
	k=$((k + 1))
	echo "start $k" >>"$log"
	"$SYSTRACECTL" list --json >"$T/list.$k" 2>"$T/list.$k.err"
	echo "end $k $?" >>"$log"
done
wait "$deleter"
log "lists taken: $k"
expect_ge "$k" "$S" "lists taken during the deletions"

python3 - "$T" "$k" <<'PY' || fail "a list taken during the deletions was wrong (above)"
import json, sys
d, k = sys.argv[1], int(sys.argv[2])
ref = {s["id"]: s for s in json.load(open(d + "/ref.json"))["sessions"]}
ev = [l.split() for l in open(d + "/log")]
pos = {}
for i, e in enumerate(ev):
    pos[tuple(e[:2])] = i
bad = []
for e in ev:
    if e[0] == "reset-failed":
        bad.append("reset of session %s failed" % e[1])
for n in range(1, k + 1):
    st, en = pos[("start", str(n))], pos[("end", str(n))]
    rc = [e for e in ev if e[:2] == ["end", str(n)]][0][2]
    if rc != "0":
        bad.append("list %d: exit %s: %s" % (n, rc, open("%s/list.%d.err" % (d, n)).read()))
        continue
    got = json.load(open("%s/list.%d" % (d, n)))["sessions"]
    gid = [s["id"] for s in got]
    if gid != sorted(set(gid)):
        bad.append("list %d: ids %r not in order or repeated" % (n, gid))
    for s in got:
        if s != ref.get(s["id"]):
            bad.append("list %d: session %d differs from before the deletions: %r" % (n, s["id"], s))
    for i in ref:
        deleted_before = pos[("done", str(i))] < st
        deleting_after = pos[("del", str(i))] > en
        if deleted_before and i in gid:
            bad.append("list %d: session %d, deleted before the list started, is listed" % (n, i))
        if deleting_after and i not in gid:
            bad.append("list %d: session %d, deleted after the list ended, is missing" % (n, i))
for b in bad[:20]:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
ctl_ok list --json
expect_eq "$(csvq --json len sessions <<<"$CTL_OUT")" 0 "sessions left"
