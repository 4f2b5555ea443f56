# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_dump_rcvbuf.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, ge, Trace

ARGS = begin()
d, base, calls = ARGS[0], int(ARGS[1], 16), int(ARGS[2])
t = Trace(d)
anon = t.sites_where(map="anon")
eq(len(anon), 600, "anonymous site rows")
# Stub i is "mov $110,%eax; syscall; ret" at base + 8 i: its syscall
# instruction is at base + 8 i + 5, called (i % 3) + 1 times.
want = {base + 8 * i + 5: (i % 3) + 1 for i in range(600)}
got = {int(s["addr"], 16): s["calls"] for s in anon}
eq(got, want, "anonymous sites: address -> calls")
eq(sum(got.values()), calls, "calls the program counted")
eq(sorted({(s["nr"], s["errors"], s["path"]) for s in anon}), [(110, 0, None)], "anonymous sites' nr, errors, path")
eq([s["addr"] for s in anon if s["offset"] != s["addr"]], [], "anonymous sites whose offset is not their address")
ge(len(t.sites), 601, "site rows")
done()
