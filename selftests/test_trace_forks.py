# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_forks.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, Trace

ARGS = begin()
d, prog, off = ARGS
t = Trace(d)
eq(len(t.procs), 6, "process rows")
root = t.root()
eq(root["end"], "exited", "root end")
eq(root["exit_code"], 3, "root exit_code")
eq(root["exe"], prog, "root exe")
rid = root["id"]
eq(t.calls(proc_id=rid, nr=110), 0, "getppid calls of the root")
eq(t.calls(proc_id=rid, nr=61), 5, "wait4 calls of the root")
# glibc's fork() is a clone syscall: the root made 5, nobody else any.
eq(t.calls(proc_id=rid, nr=56), 5, "clone calls of the root")
eq(t.calls(nr=56), 5, "clone calls in the tree")
eq(len(t.children(root)), 5, "rows whose parent is the root")
for i in range(5):
    w = "child %d (exit %d)" % (i, 10 + i)
    c = t.proc(w, exit_code=10 + i)
    if not c:
        continue
    eq(c["parent_id"], rid, w + ": parent_id")
    eq(c["ppid"], root["pid"], w + ": ppid")
    eq(c["prev_id"], None, w + ": prev_id")
    eq(c["end"], "exited", w + ": end")
    eq(c["exit_signal"], None, w + ": exit_signal")
    eq(c["threads"], 1, w + ": threads")
    eq(c["comm"], "forks", w + ": comm")
    expect(c["pid"] != root["pid"], w + ": pid differs from the root's")
    eq(t.calls(proc_id=c["id"], nr=110, path=prog, offset=off), i + 1, w + ": getppid calls at child_site")
    eq(len(t.sites_where(proc_id=c["id"], nr=110)), 1, w + ": getppid site rows")
    eq(t.calls(proc_id=c["id"], nr=231), 1, w + ": exit_group calls")
    # The child's return from clone has no entry: not counted in the child.
    eq(t.calls(proc_id=c["id"], nr=56), 0, w + ": clone calls")
    # All it did: its getppids, glibc's set_robust_list in a fork child,
    # exit_group.
    eq(t.calls(proc_id=c["id"], nr=273), 1, w + ": set_robust_list calls")
    eq(c["syscalls"], i + 3, w + ": syscalls")
eq(t.session["forks"], 5, "session forks")
eq(t.session["exits"], 6, "session exits")
done()
