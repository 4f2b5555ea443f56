# SPDX-License-Identifier: GPL-2.0
"""Checks of test_dkms.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d, prog, off_a, off_b, off_c = ARGS
t = Trace(d)
eq(len(t.procs), 1, "process rows")
p = t.root()
eq(p["exe"], prog, "exe")
eq(p["exit_code"], 0, "exit_code")
eq(len(t.sites_where(path=prog)), 3, "site rows in the program")
eq(t.calls(path=prog, offset=off_a), 1000, "getppid calls at site a")
eq(t.calls(path=prog, offset=off_b), 250, "getppid calls at site b")
eq(t.calls(path=prog, offset=off_c), 37, "close calls at site c")
eq(t.errors(path=prog, offset=off_c), 37, "close errors at site c")
eq(t.calls(nr=110), 1250, "getppid calls")
done()
