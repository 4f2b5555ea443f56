# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_diff.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, match, report, Trace

ARGS = begin()
import collections, json
da, db, j, prog, off_a, off_b, off_c, strace_dir = ARGS
doc = json.load(open(j))

def row(table, **w):
    rows = [r for r in doc[table] if match(r, w)]
    if len(rows) != 1:
        report("%s: expected one row with %r, got %d" % (table, w, len(rows)))
        return collections.defaultdict(lambda: None)
    return rows[0]

def want(r, what, **cols):
    for k, v in cols.items():
        eq(r[k], v, "%s: %s" % (what, k))

eq(doc["parameters"]["by"], ["syscall", "process", "site", "path", "amortize"], "parameters.by")

# By syscall: getppid +7, close +37 failing, nothing else changed.
want(row("syscalls", syscall="getppid"), "getppid", status="changed",
     calls_a=1005, calls_b=1012, calls_delta=7, errors_delta=0)
want(row("syscalls", syscall="close"), "close", status="changed",
     calls_delta=37, errors_delta=37)
eq([r["syscall"] for r in doc["syscalls"][:2]], ["close", "getppid"],
   "syscall rows in order of the change in calls")
eq(sum(1 for r in doc["syscalls"] if r["calls_delta"]), 2, "syscall rows whose calls changed")
eq(sum(1 for r in doc["syscalls"] if r["status"] in ("new", "gone")), 0, "syscall rows new or gone")

# Every syscall row against the two dumps' own sums.
sums = []
for d in (da, db):
    c = collections.Counter()
    for s in Trace(d).sites:
        c[(s["abi"], s["nr"])] += s["calls"]
    sums.append(c)
eq(len(doc["syscalls"]), len(set(sums[0]) | set(sums[1])), "syscall rows of the diff")
for r in doc["syscalls"]:
    k = (r["abi"], r["nr"])
    eq([r["calls_a"], r["calls_b"], r["calls_delta"]],
       [sums[0][k], sums[1][k], sums[1][k] - sums[0][k]], "calls of %s" % r["syscall"])
deltas = [(abs(r["calls_delta"]), abs(r["time_delta_ns"])) for r in doc["syscalls"]]
eq(deltas, sorted(deltas, reverse=True), "rows by |calls_delta|, then |time_delta_ns|")

# By process name: one image each side, 44 more calls.
want(row("processes", comm="sites"), "process sites", status="changed",
     exe=prog, processes_a=1, processes_b=1, processes_delta=0, calls_delta=44,
     errors_delta=37)

# By site: a +7, b the same, c new with 37 failing calls.
want(row("sites", object=prog, offset=off_a), "site a", status="changed",
     calls_a=1000, calls_b=1007, calls_delta=7, symbol="site_a", nr=110)
want(row("sites", object=prog, offset=off_b), "site b", status="same",
     calls_a=5, calls_b=5, calls_delta=0, symbol="site_b")
want(row("sites", object=prog, offset=off_c), "site c", status="new",
     calls_a=0, calls_b=37, errors_b=37, site_rows_a=0, site_rows_b=1,
     symbol="site_c", syscall="close")
eq(sum(1 for r in doc["sites"] if r["calls_delta"]), 2, "site rows whose calls changed")

# By threshold: site c's 37 calls are below N = 64, not 32; site a's 1000
# and 1007 below 1024.
eq(len(doc["amortize"]), 11, "amortize rows (16 is a power of 2)")
want(row("amortize", threshold=32), "N = 32", status="same", sites_below_delta=0)
want(row("amortize", threshold=64), "N = 64", status="changed",
     sites_below_delta=1, calls_below_delta=37)
want(row("amortize", threshold=1024), "N = 1024", sites_below_delta=1,
     calls_below_delta=44)

# strace -c of the same two runs: "% time seconds usecs/call calls [errors] syscall".
st = []
for f in ("sa.txt", "sb.txt"):
    c = {}
    for line in open(strace_dir + "/" + f):
        w = line.split()
        if len(w) in (5, 6) and w[3].isdigit():
            c[w[-1]] = (int(w[3]), int(w[4]) if len(w) == 6 else 0)
    st.append(c)
for name in ("getppid", "close"):
    r = row("syscalls", syscall=name)
    got = [st[0].get(name, (None, None)), st[1].get(name, (None, None))]
    if not expect(None not in got[0] + got[1], "strace -c lists %s in both runs: %r" % (name, got)):
        continue
    eq([r["calls_delta"], r["errors_delta"]],
       [got[1][0] - got[0][0], got[1][1] - got[0][1]],
       "%s [calls_delta, errors_delta] against strace -c" % name)
    eq([r["calls_a"], r["calls_b"]], [got[0][0], got[1][0]],
       "%s calls in A and B against strace -c" % name)
done()
