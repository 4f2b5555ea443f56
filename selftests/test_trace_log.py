# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_log.sh, run by its pycheck after the traces."""
import csv
import json
import os
from collections import Counter, defaultdict

from trace_check import begin, done, eq, expect, ge, le, Trace

ARGS = begin()
(tmp, prog, off_a, off_b, off_c,
 d_sites, d_jsonl, d_shell, d_storm, d_chrome, d_late, d_build, d_two) = ARGS

INT = ("session_id", "proc_id", "pid", "tid", "seq", "ts_ns", "dur_ns", "nr",
       "ret", "errno", "child_proc_id", "child_pid", "exit_code", "exit_signal")


def read_csv(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k in INT:
                r[k] = int(r[k]) if r[k] != "" else None
            r["early"] = None if r["early"] == "" else r["early"] == "1"
            for k in ("path", "offset", "symbol", "phase", "map", "abi", "syscall", "comm"):
                if r[k] == "":
                    r[k] = None
            rows.append(r)
    return rows


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def syscalls(log):
    return [e for e in log if e["event"] == "syscall"]


def key(x):
    return (x["proc_id"], x["addr"], x["nr"])


def same_counts(log, t, what):
    """The log's count per (image, site, nr) is the site rows' calls."""
    got = Counter(key(e) for e in syscalls(log))
    want = {key(s): s["calls"] for s in t.sites}
    eq(sum(got.values()), t.session["syscalls"], what + ": syscall events = session syscalls")
    eq({k: v for k, v in got.items()}, want, what + ": events per (proc_id, addr, nr) = site rows' calls")


def order_checks(log, what, dense=True):
    """Per image, seq is 0..n-1 (dense) or increasing; per thread, time
    never goes back. Returns the seqs missing, over all images."""
    by_img = defaultdict(list)
    by_tid = defaultdict(list)
    for e in syscalls(log):
        by_img[e["proc_id"]].append(e["seq"])
        by_tid[e["tid"]].append(e)
    missing = 0
    for img, seqs in by_img.items():
        seqs.sort()
        if dense:
            eq(seqs, list(range(len(seqs))), "%s: image %d: seq dense from 0" % (what, img))
        else:
            eq(len(set(seqs)), len(seqs), "%s: image %d: seq unique" % (what, img))
            missing += seqs[-1] + 1 - len(seqs)
    for tid, evs in by_tid.items():
        evs.sort(key=lambda e: (e["proc_id"], e["seq"]))
        back = [i for i in range(1, len(evs)) if evs[i]["ts_ns"] < evs[i - 1]["ts_ns"] + evs[i - 1]["dur_ns"]
                and evs[i]["proc_id"] == evs[i - 1]["proc_id"]]
        eq(back, [], "%s: thread %d: each call starts after the previous one ended" % (what, tid))
    return missing


def phase_checks(log, what):
    """Per image: loader calls, if any, all come before the program's."""
    by_img = defaultdict(list)
    for e in syscalls(log):
        by_img[e["proc_id"]].append(e)
    for img, evs in by_img.items():
        evs.sort(key=lambda e: e["seq"])
        phases = [e["phase"] for e in evs]
        expect(set(phases) <= {"loader", "program"}, "%s: image %d: phases %s" % (what, img, set(phases)))
        n = phases.count("loader")
        eq(phases, ["loader"] * n + ["program"] * (len(phases) - n),
           "%s: image %d: loader calls, then program calls" % (what, img))
        eq([e["early"] for e in evs], [p == "loader" for p in phases],
           "%s: image %d: early is the loader phase" % (what, img))


# --- sites 1000 250 37, CSV ---------------------------------------------
t = Trace(d_sites)
log = read_csv(os.path.join(tmp, "sites.csv"))
eq(t.session["dropped_events"], 0, "sites: dropped_events with a 4M buffer")
eq(t.session["log_buffer"], 4 << 20, "sites: log_buffer (bytes per CPU, as asked)")
same_counts(log, t, "sites")
order_checks(log, "sites")
phase_checks(log, "sites")
root = t.root()
mine = [e for e in syscalls(log) if e["path"] == prog]
mine.sort(key=lambda e: e["seq"])
want = [(off_a, 110, root["ppid"], None)] * 1000 + [(off_b, 110, root["ppid"], None)] * 250 + \
       [(off_c, 3, -9, 9)] * 37
eq([(e["offset"], e["nr"], e["ret"], e["errno"]) for e in mine], want,
   "sites: the program's own calls: (offset, nr, ret, errno) in order")
if mine:
    eq(mine[-1]["seq"] - mine[0]["seq"], 1000 + 250 + 37 - 1, "sites: nothing between the program's calls")
    site_a = t.site("site a", path=prog, offset=off_a)
    if site_a:
        eq(mine[0]["seq"], site_a["first_ordinal"], "sites: seq of site a's first call = its first_ordinal")
        eq(sum(e["dur_ns"] for e in mine[:1000]), site_a["total_ns"], "sites: site a's dur_ns sum = its total_ns")
    eq({e["phase"] for e in mine}, {"program"}, "sites: the program's calls are in the program phase")
    eq({e["comm"] for e in mine}, {"sites"}, "sites: comm")
    eq({e["pid"] for e in mine}, {root["pid"]}, "sites: pid")
    eq({e["tid"] for e in mine}, {root["pid"]}, "sites: tid")
kinds = [e["event"] for e in log]
eq(kinds[0], "exec", "sites: the first event is the root's exec")
eq(kinds[-1], "exit", "sites: the last event is its exit")
eq(log[-1]["exit_code"], 0, "sites: exit_code")
eq(Counter(kinds)["exec"], 1, "sites: one exec")

# --- the same program, JSONL --------------------------------------------
t = Trace(d_jsonl)
log = read_jsonl(os.path.join(tmp, "sites.jsonl"))
same_counts(log, t, "jsonl")
order_checks(log, "jsonl")
eq(Counter((e["offset"], e["syscall"]) for e in syscalls(log) if e["path"] == prog),
   Counter({(off_a, "getppid"): 7, (off_b, "getppid"): 3, (off_c, "close"): 2}),
   "jsonl: the program's calls per site")
eq(sorted({type(e["early"]) for e in syscalls(log)}, key=str), [bool], "jsonl: early is a boolean")

# --- a shell and its children: process events ---------------------------
t = Trace(d_shell)
log = read_csv(os.path.join(tmp, "shell.csv"))
same_counts(log, t, "shell")
order_checks(log, "shell")
phase_checks(log, "shell")
forks = [e for e in log if e["event"] == "fork"]
eq(len(forks), t.session["forks"], "shell: fork events = the session's forks")
for p in t.procs:
    if p["parent_id"] is not None and p["prev_id"] is None:
        f = [e for e in forks if e["child_proc_id"] == p["id"]]
        eq([(e["proc_id"], e["child_pid"]) for e in f], [(p["parent_id"], p["pid"])],
           "shell: the fork event of image %d" % p["id"])
    if p["prev_id"] is not None:
        x = [e for e in log if e["event"] == "exec" and e["proc_id"] == p["id"]]
        eq(len(x), 1, "shell: the exec event of image %d" % p["id"])
    ends = [e for e in log if e["event"] == "exit" and e["proc_id"] == p["id"]]
    if p["end"] in ("exited", "signaled"):
        eq([(e["exit_code"], e["exit_signal"]) for e in ends], [(p["exit_code"], p["exit_signal"])],
           "shell: the exit event of image %d" % p["id"])
    else:
        eq(ends, [], "shell: no exit event for image %d (ended by %s)" % (p["id"], p["end"]))
eq(sorted(e["exit_code"] for e in log if e["event"] == "exit" and e["exit_code"] is not None),
   [0, 0, 0, 3], "shell: exit codes")
eq([e["exit_signal"] for e in log if e["event"] == "exit" and e["exit_signal"] is not None],
   [9], "shell: exit signals")
ev_ts = [e["ts_ns"] for e in log]
eq(ev_ts, sorted(ev_ts), "shell: events ordered by time")

# --- a 4K buffer under a storm: drops, counted ---------------------------
t = Trace(d_storm)
log = read_csv(os.path.join(tmp, "storm.csv"))
dropped = t.session["dropped_events"]
eq(t.session["log_buffer"], 4096, "storm: log_buffer")
expect(dropped > 0, "storm: dropped_events > 0 (got %d)" % dropped)
eq(len(syscalls(log)) + dropped, t.session["syscalls"], "storm: logged + dropped_events = session syscalls")
rows = {key(s): s["calls"] for s in t.sites}
over = [k for k, v in Counter(key(e) for e in syscalls(log)).items() if v > rows.get(k, 0)]
eq(over, [], "storm: no site has more events than calls")
eq(t.calls(path=prog, offset=off_a), 200000, "storm: the rows count every call all the same")
eq(t.session["dropped_syscalls"], 0, "storm: no syscall dropped from the rows")
# Gaps in seq are dropped events (those after an image's last logged call
# leave no gap).
le(order_checks(log, "storm", dense=False), dropped, "storm: seqs missing <= dropped_events")
for p in t.procs:
    seqs = [e["seq"] for e in syscalls(log) if e["proc_id"] == p["id"]]
    le(max(seqs, default=-1), p["syscalls"] - 1, "storm: image %d: seq below its syscalls" % p["id"])

# --- the Chrome trace -----------------------------------------------------
t = Trace(d_chrome)
with open(os.path.join(tmp, "sites.chrome.json")) as f:
    doc = json.load(f)
evs = doc["traceEvents"] if isinstance(doc, dict) else doc
xs = [e for e in evs if e.get("ph") == "X"]
eq(len(xs), t.session["syscalls"], "chrome: one X event per syscall")
bad = [e for e in xs if not all(k in e for k in ("ts", "dur", "pid", "tid", "name"))]
eq(bad[:3], [], "chrome: every X has ts, dur, pid, tid, name")
per = defaultdict(list)
for e in xs:
    per[(e["pid"], e["tid"])].append(e)
for k, l in per.items():
    l.sort(key=lambda e: e["ts"])
    overlaps = sum(1 for i in range(1, len(l)) if l[i]["ts"] < l[i - 1]["ts"] + l[i - 1]["dur"] - 1e-3)
    eq(overlaps, 0, "chrome: track %s: syscalls do not overlap" % (k,))
names = Counter(e["name"] for e in xs)
# sites 20 10 5: exactly 30 getppid; the shells' own, if any, are in the rows too.
eq(names["getppid"], t.calls(nr=110), "chrome: getppid slices = the rows' getppid calls")
eq(t.calls(nr=110, path=prog), 30, "chrome: the program's getppid calls (20 + 10)")
# A track's pid is its image's proc_id.
ids = {p["id"] for p in t.procs if p["exe"] == prog}
eq(len(ids), 1, "chrome: the program's image")
eq(sum(1 for e in xs if e["name"] == "getppid" and e["pid"] in ids), 30,
   "chrome: getppid slices of the program's image")
ge(sum(1 for e in evs if e.get("ph") == "M" and e.get("name") == "process_name"), len(t.procs),
   "chrome: a process_name per image")

# --- a real build: make -j2 --------------------------------------------
t = Trace(d_build)
log = read_csv(os.path.join(tmp, "build.csv"))
eq(t.session["dropped_events"], 0, "build: dropped_events")
same_counts(log, t, "build")
order_checks(log, "build")
phase_checks(log, "build")
ge(len(t.procs), 6, "build: process rows (make, cc, cc1, as, collect2, ld...)")
eq(Counter(e["event"] for e in log if e["event"] != "syscall"),
   Counter({"fork": t.session["forks"], "exec": t.session["execs"], "exit": t.session["exits"]}),
   "build: fork, exec and exit events = the session's forks, execs, exits")
eq({e["proc_id"] for e in syscalls(log)}, {p["id"] for p in t.procs if p["syscalls"]},
   "build: the images with calls in the log = those with calls in the rows")
for p in t.procs:
    evs = sorted((e for e in syscalls(log) if e["proc_id"] == p["id"]), key=lambda e: e["seq"])
    eq(len(evs), p["syscalls"], "build: image %d (%s): events = its syscalls" % (p["id"], p["comm"]))
    eq(sum(1 for e in evs if e["errno"] is not None), p["errors"],
       "build: image %d (%s): failed events = its errors" % (p["id"], p["comm"]))
    expect(all(p["start_ns"] <= e["ts_ns"] for e in evs), "build: image %d: calls after its start" % p["id"])
loader = [e for e in syscalls(log) if e["phase"] == "loader"]
ge(len(loader), 1, "build: dynamically linked images have loader calls")

# --- `systracectl log` after the session ended --------------------------
t = Trace(d_late)
log = read_csv(os.path.join(tmp, "late.csv"))
same_counts(log, t, "log")
order_checks(log, "log")
eq(Counter((e["offset"], e["nr"]) for e in syscalls(log) if e["path"] == prog),
   Counter({(off_a, 110): 500, (off_c, 3): 3}), "log: the program's calls per site")
eq(syscalls(read_csv(os.path.join(tmp, "late2.csv"))), [], "log: a second log of the drained session has no syscall")

# --- two readers of one session, one after the other ----------------------
t = Trace(d_two)
part1 = read_csv(os.path.join(tmp, "part1.csv"))
part2 = read_csv(os.path.join(tmp, "part2.csv"))
eq(t.session["dropped_events"], 0, "two readers: dropped_events")
ids1 = Counter((e["proc_id"], e["seq"]) for e in syscalls(part1))
ids2 = Counter((e["proc_id"], e["seq"]) for e in syscalls(part2))
eq(sorted(k for k, v in (ids1 + ids2).items() if v > 1), [], "two readers: no call read twice")
same_counts(syscalls(part1) + syscalls(part2), t, "two readers: both parts")
order_checks(syscalls(part1) + syscalls(part2), "two readers: both parts")
by_img = defaultdict(lambda: [0, 0])
for i, part in enumerate((part1, part2)):
    for e in syscalls(part):
        if e["path"] == prog and e["offset"] == off_a:
            by_img[e["proc_id"]][i] += 1
eq(sorted(by_img.values()), [[0, 200], [300, 0]],
   "two readers: sites 300's calls all in the first part, sites 200's all in the second")
done()
