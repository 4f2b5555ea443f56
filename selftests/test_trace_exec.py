# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_exec.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, log, Trace

ARGS = begin()
d, dfail, prog, off = ARGS
t = Trace(d)
eq(len(t.procs), 5, "process rows: the root, the forked child, a, b, c")
root = t.root()
eq(root["end"], "exited", "root end")
eq(root["exit_code"], 42, "root exit_code")
eq(t.calls(proc_id=root["id"], nr=59), 0, "execve calls of the root")

# Walk the chain from the forked child's image through prev_id.
first = t.proc("the image the root forked", parent_id=root["id"], prev_id=None)
chain = [first] if first else []
while chain and len(chain) < 6:
    nxt = t.procs_where(prev_id=chain[-1]["id"])
    if not nxt:
        break
    eq(len(nxt), 1, "images replacing row %d" % chain[-1]["id"])
    chain.append(nxt[0])
log("chain of images: %s" % [p["id"] for p in chain])
eq(len(chain), 4, "images in the chain (fork child, a, b, c)")
for k, p in enumerate(chain):
    w = "image %d (row %d): " % (k, p["id"])
    eq(p["parent_id"], root["id"], w + "parent_id")
    eq(p["ppid"], root["pid"], w + "ppid")
    eq(p["pid"], chain[0]["pid"], w + "pid")
    eq(p["exe"], prog, w + "exe")
    if k < 3:
        eq(p["end"], "exec", w + "end")
        eq(p["exit_code"], None, w + "exit_code")
        eq(t.calls(proc_id=p["id"], nr=59), 1, w + "execve calls")
        eq(t.errors(proc_id=p["id"], nr=59), 0, w + "execve errors")
        s = t.site(w + "execve at exec_site", proc_id=p["id"], nr=59, path=prog, offset=off)
        # The old image's last syscall is its execve.
        if s:
            eq(s["first_ordinal"], p["syscalls"] - 1, w + "execve's first_ordinal")
    else:
        eq(p["end"], "exited", w + "end")
        eq(p["exit_code"], 42, w + "exit_code")
        eq(t.calls(proc_id=p["id"], nr=59), 0, w + "execve calls")
eq(t.session["execs"], 4, "session execs (the root's and 3)")
eq(t.session["forks"], 1, "session forks")
eq(t.session["exits"], 2, "session exits")

# A failed execve: an error where it was called, and no new image.
t = Trace(dfail)
eq(len(t.procs), 1, "execchain fail: process rows")
eq(t.procs[0]["end"], "exited", "execchain fail: end")
eq(t.calls(nr=59, path=prog, offset=off), 1, "execchain fail: execve calls")
eq(t.errors(nr=59, path=prog, offset=off), 1, "execchain fail: execve errors")
eq(t.session["execs"], 1, "execchain fail: session execs")
done()
