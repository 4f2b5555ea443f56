# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_late_resolve.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, Trace

ARGS = begin()
dt, tprog, toff, dc, eprog, eoff = ARGS
t = Trace(dt)
w = "threads 4 x 50: "
eq(len(t.procs), 1, w + "process rows")
s = t.site(w + "thread_site", nr=110)
if s:
    eq((s["map"], s["path"], s["offset"], s["calls"]), ("file", tprog, toff, 200),
       w + "thread_site: map, path, offset, calls")
unknown = t.sites_where(map="unknown")
eq([x["syscall"] for x in unknown], ["exit_group"], w + "site rows left unknown")
eq(t.session["dropped_resolve"], 1, w + "dropped_resolve")
eq(t.session["late_resolves"], len(t.sites) - 1, w + "late_resolves")
# The first thread to exit resolved the exit site through the main
# thread's address space, after its own was gone.
x = t.site(w + "exit", nr=60)
if x:
    eq((x["map"], x["calls"]), ("file", 4), w + "exit site: map, calls")
    expect(x["path"] and "libc" in x["path"], w + "exit site in libc: " + str(x["path"]))

t = Trace(dc)
w = "execchain: "
eq(len(t.procs), 5, w + "process rows")
# Three images end in execve, two (the root and c) in exit_group.
unknown = sorted(x["syscall"] for x in t.sites_where(map="unknown"))
eq(unknown, ["execve"] * 3 + ["exit_group"] * 2, w + "site rows left unknown")
eq(t.session["dropped_resolve"], 5, w + "dropped_resolve")
eq(t.session["late_resolves"], len(t.sites) - 5, w + "late_resolves")
for p in t.procs:
    ex = t.sites_where(proc_id=p["id"], nr=59)
    if p["end"] == "exec":
        eq([(x["map"], x["path"], x["offset"], x["calls"]) for x in ex],
           [("unknown", None, None, 1)], w + "row %d: its execve site" % p["id"])
    else:
        eq(ex, [], w + "row %d: no execve" % p["id"])
done()
