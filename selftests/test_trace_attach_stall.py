# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_attach_stall.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

prog, off, K, tgt1, srv2, tgt2, d1, d2 = begin()
K, tgt1, srv2, tgt2 = int(K), int(tgt1), int(srv2), int(tgt2)


def target(t, r, w):
    """The target's row: attached while its threads waited in pread (A),
    mmap (B) and a join (main), none of which is counted; then A's close,
    B's munmap, their exits, K getppid and exit_group."""
    eq(r["attached"], True, w + ": attached")
    eq(r["exe"], prog, w + ": exe, read while the process held its mmap lock")
    eq(r["comm"], "fusestall", w + ": comm")
    eq(r["threads"], 3, w + ": threads")
    eq(r["end"], "exited", w + ": end")
    eq(r["exit_code"], 5, w + ": exit_code")
    eq(t.calls(proc_id=r["id"], nr=110, path=prog, offset=off), K, w + ": getppid at stall_site")
    eq(t.calls(proc_id=r["id"], nr=110), K, w + ": getppid")
    eq(t.calls(proc_id=r["id"], nr=17), 0, w + ": pread64 (in flight at the attach)")
    eq(t.calls(proc_id=r["id"], nr=9), 0, w + ": mmap (in flight at the attach)")
    eq(t.calls(proc_id=r["id"], nr=3), 1, w + ": close (A's, after its read failed)")
    eq(t.calls(proc_id=r["id"], nr=11), 1, w + ": munmap (B's, after its mmap)")
    eq(t.calls(proc_id=r["id"], nr=60), 2, w + ": exit (A and B)")
    eq(t.calls(proc_id=r["id"], nr=231), 1, w + ": exit_group")


w = "attach"
t = Trace(d1)
eq(t.session["name"], "stall", w + ": session name")
eq(len(t.procs), 1, w + ": process rows")
r = t.root()
if r:
    eq(r["pid"], tgt1, w + ": pid")
    target(t, r, w)

w = "attach --tree"
t = Trace(d2)
eq(len(t.procs), 2, w + ": process rows (the server, the target)")
r = t.root()
if r:
    eq(r["pid"], srv2, w + ": the server's pid")
    eq(r["attached"], True, w + ": the server's attached")
    eq(r["exe"], prog, w + ": the server's exe")
    eq(r["end"], "signaled", w + ": the server's end")
    eq(r["exit_signal"], 9, w + ": the server's exit_signal")
    eq(r["syscalls"], 0, w + ": the server's syscalls (its read in flight at the attach)")
    c = t.proc(w + ": the target", parent_id=r["id"])
    if c:
        eq(c["pid"], tgt2, w + ": the target's pid")
        eq(c["ppid"], srv2, w + ": the target's ppid")
        target(t, c, w + ": the target")
done()
