# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_exit_newfile.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, ge, invariants, log, Trace

ARGS = begin()
prog, df, dirf, kf, dn, dirn, kn, tries = ARGS
print("forced:", end=" ")
invariants(df, forced=True)


def rounds(d, files, k, forced):
    w = "%s (%d rounds): " % ("forced" if forced else "natural", k)
    t = Trace(d)
    eq(len(t.procs), 1, w + "process rows")
    p = t.root()
    eq((p["end"], p["exit_code"]), ("exited", 0), w + "end, exit_code")
    # The main thread, the warm-up's worker and returning thread, the
    # churn thread, a worker per round.
    eq(p["threads"], k + 4, w + "threads")
    eq(t.session["clones"], k + 3, w + "session clones")
    mine = lambda x: (x["path"] or "").startswith(files + "/")
    got = sorted((x["path"], x["nr"], x["map"], x["offset"], x["calls"], x["errors"])
                 for x in t.sites if mine(x))
    want = sorted([("%s/exit.%d" % (files, i), 60, "file", "0x107", 1, 0) for i in range(k)]
                  + [("%s/warm" % files, 60, "file", "0x107", 1, 0)])
    eq(got, want, w + "site rows in the mapped files (path, nr, map, offset, calls, errors)")
    # The warm-up's second thread and the churn thread return from their
    # start routines: exit in libc.
    other = [x for x in t.sites_where(nr=60) if not mine(x)]
    eq([(x["map"], x["calls"]) for x in other], [("file", 2)], w + "the library's thread exit site")
    for x in other:
        expect(x["path"] and "libc" in x["path"], w + "the thread exit site in libc: " + str(x["path"]))
    eq(t.calls(nr=60), k + 3, w + "exit calls")
    eq(t.calls(nr=231), 1, w + "exit_group calls")
    unknown = [x["syscall"] for x in t.sites_where(map="unknown")]
    s = t.session
    if forced:
        # Every first hit resolves late; exit_group's never returns.
        eq(unknown, ["exit_group"], w + "site rows left unknown")
        eq(s["dropped_resolve"], 1, w + "dropped_resolve")
        eq(s["late_resolves"], len(t.sites) - 1, w + "late_resolves")
    else:
        eq(unknown, [], w + "site rows left unknown")
        eq(s["dropped_resolve"], 0, w + "dropped_resolve")
        # From the end of the warm-up to the last round's exit, only the
        # rounds' exit sites were new: any late resolve was one of them.
        marks = [x["first_ns"] for x in t.sites_where(path=prog, nr=110)]
        if eq(len(marks), 1, w + "the warm-up's end (warm_done's getppid site)"):
            last = max(x["first_ns"] for x in t.sites if mine(x))
            new = [(x["syscall"], x["path"], x["offset"]) for x in t.sites
                   if not mine(x) and marks[0] < x["first_ns"] <= last]
            eq(new, [], w + "sites first hit between the warm-up and the last round's exit, but the exits")
        log("natural race: %d of the %d rounds' exit sites found the mmap lock taken"
            % (s["late_resolves"], k))
        ge(s["late_resolves"], 1, w + "exit sites resolved late: the natural race (tried %s times)" % tries)


rounds(df, dirf, int(kf), True)
rounds(dn, dirn, int(kn), False)
done()
