# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_exits.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
t = Trace(ARGS[0])
eq(len(t.procs), 4, "process rows: the root, 2 fork and 1 vfork children")
root = t.root()
rid = root["id"]
eq(root["threads"], 4, "root threads")
eq(t.calls(proc_id=rid, nr=60), 3, "root exit calls (one per thread)")
eq(t.errors(proc_id=rid, nr=60), 0, "root exit errors")
eq(t.calls(proc_id=rid, nr=231), 1, "root exit_group calls")
# glibc 2.36: pthread_create is clone3, fork() clone, vfork() vfork.
eq(t.calls(proc_id=rid, nr=435), 3, "root clone3 calls (threads)")
eq(t.calls(proc_id=rid, nr=56), 2, "root clone calls (fork)")
eq(t.calls(proc_id=rid, nr=58), 1, "root vfork calls")
kids = t.children(root)
eq(len(kids), 3, "children")
for c in kids:
    w = "child %d: " % c["id"]
    eq(c["end"], "exited", w + "end")
    eq(t.calls(proc_id=c["id"], nr=231), 1, w + "exit_group calls")
    for nr, name in ((56, "clone"), (57, "fork"), (58, "vfork"), (60, "exit"), (435, "clone3")):
        eq(t.calls(proc_id=c["id"], nr=nr), 0, w + name + " calls")
eq(t.calls(nr=231), 4, "exit_group calls in the tree")
eq(t.session["clones"], 3, "session clones")
eq(t.session["forks"], 3, "session forks")
done()
