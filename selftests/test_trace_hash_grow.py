# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_hash_grow.sh: manysites S traced with every hash
grow failing, then with grows working."""
from trace_check import begin, done, eq, ge, le, log, Trace

ARGS = begin()
s, scalls, secs, dfail, dok = ARGS
s, scalls, secs = int(s), int(scalls), int(secs)
want = sum(i % 3 + 1 for i in range(s))
eq(scalls, want, "strace -f -c: getppid calls of manysites %d" % s)
for d, w in ((dfail, "grows failing: "), (dok, "grows working: ")):
    t = Trace(d)
    anon = sorted(t.sites_where(map="anon", syscall="getppid"), key=lambda x: int(x["addr"], 16))
    eq(len(anon), s, w + "getppid sites in the anonymous mapping")
    eq([x["calls"] for x in anon], [i % 3 + 1 for i in range(s)], w + "calls of each stub, in address order")
    eq(sum(x["calls"] for x in t.sites_where(syscall="getppid")), scalls, w + "getppid calls against strace -f -c")
    for k in ("dropped_nomem", "dropped_sites", "dropped_syscalls", "dropped_procs"):
        eq(t.session[k], 0, w + k)
    if d == dfail:
        failed = t.session["hash_grow_failed"]
        log("hash_grow_failed %d over %d s" % (failed, secs))
        ge(failed, 1, w + "hash_grow_failed")
        le(failed, 2 * (secs + 1), w + "hash_grow_failed, two tables once a second at most")
    else:
        eq(t.session["hash_grow_failed"], 0, w + "hash_grow_failed")
done()
