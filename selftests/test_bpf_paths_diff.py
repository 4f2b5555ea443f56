# SPDX-License-Identifier: GPL-2.0
"""Checks of test_bpf_paths_diff.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, log, report

ARGS = begin()
import collections, csv, json, os
T = ARGS[0]

# pathprobe N's failing calls: (path, syscall, result): count for N = 1.
PROBE = {
    ("/nonexistent/a", "openat", "ENOENT"): 3,
    ("/nonexistent/b", "openat", "ENOENT"): 5,
    ("/nonexistent/c", "access", "ENOENT"): 4,
    ("/etc/passwd/x", "openat", "ENOTDIR"): 2,
    ("<longer than 255 bytes>", "newfstatat", "ENOENT"): 1,
    ("<unreadable>", "openat", "EFAULT"): 1,
}
KINDS = {"<longer than 255 bytes>": "long", "<unreadable>": "unreadable"}


def strace_rows(n):
    """strace_rows (paths_lib.sh) of pathprobe n: its failed calls."""
    rows = {}
    for line in open(os.path.join(T, "strace%d.rows" % n)):
        count, path, call, res = line.rstrip("\n").split("\t")
        if res != "ok":
            rows[(path, call, res)] = int(count)
    return rows


def dump_rows(side):
    """The dump's site rows' paths summed per (path, syscall, result)."""
    doc = json.load(open(os.path.join(T, side + ".json")))
    eq(doc.get("paths_counted"), {"mode": "errors", "dropped": 0}, side + ": paths_counted")
    rows = collections.Counter()
    for s in doc["sites"]:
        if "paths" not in s:
            report("%s: site row %s %s has no paths" % (side, s["addr"], s["syscall"]))
            continue
        for p in s["paths"]:
            eq(p["kind"], KINDS.get(p["path"], "ok"), "%s: kind of %s" % (side, p["path"]))
            for res, n in p["counts"].items():
                rows[(p["path"], s["syscall"], res)] += n
    expect(any(s["paths"] == [] for s in doc["sites"] if "paths" in s),
           side + ": a site of a call that takes no path has paths []")
    return dict(rows)


def report_rows(side):
    with open(os.path.join(T, side + "_paths.csv")) as f:
        return {(r["path"], r["syscall"], r["errno_name"]): int(r["count"])
                for r in csv.DictReader(f)}


for side, n in (("A", 1), ("B", 3)):
    got = dump_rows(side)
    for key, count in PROBE.items():
        eq(got.get(key), count * n, "%s: dump --sites --json: %s %s %s" % ((side,) + key))
    eq(got, report_rows(side), side + ": the dump's paths equal report paths' table")
    eq(got, strace_rows(n), side + ": the dump's paths equal strace's failed %file calls")
    log("%s: %d rows, %d calls" % (side, len(got), sum(got.values())))

doc = json.load(open(os.path.join(T, "live.json")))
eq(doc["parameters"]["by"], ["path"], "parameters.by")
rows = {(r["path"], r["syscall"], r["errno_name"]): r for r in doc["paths"]}
for key, count in PROBE.items():
    r = rows.get(key)
    if r is None:
        report("diff: no row %s %s %s" % key)
        continue
    eq((r["status"], r["calls_a"], r["calls_b"], r["calls_delta"]),
       ("changed", count, 3 * count, 2 * count), "diff: %s %s %s" % key)
sa, sb = strace_rows(1), strace_rows(3)
want = {k: (sa.get(k, 0), sb.get(k, 0), sb.get(k, 0) - sa.get(k, 0)) for k in set(sa) | set(sb)}
got = {k: (r["calls_a"], r["calls_b"], r["calls_delta"]) for k, r in rows.items()}
eq(got, want, "diff: every row's calls in A and B and delta: strace's of the two runs")
same = [k for k in rows if k not in PROBE]
expect(all(rows[k]["status"] == "same" and rows[k]["calls_delta"] == 0 for k in same),
       "diff: the loader's rows are the same in both runs: %r" % same)
deltas = [abs(r["calls_delta"]) for r in doc["paths"]]
eq(deltas, sorted(deltas, reverse=True), "diff: rows by |calls_delta|, largest first")
done()
