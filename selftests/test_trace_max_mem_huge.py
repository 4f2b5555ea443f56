# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_max_mem_huge.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d, prog = ARGS
t = Trace(d)
eq(len(t.procs), 1, "process rows")
eq(sorted((s["calls"], s["errors"]) for s in t.sites if s["path"] == prog),
   [(3, 3), (10, 0), (20, 0)], "sites in the program: (calls, errors)")
eq((t.session["dropped_nomem"], t.session["dropped_sites"], t.session["dropped_procs"]),
   (0, 0, 0), "dropped_nomem, dropped_sites, dropped_procs")
done()
