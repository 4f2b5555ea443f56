# SPDX-License-Identifier: GPL-2.0
"""Checks of test_nl_fuzz.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d, prog, off_a, off_b, off_c = ARGS
t = Trace(d)
w = "sites 300 40 11 after the fuzzing: "
eq(len(t.procs), 1, w + "process rows")
eq(t.root()["exit_code"], 0, w + "exit code")
eq(len(t.sites_where(path=prog)), 3, w + "site rows in the program")
eq(t.calls(path=prog, offset=off_a), 300, w + "calls at site a")
eq(t.calls(path=prog, offset=off_b), 40, w + "calls at site b")
eq(t.calls(path=prog, offset=off_c), 11, w + "calls at site c")
eq(t.errors(path=prog, offset=off_c), 11, w + "errors at site c")
eq(t.errors(path=prog, offset=off_a) + t.errors(path=prog, offset=off_b), 0, w + "errors at sites a and b")
done()
