# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_dump_live.sh, run by its pycheck after the dumps."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
base, nt, ns, final, live = int(ARGS[0], 16), int(ARGS[1]), int(ARGS[2]), ARGS[3], ARGS[4:]
STUB = 8


def stub_rows(tr, w):
    """The rows of the stubs: one per stub, in the anonymous mapping."""
    rows = {}
    for s in tr.sites_where(nr=110):
        a = int(s["addr"], 16)
        if base <= a < base + ns * STUB:
            rows[a] = s
    eq(len(rows), ns, w + "getppid site rows in the stubs")
    eq(sorted(rows), [base + i * STUB + 5 for i in range(ns)],
       w + "site addresses (each stub's syscall instruction)")
    eq(sorted(set(s["calls"] for s in rows.values())), [nt], w + "calls of each stub site")
    eq(sum(s["errors"] for s in rows.values()), 0, w + "errors of the stub sites")
    eq(sorted(set(s["map"] for s in rows.values())), ["anon"], w + "map of the stub sites")


for d in live:
    w = "live dump %s: " % d.rsplit(".", 1)[-1]
    tr = Trace(d)
    eq(tr.session["state"], "running", w + "session state")
    eq(tr.session["live_tasks"], nt + 1, w + "live tasks (the threads and the main one)")
    eq(len(tr.procs), 1, w + "process rows")
    # The main thread still polls: a live session's totals may be ahead of
    # its rows, so only the stubs' rows, which no longer change, are exact.
    stub_rows(tr, w)

tr = Trace(final)
w = "final dump: "
eq(tr.session["state"], "finished", w + "session state")
eq(len(tr.procs), 1, w + "process rows")
eq(tr.root()["threads"], nt + 1, w + "threads")
stub_rows(tr, w)
done()
