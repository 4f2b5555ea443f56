# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_exit_race.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
t = Trace(ARGS[0])
root = t.root()
kids = t.children(root)
eq(len(kids), 20, "children")
eq(sorted({(p["end"], p["exit_code"], p["threads"]) for p in kids}), [("exited", 5, 5)],
   "children's end, exit_code, threads")
eq(t.session["exits"], 21, "session exits (one per process)")
eq(t.calls(nr=60), 80, "exit calls (one per thread)")
eq(t.calls(nr=231), 21, "exit_group calls (one per process)")
done()
