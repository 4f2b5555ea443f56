# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_errnos_threads.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, report, Trace

ARGS = begin()
import re
one, four, prog, off_mix, off_four = ARGS

# errno: calls of one thread at site_mix, in the order they are made.
MIX = {2: 3, 13: 2, 20: 1, 40: 4, 21: 5, 14: 6}
FIRST4 = {2: 3, 13: 2, 20: 1, 40: 4}


def parse(text, what):
    out = {}
    for w in (text or "").split():
        m = re.fullmatch(r"([A-Z0-9]+|\?)\((\d+)\)=(\d+)", w)
        if not m:
            report("%s: errnos %r: not NAME(N)=COUNT ..." % (what, text))
            return out
        out[int(m.group(2))] = int(m.group(3))
    return out


def four_want(n):
    """site_four's errnos with n threads."""
    w = {}
    for i in range(n):
        for e, c in (((2, i + 1), (21, 2)) if i % 2 == 0 else ((40, i + 1), (13, 3))):
            w[e] = w.get(e, 0) + c
    return w


for d, n in ((one, 1), (four, 4)):
    t = Trace(d)
    w = "%d thread(s)" % n
    p = t.root()
    eq(p["exit_code"], 0, w + ": exit code (every call returned as it should)")
    eq(p["threads"], n + 1, w + ": threads of the process")
    s = t.site(w + ": site_mix", path=prog, offset=off_mix)
    if s:
        ws = w + ": site_mix"
        eq((s["calls"], s["errors"]), (28 * n, 21 * n), ws + ": (calls, errors)")
        e = parse(s["errnos"], ws)
        other = s["errno_other"]
        if other is None:
            report(ws + ": errnos unknown")
        else:
            eq(sum(e.values()) + other, s["errors"], ws + ": sum of errnos + errno_other vs errors")
        eq(len(e), 4, ws + ": errnos kept (all 4 slots taken)")
        eq({k: v for k, v in e.items()}, {k: MIX.get(k, 0) * n for k in e},
           ws + ": each errno kept has its exact count")
        if n == 1 or t.session["backend"] == "kmod":
            eq(e, {k: v * n for k, v in FIRST4.items()}, ws + ": the first 4 errnos met")
            eq(other, 11 * n, ws + ": errno_other (EISDIR and EFAULT)")
    s = t.site(w + ": site_four", path=prog, offset=off_four)
    if s:
        ws = w + ": site_four"
        want = four_want(n)
        eq((s["calls"], s["errors"]), (sum(want.values()),) * 2, ws + ": (calls, errors)")
        eq(parse(s["errnos"], ws), want, ws + ": errnos")
        eq(s["errno_other"], 0, ws + ": errno_other")
    # Per syscall (openat of the process): the sums of its sites, of which
    # systracectl keeps the 4 most frequent (a tie: the smaller errno) and
    # adds the rest to the sites' errno_other.
    sums, other = {}, 0
    for r in t.sites_where(proc_id=p["id"], nr=257):
        for k, v in parse(r["errnos"], "sum").items():
            sums[k] = sums.get(k, 0) + v
        other += r["errno_other"] or 0
    keep = sorted(sums, key=lambda k: (-sums[k], k))[:4]
    other += sum(v for k, v in sums.items() if k not in keep)
    sums = {k: sums[k] for k in keep}
    rows = [r for r in t.syscalls if r["proc_id"] == p["id"] and r["nr"] == 257]
    if len(rows) == 1:
        eq(parse(rows[0]["errnos"], w + ": openat"), sums, w + ": openat's errnos, the sums of its sites'")
        eq(rows[0]["errno_other"], other, w + ": openat's errno_other")
    else:
        report(w + ": %d openat rows in --syscalls" % len(rows))
    expect(all(r["errno_other"] is not None for r in t.sites), w + ": every site row has its errnos counted")
done()
