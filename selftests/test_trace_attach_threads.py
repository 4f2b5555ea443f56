# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_attach_threads.sh, run by its pycheck after the trace."""
from trace_check import begin, done, eq, Trace

prog, off, th, m, d = begin()
th, m = int(th), int(m)
t = Trace(d)
w = "attach to %d threads: " % (th + 1)
eq(len(t.procs), 1, w + "rows")
r = t.procs[0]
eq((r["attached"], r["threads"], r["end"], r["exit_code"]), (True, th + 1, "exited", 0),
   w + "(attached, threads, end, exit_code)")
eq(t.calls(nr=110, path=prog, offset=off), th * m, w + "getppid calls at wall_site")
eq(t.calls(nr=60), th, w + "exit calls")
eq(t.calls(nr=231), 1, w + "exit_group calls")
eq(t.calls(nr=435) + t.calls(nr=56), 0, w + "clone3 + clone calls")
for k in ("dropped_procs", "dropped_syscalls", "dropped_nomem", "clones"):
    eq(t.session[k], 0, w + k)
done()
