# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_snapshot_churn.sh, run by its pycheck after the dumps."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d, prog, off_idle, off_churn = ARGS[:4]
idlers, churners, made = (int(a) for a in ARGS[4:])
t = Trace(d)
eq(len(t.procs), 1, "process rows")
eq(t.root()["threads"], 1 + idlers + churners + made,
   "threads (the main one, the idle ones, the churners and theirs)")
eq(t.session["clones"], idlers + churners + made, "session clones")
eq(t.calls(nr=110, path=prog, offset=off_idle), idlers, "getppid calls at idle_site")
eq(t.calls(nr=110, path=prog, offset=off_churn), made,
   "getppid calls at churn_site")
eq(t.calls(nr=110), idlers + made, "getppid calls in all")
done()
