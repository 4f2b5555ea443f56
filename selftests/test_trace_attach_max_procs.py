# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_attach_max_procs.sh, run by its pycheck after the trace."""
from trace_check import begin, done, eq, Trace

prog, off, M, R, roles_file, d = begin()
M, R = int(M), int(R)

roles = {}      # pid -> role
with open(roles_file) as f:
    for line in f:
        parts = line.split()
        if parts[0] != "ready":
            roles[int(parts[1])] = parts[0]
top = [p for p, r in roles.items() if r == "top"][0]
n = len(roles)

t = Trace(d)
w = "attach --tree, %d processes, max_procs %d" % (n, R)
rows = sorted(r["pid"] for r in t.procs)
eq(len(rows), R, w + ": rows")
eq(t.session["dropped_procs"], n - R, w + ": dropped_procs (each refused process once)")
eq(rows, sorted(roles)[:R], w + ": the rows are the top's and its oldest descendants'")
eq(t.session["forks"], 0, w + ": forks")
bad = []
for r in t.procs:
    role = roles.get(r["pid"], "?")
    facts = (r["attached"], r["exe"], r["end"], r["exit_code"],
             t.calls(proc_id=r["id"], nr=110, path=prog, offset=off))
    want = (True, prog, "exited", 0 if role == "top" else 3, M)
    if facts != want:
        bad.append("%s (pid %d): (attached, exe, end, exit_code, getppid at tree_site) = %r, "
                   "expected %r" % (role, r["pid"], facts, want))
eq(bad, [], w + ": rows that differ")
done()
