# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_strace.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, log, Trace

ARGS = begin()
import collections, re
d, table = ARGS
t = Trace(d)
root = t.root()
eq(root["comm"], "strace", "the root image")
# strace's own processes: its image and the children it forks, of which
# one execs make. strace attaches to that child just before its execve:
# of the child's pre-exec image it sees only the execve. strace's other
# children (ptrace feature probes) it does not trace at all.
pre = [p for p in t.children(root) if t.procs_where(prev_id=p["id"])]
eq(len(pre), 1, "strace children that exec'd (make)")
if pre:
    pre = pre[0]
    make = t.proc("make's image", prev_id=pre["id"])
    # The tree strace traced: make's image and everything below it.
    ids, todo = set(), [make["id"]]
    while todo:
        i = todo.pop()
        ids.add(i)
        todo += [p["id"] for p in t.procs if (p["parent_id"] == i or p["prev_id"] == i) and p["id"] not in ids]
    log("strace's own rows: %s; pre-exec image %d; traced tree: %d rows"
        % ([p["id"] for p in t.procs if p["id"] not in ids and p["id"] != pre["id"]], pre["id"], len(ids)))
    ours = collections.defaultdict(lambda: [0, 0])
    for s in t.sites:
        if s["proc_id"] in ids or (s["proc_id"] == pre["id"] and s["syscall"] == "execve"):
            eq(s["abi"], "x64", "abi of a site of the build")
            ours[s["syscall"]][0] += s["calls"]
            ours[s["syscall"]][1] += s["errors"]
    theirs = {}
    for line in open(table):
        f = line.split()
        # % time, seconds, usecs/call, calls, [errors,] syscall
        if len(f) in (5, 6) and re.match(r"^[0-9.]+$", f[0]) and f[-1] != "total":
            theirs[f[-1]] = [int(f[3]), int(f[4]) if len(f) == 6 else 0]
    # exit and exit_group never return: strace -c counts a syscall when it
    # returns, so they are not in its table. Here they are counted once per
    # thread and process that made them.
    for name in ("exit", "exit_group"):
        eq(theirs.pop(name, [0, 0]), [0, 0], "strace's count of %s" % name)
    eq(ours.pop("exit", [0, 0])[0], sum(p["threads"] - 1 for p in t.procs if p["id"] in ids),
       "exit calls of the build (its threads)")
    eq(ours.pop("exit_group", [0, 0])[0], sum(1 for p in t.procs if p["id"] in ids and p["end"] == "exited"),
       "exit_group calls of the build (processes that exited)")
    for name in sorted(set(ours) | set(theirs)):
        eq(ours.get(name, [0, 0]), theirs.get(name, [0, 0]), "%s [calls, errors]: systrace vs strace" % name)
    log("%d syscalls compared, %d calls" % (len(theirs), sum(c for c, e in theirs.values())))
done()
