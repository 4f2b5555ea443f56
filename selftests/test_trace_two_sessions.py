# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_two_sessions.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, Trace

ARGS = begin()
prog, offs = ARGS[0], ARGS[1:4]
roots = []
for d, nums in ((ARGS[4], ARGS[5]), (ARGS[6], ARGS[7])):
    t = Trace(d)
    n, m, k = map(int, nums.split())
    w = "session %d (%s): " % (t.session["id"], nums)
    eq(len(t.procs), 1, w + "process rows")
    r = t.root()
    roots.append(r["pid"])
    eq(r["pid"], t.session["root_pid"], w + "the row's pid is the session's root")
    eq(t.calls(path=prog, offset=offs[0]), n, w + "calls at site a")
    eq(t.calls(path=prog, offset=offs[1]), m, w + "calls at site b")
    eq(t.calls(path=prog, offset=offs[2]), k, w + "calls at site c")
    eq(t.errors(path=prog, offset=offs[2]), k, w + "errors at site c")
    eq(t.calls(nr=110), n + m, w + "getppid calls")
expect(roots[0] != roots[1], "the sessions have different roots")
done()
