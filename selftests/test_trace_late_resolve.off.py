# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_late_resolve.sh, its second pycheck: the chain traced
again with force_late_resolve off."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d, eprog, eoff = ARGS
t = Trace(d)
w = "execchain, parameter off: "
eq(t.session["dropped_resolve"], 0, w + "dropped_resolve")
eq(t.sites_where(map="unknown"), [], w + "site rows of map unknown")
eq(sorted((x["map"], x["path"], x["offset"]) for x in t.sites_where(nr=59)),
   [("file", eprog, eoff)] * 3, w + "execve sites")
done()
