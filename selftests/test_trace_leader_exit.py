# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_leader_exit.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d, prog, off = ARGS
t = Trace(d)
eq(len(t.procs), 1, "process rows")
p = t.root()
eq((p["end"], p["exit_code"], p["exit_signal"]), ("exited", 9, None),
   "end, exit_code (what wait reports), exit_signal")
eq(p["threads"], 2, "threads")
eq([(x["path"], x["offset"], x["calls"], x["errors"]) for x in t.sites_where(nr=60)],
   [(prog, off, 2, 0)], "exit site rows: path, offset, calls, errors")
eq(t.calls(nr=231), 0, "exit_group calls")
eq((t.session["exits"], t.session["signal_exits"]), (1, 0), "session exits, signal_exits")
done()
