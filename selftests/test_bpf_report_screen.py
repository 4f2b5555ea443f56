# SPDX-License-Identifier: GPL-2.0
"""Checks of test_bpf_report_screen.sh, run by its pycheck after the trace."""
from trace_check import begin, done, eq, expect, le, log, report, Trace

ARGS = begin()
import collections, json, re
d, rdir, strace_c, strace_f = ARGS
t = Trace(d)
REPORTS = ("amortize", "short", "phases", "syscalls", "errors", "timeline", "paths")

pids = {p["pid"] for p in t.procs}
eq(len(pids), 85, "processes (pids) of the tree")
eq(len(t.procs), 169, "images of the tree")
errnos_ids = {p["id"] for p in t.procs if p["comm"] == "errnos"}
eq(len(errnos_ids), 84, "errnos images")

# The default text: a screen.
for r in REPORTS:
    for kind, cols in (("tty", 80), ("txt", 100)):
        lines = open("%s/%s.%s" % (rdir, r, kind)).read().splitlines()
        w = "report %s %s" % (r, "on an 80-column terminal" if kind == "tty" else "into a pipe")
        log("%s: %d lines, %d columns" % (w, len(lines), max(map(len, lines or [""]))))
        le(len(lines), 60, w + ": lines")
        le(max(map(len, lines or [""])), cols, w + ": columns")
        expect(not any(re.match(r"\s*\d+\s+\d+\s+errnos\s", ln) for ln in lines),
               w + ": no per-process row of an errnos")
        if r in ("amortize", "phases", "syscalls", "errors", "timeline"):
            expect("(per process: " in "\n".join(lines), w + ": a line says --by process shows the per-process rows")

# strace -f -c: calls and errors per syscall.
sc = {}
for line in open(strace_c):
    f = line.split()
    if len(f) in (5, 6) and re.fullmatch(r"[0-9.]+", f[0]) and f[-1] != "total":
        sc[f[-1]] = (int(f[3]), int(f[4]) if len(f) == 6 else 0)
expect(len(sc) > 10, "strace -f -c: syscalls parsed (%d)" % len(sc))

# strace -f: per pid, the calls of each syscall (a call cut by another's
# line counts once, at its start; exit_group aside, as above), its ENOENT
# failures; the errnos pids by their execve.
per_pid = collections.defaultdict(collections.Counter)
enoent = collections.Counter()
errnos_pids = set()
for line in open(strace_f):
    m = re.match(r"(\d+) ", line)
    if m and "= -1 ENOENT" in line:
        enoent[m.group(1)] += 1
    m = re.match(r"(\d+) +(\w+)\(", line)
    if not m or m.group(2) == "exit_group":
        continue
    per_pid[m.group(1)][m.group(2)] += 1
    if m.group(2) == "execve" and "/errnos\"" in line:
        errnos_pids.add(m.group(1))
eq(len(errnos_pids), 84, "strace -f: errnos execs")

# report syscalls --json: the tree's calls and errors as strace -f -c's.
with open(rdir + "/syscalls.json") as f:
    sj = json.load(f)
eq(sj["schema_version"], 2, "report syscalls --json: schema_version")
ours = {r["syscall"]: (r["calls"], r["errors"]) for r in sj["syscalls"]}
# Two known differences: the root is traced from its exec on (strace sees
# that execve), and strace -c leaves out exit_group, which never returns.
eq(ours.pop("exit_group", None), (85, 0), "report syscalls --json: exit_group, one per process")
if "execve" in sc:
    sc["execve"] = (sc["execve"][0] - 1, sc["execve"][1])
eq(ours, sc, "report syscalls --json: (calls, errors) per syscall vs strace -f -c (the root's execve aside)")
eq(len(sj["processes"]), 169, "report syscalls --json: per-process rows (every image made calls)")
eq(sum(r["calls"] for r in sj["processes"]), sj["totals"]["calls"], "per-process calls vs the totals")

# --by process --all: a row per image; per pid, the calls by syscall as strace -f's.
text = open(rdir + "/by_process.txt").read().splitlines()
rows = [re.match(r"\s*(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+\S+ \S+\s+(.*)$", ln) for ln in text]
rows = [m for m in rows if m]
eq(len(rows), 169, "report syscalls --by process --all: per-process rows")
by_pid = collections.defaultdict(collections.Counter)
for m in rows:
    for w in m.group(6).split():
        k = re.fullmatch(r"(\w+)\(\d+\)=(\d+)", w)
        if not k:
            report("--by process: %r: not NAME(NR)=CALLS" % w)
            break
        by_pid[m.group(2)][k.group(1)] += int(k.group(2))
    expect(sum(by_pid[m.group(2)].values()) >= int(m.group(4)), "--by process: row %s adds up" % m.group(1))
errnos_ours = [p for p in by_pid if any(m.group(2) == p and m.group(3) == "errnos" for m in rows)]
want = collections.Counter(tuple(sorted(per_pid[p].items())) for p in errnos_pids)
got = collections.Counter(tuple(sorted((k, v) for k, v in by_pid[p].items() if k != "exit_group"))
                          for p in errnos_ours)
eq(got, want, "--by process: the 84 errnos pids' calls by syscall vs strace -f's, as multisets")
eq(sorted(by_pid[p]["openat"] >= 42 and by_pid[p]["close"] >= 3 for p in errnos_ours), [True] * 84,
   "--by process: each errnos pid made its 42 openat and 3 close at least")

# report errors --json: errnos objects; each syscall's add up to strace's errors.
with open(rdir + "/errors.json") as f:
    ej = json.load(f)
eq(ej["schema_version"], 2, "report errors --json: schema_version")
for r in ej["syscalls"]:
    w = "report errors --json: %s" % r["syscall"]
    expect(isinstance(r["errnos"], dict), w + ": errnos is an object")
    eq(sum(r["errnos"].values()) + r["errno_other"], sc.get(r["syscall"], (0, 0))[1],
       w + ": errnos + errno_other vs strace -f -c's errors")
    eq(r["errors"], sc.get(r["syscall"], (0, 0))[1], w + ": errors vs strace -f -c's")
sysr = {r["syscall"]: r for r in ej["syscalls"]}
eq(sysr.get("openat", {}).get("errnos", {}).get("EACCES"), 420, "report errors --json: openat EACCES (84 x 5)")
eq(sysr.get("close", {}).get("errnos", {}).get("EBADF"), 252, "report errors --json: close EBADF (84 x 3)")
procs = [r for r in ej["processes"] if r["comm"] == "errnos"]
eq(len(procs), 84, "report errors --json: errnos processes")
eq(collections.Counter((r["errnos"].get("EACCES"), r["errnos"].get("EBADF")) for r in procs),
   collections.Counter({(5, 3): 84}), "report errors --json: each errnos: EACCES 5, EBADF 3")
eq(collections.Counter(r["errnos"].get("ENOENT") for r in procs),
   collections.Counter(enoent[p] for p in errnos_pids), "report errors --json: each errnos's ENOENT vs strace -f's")
done()
