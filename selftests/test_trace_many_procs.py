# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_many_procs.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
t = Trace(ARGS[0])
root = t.root()
eq(root["comm"], "bash", "root comm")
eq(root["end"], "exited", "root end")
eq(root["exit_code"], 0, "root exit_code")
# The root bash, 201 children (200 for true, 1 for $(seq 200)), each
# replaced by its exec.
eq(len(t.procs), 403, "process rows")
trues = t.procs_where(comm="true")
eq(len(trues), 200, "rows of true")
eq(sorted({(p["end"], p["exit_code"]) for p in trues}), [("exited", 0)], "how the trues ended")
eq(len({p["pid"] for p in trues}), 200, "distinct pids of the trues")
by_id = {p["id"]: p for p in t.procs}
bad = 0
for p in trues:
    prev = by_id.get(p["prev_id"])
    if not prev or prev["comm"] != "bash" or prev["end"] != "exec" or prev["parent_id"] != root["id"] \
            or p["parent_id"] != root["id"] or p["pid"] != prev["pid"]:
        bad += 1
eq(bad, 0, "trues that are not the exec of a child of the root shell")
seq = t.proc("seq", comm="seq")
if seq:
    eq((seq["end"], seq["exit_code"]), ("exited", 0), "seq's end")
eq(len(t.children(root)), 402, "rows whose parent is the root (201 forks and their 201 execs)")
eq(t.session["forks"], 201, "session forks")
eq(t.session["execs"], 202, "session execs")
eq(t.session["exits"], 202, "session exits")
done()
