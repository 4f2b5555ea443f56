# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_fork_storm.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, log, Trace

ARGS = begin()
d1, n, d2, n2, base_proc, held_proc = ARGS
n, n2 = int(n), int(n2)


def storm(d, n, w):
    """Checks common to both storms; returns the trace."""
    t = Trace(d)
    s = t.session
    eq((s["state"], t.totals["consistent"]), ("finished", True), w + "state, totals consistent")
    eq(s["forks"], n, w + "session forks (every fork, followed or not)")
    eq(s["execs"], 1, w + "session execs (the root's)")
    eq((s["processes"], t.totals["processes"]), (len(t.procs), len(t.procs)), w + "processes vs rows")
    for k, sk in (("syscalls", "calls"), ("errors", "errors")):
        eq(s[k], sum(p[k] for p in t.procs), w + "session %s vs the rows" % k)
        eq(s[k], sum(x[sk] for x in t.sites), w + "session %s vs the site rows" % k)
    root = t.root()
    if root:
        eq((root["end"], root["exit_code"]), ("exited", 0), w + "root end, exit_code")
        # Every fork is counted in the parent, followed or not.
        eq(t.calls(proc_id=root["id"], nr=57), n, w + "root fork calls")
        eq(t.calls(proc_id=root["id"], nr=61), n, w + "root wait4 calls")
        eq(len(t.children(root)), len(t.procs) - 1, w + "every other row is a child of the root")
    eq(s["dropped_resolve"], 0, w + "dropped_resolve")
    return t


w = "storm of %d, max_procs 1000: " % n
t = storm(d1, n, w)
s = t.session
eq(len(t.procs), 1000, w + "process rows")
eq(s["dropped_procs"], n + 1 - 1000, w + "dropped_procs (each lost process once)")
eq(len(t.procs) + s["dropped_procs"], n + 1, w + "procs + dropped_procs")
eq([s["dropped_" + k] for k in ("sites", "syscalls", "nomem")], [0, 0, 0],
   w + "dropped sites, syscalls, nomem")
eq(sorted({(p["end"], p["exit_code"]) for p in t.procs}), [("exited", 0)], w + "how the rows ended")
eq(s["exits"], 1000, w + "session exits")
kids = [p for p in t.procs if p["parent_id"] is not None]
eq(sorted({(p["threads"], p["syscalls"], p["sites"]) for p in kids}), [(1, 1, 1)],
   w + "each child's threads, syscalls, sites")
eq(t.calls(nr=231), 1000, w + "exit_group calls (one per row)")
eq(int(held_proc) - int(base_proc), 1000 + len(Trace(d2).procs),
   "st_proc slab objects while both sessions were kept vs their rows")

w = "storm of %d, max_mem 64 KiB: " % n2
t = storm(d2, n2, w)
s = t.session
exited = [p for p in t.procs if p["end"] == "exited"]
detached = [p for p in t.procs if p["end"] == "detached"]
eq(len(exited) + len(detached), len(t.procs), w + "rows that exited or were detached (no other end)")
expect(s["dropped_nomem"] > 0, w + "max_mem bound: dropped_nomem is 0")
expect(len(t.procs) < n2 + 1, w + "max_mem bound: every process has a row")
# Each process was followed to its exit or lost (a row may exist for a
# lost one whose thread could not be attached: detached); never both,
# never counted twice.
eq(len(exited) + s["dropped_procs"], n2 + 1, w + "exited rows + dropped_procs")
eq(s["exits"], len(exited), w + "session exits")
log("%s%d rows (%d exited, %d detached), dropped procs %d, nomem %d, syscalls %d, sites %d"
    % (w, len(t.procs), len(exited), len(detached), s["dropped_procs"], s["dropped_nomem"],
       s["dropped_syscalls"], s["dropped_sites"]))
done()
