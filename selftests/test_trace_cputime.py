# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_cputime.sh, run by its pycheck after the trace."""
from trace_check import begin, done, eq, expect, ge, le, log, Trace

ARGS = begin()
d, burn = ARGS
said = {}      # pid: (user, sys) from the process's own getrusage
reaped = {}    # pid: (user, sys) from its parent's wait4
out = {}
for line in open(d + "/start.out").read().splitlines():
    w = line.split()
    if w[0] in ("child", "reaped"):
        (said if w[0] == "child" else reaped)[int(w[1])] = (int(w[2]), int(w[3]))
    else:
        out[w[0]] = int(w[1])
ms = 1000000
# getrusage and wait4 give microseconds, rounded down: up to 1 µs short in
# each of user and sys.
TRUNC = 2000


def cpu(rows):
    return sum(p["user_time_ns"] + p["sys_time_ns"] for p in rows)


t = Trace(d)
root = t.root()
eq(len(t.procs), 8, "rows: cpuwait, burn's fork and exec, 5 children")
bimg = [p for p in t.procs if p["exe"] == burn and p["prev_id"] is not None]
eq(len(bimg), 1, "burn's image: one row made by an exec")
if bimg:
    b = bimg[0]
    pre = [p for p in t.procs if p["id"] == b["prev_id"]]
    rows = pre + [b]
    kids = t.children(b)
    eq(len(kids), 5, "burn's children")
    pid = b["pid"]
    self_ns = out["rusage_user_ns"] + out["rusage_sys_ns"]
    all_ns = sum(reaped.get(pid, (0, 0)))
    log("burn: rows %.3f ms (user %.3f sys %.3f); its getrusage %.3f ms (user %.3f sys %.3f); wait4 %.3f ms"
        % (cpu(rows) / ms, sum(p["user_time_ns"] for p in rows) / ms,
           sum(p["sys_time_ns"] for p in rows) / ms, self_ns / ms,
           out["rusage_user_ns"] / ms, out["rusage_sys_ns"] / ms, all_ns / ms))
    # The rows cover burn from its fork to each thread's exit probe: all
    # of wait4's but each thread's end after its probe (exit_files,
    # exit_notify, the last schedule). getrusage at burn's end counts the
    # four threads gone by then whole, their ends included, and not burn's
    # own end: the rows may be short of it by those four ends, which take
    # well under 10 ms each even under TCG on a busy host.
    le(cpu(rows), all_ns + TRUNC, "burn: its rows vs wait4's rusage of it")
    ge(cpu(rows), self_ns - 4 * 10 * ms, "burn: its rows vs its own getrusage, less 4 thread exits")
    for k in kids:
        s, r = said.get(k["pid"]), reaped.get(k["pid"])
        if not s or not r:
            expect(False, "child %d: its own report and burn's wait4 are both there" % k["pid"])
            continue
        log("child %d: row user %d sys %d ns; its getrusage %d + %d ns; wait4 %d + %d ns"
            % (k["pid"], k["user_time_ns"], k["sys_time_ns"], s[0], s[1], r[0], r[1]))
        # From its fork to its exit probe: at least what it had used when it
        # asked (then it only writes a line and exits), at most all it used.
        ge(cpu([k]), sum(s), "child %d: its row vs its own getrusage" % k["pid"])
        le(cpu([k]), sum(r) + TRUNC, "child %d: its row vs wait4's rusage of it" % k["pid"])
done()
