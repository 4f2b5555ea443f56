# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_vdso.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d, n, cpu, hres = ARGS[0], int(ARGS[1]), int(ARGS[2]), int(ARGS[3])
t = Trace(d)
eq(t.calls(nr=201), 0, "time calls")
# 2 x N coarse clock_gettime calls are not among these.
eq(t.calls(nr=228), hres + cpu, "clock_gettime calls")
eq(t.calls(nr=96), hres, "gettimeofday calls")
eq([s["map"] for s in t.sites if s["nr"] in (96, 228) and s["map"] != "vdso"], [],
   "clock_gettime and gettimeofday rows outside the vDSO")
for s in t.sites_where(map="vdso"):
    eq(s["offset"], s["addr"], "offset of vDSO site %s (its address)" % s["addr"])
    eq(s["path"], None, "path of vDSO site %s" % s["addr"])
done()
