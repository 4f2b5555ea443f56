#!/usr/bin/env bash
# start --log holds no command line while it writes the log: each process
# row's argv waits in a temporary file beside the log and is read back for
# its exec event. forkstorm 3000 forks 3,000 children, each a row with its
# parent's argv; run once with a 3,900-byte argument and once with a 1-byte
# one, systracectl's own peak RSS (--self-usage) differs by less than
# 4 MiB (holding them: 3,001 x 3.9 KiB, 11.5 MiB more). Both logs are
# exact: one exec event, the root's, with its whole argv (not truncated),
# 3,000 fork events and 3,001 exits; the dump's rows still carry every
# argv. Nothing is left beside the log. Both backends.
# tags: trace bpf
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog forkstorm
on_exit mod_unload_quiet
mod_load

N=3000
big=$(head -c 3900 /dev/zero | tr '\0' a)
declare -A rss
for kind in big small; do
	arg=$big
	[ $kind = big ] || arg=a
	mkdir -p "$T/$kind"
	trace --self-usage --log "$T/$kind/log.csv" -- "$PROGS/forkstorm" $N 16 "$arg"
	assert_eq "$TRACE_RC" 0 "$kind: forkstorm's exit status ($TRACE_ERR)"
	expect_contains "$TRACE_ERR" "events to $T/$kind/log.csv (csv), none dropped" "$kind: the log's line"
	rss[$kind]=$(sed -n 's/^systracectl: self: peak RSS \([0-9]*\) KiB.*/\1/p' "$D/start.err")
	expect_ge "${rss[$kind]:-0}" 1 "$kind: systracectl's own peak RSS is said"
	ls -A "$T/$kind" >"$T/$kind.ls"
	assert_eq "$(cat "$T/$kind.ls")" "log.csv" "$kind: what is left beside the log"
	python3 - "$T/$kind/log.csv" "$D/dump.json" "$PROGS/forkstorm" $N "$arg" >"$T/$kind.check" 2>&1 <<'PY'
import csv, json, shlex, sys
log, dump, prog, n, arg = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
want = [prog, str(n), "16", arg]
ev = {}
execs = []
with open(log, newline="") as f:
    for r in csv.DictReader(f):
        ev[r["event"]] = ev.get(r["event"], 0) + 1
        if r["event"] == "exec":
            execs.append(r)
bad = []
if (ev.get("fork"), ev.get("exit"), ev.get("exec")) != (n, n + 1, 1):
    bad.append("events: fork %s exit %s exec %s, want %d %d 1" % (ev.get("fork"), ev.get("exit"), ev.get("exec"), n, n + 1))
for r in execs:
    if shlex.split(r["argv"]) != want or r["argv_truncated"] != "0":
        bad.append("the exec's argv: %r (truncated %s)" % (r["argv"][:80], r["argv_truncated"]))
rows = json.load(open(dump))["processes"]
argvs = [p.get("argv") for p in rows]
if len(rows) != n + 1 or any(a != want for a in argvs):
    bad.append("dump: %d rows, %d with the argv" % (len(rows), sum(a == want for a in argvs)))
print("\n".join(bad) if bad else "ok")
PY
	assert_eq "$(cat "$T/$kind.check")" ok "$kind: the log's events and argv, the dump's rows"
done
log "peak RSS: ${rss[big]} KiB with $N x 3.9 KiB command lines, ${rss[small]} KiB with 1-byte ones"
expect_le "$((rss[big] - rss[small]))" 4096 "systracectl's own peak RSS, KiB more with the long command lines"
