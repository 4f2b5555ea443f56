# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_pingpong.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, ge, log, Trace

ARGS = begin()
d, r = ARGS[0], int(ARGS[1])
t = Trace(d)
eq(len(t.procs), 2, "process rows")
root = t.root()
child = t.proc("the child", parent_id=root["id"])
for p, w in ((root, "parent"), (child, "child")):
    if not p:
        continue
    v, i = p["voluntary_ctxt_switches"], p["involuntary_ctxt_switches"]
    log("%s: %d voluntary + %d involuntary context switches" % (w, v, i))
    # On one CPU each side is switched out at least once per round trip:
    # voluntarily when it blocks in read, involuntarily when the partner
    # it woke preempts it.
    ge(v + i, r, w + ": context switches")
    eq((p["end"], p["exit_code"]), ("exited", 0), w + ": end")
if child:
    eq(t.calls(proc_id=child["id"], nr=0), r + 1, "child read calls")
    eq(t.calls(proc_id=child["id"], nr=1), r, "child write calls")
eq(t.calls(proc_id=root["id"], nr=1), r + 1, "parent write calls")
ge(t.calls(proc_id=root["id"], nr=0), r, "parent read calls (the loader's and its own)")
eq(t.calls(proc_id=root["id"], nr=203), 1, "parent sched_setaffinity calls")
eq(t.errors(nr=0) + t.errors(nr=1), 0, "read and write errors")
s = t.session
eq((s["forks"], s["clones"], s["execs"], s["exits"], s["signal_exits"]), (1, 0, 1, 2, 0),
   "session forks, clones, execs, exits, signal_exits")
done()
