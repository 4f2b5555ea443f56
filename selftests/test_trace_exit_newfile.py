# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_exit_newfile.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, invariants, log, Trace

ARGS = begin()
df, dirf, kf, dn, dirn, kn = ARGS
print("forced:", end=" ")
invariants(df, forced=True)


def rounds(d, files, k, forced):
    w = "%s (%d rounds): " % ("forced" if forced else "natural", k)
    t = Trace(d)
    eq(len(t.procs), 1, w + "process rows")
    p = t.root()
    eq((p["end"], p["exit_code"]), ("exited", 0), w + "end, exit_code")
    # The main thread, the churn thread, a worker per round.
    eq(p["threads"], k + 2, w + "threads")
    eq(t.session["clones"], k + 1, w + "session clones")
    mine = lambda x: (x["path"] or "").startswith(files + "/")
    got = sorted((x["path"], x["nr"], x["map"], x["offset"], x["calls"], x["errors"])
                 for x in t.sites if mine(x))
    want = sorted(("%s/exit.%d" % (files, i), 60, "file", "0x107", 1, 0) for i in range(k))
    eq(got, want, w + "site rows in the mapped files (path, nr, map, offset, calls, errors)")
    # The churn thread returns from its start routine: exit in libc.
    other = [x for x in t.sites_where(nr=60) if not mine(x)]
    eq([(x["map"], x["calls"]) for x in other], [("file", 1)], w + "the churn thread's exit site")
    for x in other:
        expect(x["path"] and "libc" in x["path"], w + "churn thread's exit site in libc: " + str(x["path"]))
    eq(t.calls(nr=60), k + 1, w + "exit calls")
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
        log("NOTE: natural race: %d of %d sites resolved late (%d rounds)"
            % (s["late_resolves"], len(t.sites), k))


rounds(df, dirf, int(kf), True)
rounds(dn, dirn, int(kn), False)
done()
