# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_thread_ordinal.sh: first_ordinal of threadord's
sites against strace -f's order of its calls."""
import re
from trace_check import begin, done, eq, log, Trace

ARGS = begin()
d, prog, strace_out = ARGS
# strace -f: "PID name(..." starts a call; "<... name resumed>" and
# "+++ exited" lines are no new call.
calls = {}
with open(strace_out) as f:
    for line in f:
        m = re.match(r"(\d+) +([a-z0-9_]+)\(", line)
        if m:
            calls.setdefault(int(m.group(1)), []).append(m.group(2))
main = min(calls)
thread = max(calls)
eq(len(calls), 2, "strace -f: threads of threadord")
mc = calls[main]
tc = calls[thread]
x = mc.index("clone3") - mc.index("getppid")
y = tc.index("getgid")
log("strace -f: main makes %d calls from getppid to clone3, the thread %d before getgid (%s)"
    % (x, y, " ".join(tc[:y])))
t = Trace(d)
a = t.site("site a", path=prog, syscall="getppid")
b = t.site("site b", path=prog, syscall="getgid")
c = t.site("site c", path=prog, syscall="getuid")
if a and b and c:
    eq(c["calls"], 1010, "calls of site c")
    eq(b["calls"], 1, "calls of site b")
    eq(c["first_ordinal"], a["first_ordinal"] + 1, "first_ordinal of site c")
    eq(b["first_ordinal"], a["first_ordinal"] + x + y,
       "first_ordinal of site b: a's, main's calls up to its clone3 and the thread's own")
done()
