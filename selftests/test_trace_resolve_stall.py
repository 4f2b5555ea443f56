# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_resolve_stall.sh, run by its pycheck after the dumps."""
from trace_check import begin, done, eq, log, Trace

ARGS = begin()
d, prog, tgt, K, W, off_stall, off_worker = ARGS
tgt, K, W = int(tgt), int(K), int(W)
t = Trace(d)
r = t.proc("the target", pid=tgt)
if r:
    eq(r["end"], "exited", "the target: end")
    eq(r["exit_code"], 5, "the target: exit_code")
    eq(t.calls(proc_id=r["id"], nr=110, path=prog, offset=off_worker), W,
       "the target: getppid at worker_site, resolved to its file and offset")
    eq(t.calls(proc_id=r["id"], nr=110, path=prog, offset=off_stall), K,
       "the target: getppid at stall_site")
    # And the two of its "held" lines, from libc.
    eq(t.calls(proc_id=r["id"], nr=110), K + W + 2, "the target: getppid")
    # Only exit_group's site stays unknown when every first hit is left
    # late: no syscall exit follows it (trace_check's invariants).
    unknown = [s for s in t.sites_where(proc_id=r["id"], map="unknown") if s["nr"] != 231]
    eq(len(unknown), 0, "the target: sites left unresolved (exit_group's aside)")
for s in t.sites_where(map="unknown"):
    log("unresolved: proc %s nr %s addr %s calls %s" % (s["proc_id"], s["nr"], s["addr"], s["calls"]))
done()
