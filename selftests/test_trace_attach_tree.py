# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_attach_tree.sh, run by its pycheck after the trace."""
from trace_check import begin, done, eq, Trace

prog, off, M, roles_file, ppids_file, d = begin()
M = int(M)

roles = {}      # pid -> role
with open(roles_file) as f:
    for line in f:
        parts = line.split()
        if parts[0] != "ready":
            roles[int(parts[1])] = parts[0]
ppid = {}       # pid -> its parent's pid at the attach
with open(ppids_file) as f:
    for line in f:
        p, pp = map(int, line.split())
        ppid[p] = pp
top = [p for p, r in roles.items() if r == "top"][0]
orphan = [p for p, r in roles.items() if r == "orphan"][0]

t = Trace(d)
w = "attach --tree"
eq(sorted(r["pid"] for r in t.procs), sorted(roles), w + ": one row per process of the tree, and only those")
eq(t.session["forks"], 0, w + ": forks (none after the attach)")
eq(t.session["dropped_procs"], 0, w + ": dropped_procs")
eq(ppid[orphan], top, w + ": the orphan's parent, the subreaper top (from /proc)")
by_pid = {r["pid"]: r for r in t.procs}
row_of = {r["id"]: r for r in t.procs}
bad = []
for r in t.procs:
    role = roles.get(r["pid"], "?")
    want_parent = None if role == "top" else by_pid.get(ppid[r["pid"]])
    got_parent = row_of.get(r["parent_id"]) if r["parent_id"] is not None else None
    facts = (r["attached"], r["exe"], r["ppid"],
             got_parent["pid"] if got_parent else None,
             r["end"], r["exit_code"],
             t.calls(proc_id=r["id"], nr=110, path=prog, offset=off),
             t.calls(proc_id=r["id"], nr=0))
    want = (True, prog, ppid[r["pid"]],
            want_parent["pid"] if want_parent else None,
            "exited", 0 if role == "top" else 3, M, 0)
    if facts != want:
        bad.append("%s (pid %d): (attached, exe, ppid, parent row's pid, end, exit_code, "
                   "getppid at tree_site, read) = %r, expected %r" % (role, r["pid"], facts, want))
eq(bad, [], w + ": rows that differ")
done()
