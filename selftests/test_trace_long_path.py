# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_long_path.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d, prog = ARGS
t = Trace(d)
eq(len(t.procs), 1, "process rows")
eq(t.procs[0]["exe"], prog, "the process row's exe: the whole path")
got = sorted((s["calls"], s["errors"]) for s in t.sites if s["path"] == prog)
eq(got, [(3, 3), (10, 0), (20, 0)], "sites in the program: (calls, errors)")
done()
