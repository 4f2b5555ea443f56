# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_attach.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, ge, le, Trace

ARGS = begin()
prog, poff, coff, xoff, K, M, d1, d2, d3, d4 = ARGS
K, M = int(K), int(M)

def parent_counts(t, r, w, getppid, waits, exit_group=1, read=1):
    eq(r["attached"], True, w + ": attached")
    eq(r["parent_id"], None, w + ": parent_id")
    eq(r["exe"], prog, w + ": exe")
    eq(t.calls(proc_id=r["id"], nr=110, path=prog, offset=poff), getppid, w + ": getppid at parent_site")
    eq(t.calls(proc_id=r["id"], nr=56), 1, w + ": clone")
    eq(t.calls(proc_id=r["id"], nr=61), waits, w + ": wait4")
    eq(t.calls(proc_id=r["id"], nr=1), 1, w + ": write")
    # The read it blocked in at the attach is not counted; the second is.
    eq(t.calls(proc_id=r["id"], nr=0), read, w + ": read")
    eq(t.calls(proc_id=r["id"], nr=231), exit_group, w + ": exit_group")
    eq(r["syscalls"], getppid + 1 + waits + 1 + read + exit_group, w + ": syscalls")

def post_child(t, r, w):
    c = t.proc(w + ": the child forked after the attach", attached=False)
    if not c:
        return
    eq(c["parent_id"], r["id"], w + ": child's parent_id")
    eq(c["ppid"], r["pid"], w + ": child's ppid")
    eq(c["end"], "exited", w + ": child's end")
    eq(c["exit_code"], 5, w + ": child's exit_code")
    eq(t.calls(proc_id=c["id"], nr=110, path=prog, offset=coff), M, w + ": child's getppid at child_site")
    eq(c["syscalls"], M + 2, w + ": child's syscalls (getppid, set_robust_list, exit_group)")

w = "attach"
t = Trace(d1)
eq(len(t.procs), 3, w + ": process rows (the root, its child, the image the child execs)")
eq(t.session["counters_error"], None, w + ": counters_error")
for p in t.procs:
    # COUNTER_VALUE is sent for every row while counting, 0 without a
    # counter: an attached thread with none would show 0 here. One thread
    # each: its time on a CPU fits in its row's wall time (attach or fork
    # to its end), which its blocking reads fill mostly. The two come from
    # different clocks (the scheduler's, ktime's), which drift apart under
    # TCG: on the debug kernel (TSC unstable, clocksource hpet) a row of
    # 155.5 ms wall time counted 199.6 ms of task clock. Hence twice the
    # wall time, plus 20 ms: still a factor of 1000 (us for ns) or a
    # counter that ran on would fail.
    ge(p["task_clock_ns"], 1, w + ": process %d's task_clock_ns (on-CPU time since the attach or fork)" % p["id"])
    eq(p["threads"], 1, w + ": process %d's threads" % p["id"])
    le(p["task_clock_ns"], 2 * p["wall_ns"] + 20 * 1000000,
       w + ": process %d's task_clock_ns vs twice its wall_ns + 20 ms" % p["id"])
r = t.root()
if r:
    eq(r["end"], "exited", w + ": end")
    eq(r["exit_code"], 7, w + ": exit_code")
    parent_counts(t, r, w, 2 * K, 1)
    f = t.proc(w + ": the child's image before its exec", parent_id=r["id"], prev_id=None)
    x = t.proc(w + ": the image the child execs", prev_id=f["id"]) if f else None
    if f and x:
        eq(f["attached"], False, w + ": fork image attached")
        eq(f["end"], "exec", w + ": fork image end")
        eq(t.calls(proc_id=f["id"], nr=59, path=prog, offset=xoff), 1, w + ": fork image's execve at exec_site")
        eq(f["syscalls"], 2, w + ": fork image's syscalls (set_robust_list, execve)")
        eq(x["attached"], False, w + ": exec image attached")
        eq(x["parent_id"], r["id"], w + ": exec image's parent_id")
        eq(x["pid"], f["pid"], w + ": exec image's pid")
        eq(x["exe"], prog, w + ": exec image's exe")
        eq(x["end"], "exited", w + ": exec image's end")
        eq(x["exit_code"], 5, w + ": exec image's exit_code")
        eq(t.calls(proc_id=x["id"], nr=110, path=prog, offset=coff), M, w + ": exec image's getppid at child_site")
        eq(t.calls(proc_id=x["id"], nr=231), 1, w + ": exec image's exit_group")
        eq(t.calls(proc_id=x["id"], nr=59), 0, w + ": exec image's execve")
eq(t.session["forks"], 1, w + ": session forks")
eq(t.session["execs"], 1, w + ": session execs")
eq(t.session["exits"], 2, w + ": session exits")

w = "attach --tree"
t = Trace(d2)
eq(len(t.procs), 3, w + ": process rows")
r = t.root()
if r:
    parent_counts(t, r, w, 2 * K, 2)
    post_child(t, r, w)
    pre = t.proc(w + ": the child that ran before", attached=True, parent_id=r["id"])
    if pre:
        eq(pre["ppid"], r["pid"], w + ": pre child's ppid")
        eq(pre["exit_code"], 6, w + ": pre child's exit_code")
        eq(pre["prev_id"], None, w + ": pre child's prev_id")
        eq(t.calls(proc_id=pre["id"], nr=110, path=prog, offset=coff), M, w + ": pre child's getppid")
        eq(t.calls(proc_id=pre["id"], nr=0), 0, w + ": pre child's read (in flight at the attach)")
        eq(pre["syscalls"], M + 1, w + ": pre child's syscalls (getppid, exit_group)")
eq(t.session["name"], "tree", w + ": session name")
eq(t.session["forks"], 1, w + ": session forks (the pre child was not forked in the session)")
eq(t.session["exits"], 3, w + ": session exits")

w = "attach --threads-only"
t = Trace(d3)
eq(len(t.procs), 1, w + ": process rows")
r = t.root()
if r:
    parent_counts(t, r, w, 2 * K, 1)
eq(t.session["forks"], 0, w + ": session forks")
eq(t.session["dropped_procs"], 0, w + ": dropped_procs")

w = "detach"
t = Trace(d4)
eq(t.session["state"], "detached", w + ": session state")
eq(len(t.procs), 2, w + ": process rows")
r = t.root()
if r:
    eq(r["end"], "detached", w + ": end")
    expect(r["end_ns"] is not None, w + ": end_ns is set")
    # K getppid before the detach, none after; the read in flight counts.
    parent_counts(t, r, w, K, 1, exit_group=0)
    post_child(t, r, w)
done()
