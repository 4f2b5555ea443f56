# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_sigkill.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, ge, Trace

ARGS = begin()
d, prog, off = ARGS
t = Trace(d)
eq(len(t.procs), 2, "process rows")
root = t.root()
child = t.proc("the child", parent_id=root["id"])
if child:
    eq(child["end"], "signaled", "child end")
    eq(child["exit_signal"], 9, "child exit_signal")
    eq(child["exit_code"], None, "child exit_code")
    eq(child["core_dumped"], False, "child core_dumped")
    calls = t.calls(proc_id=child["id"], nr=110, path=prog, offset=off)
    ge(calls, 100, "child getppid calls (it reported after 100)")
    # All it did: its getppids, its write to the pipe and glibc's
    # set_robust_list in a fork child.
    eq(child["syscalls"], calls + 2, "child syscalls")
    eq(t.calls(proc_id=child["id"], nr=1), 1, "child write calls")
    eq(t.calls(proc_id=child["id"], nr=231), 0, "child exit_group calls")
    eq(t.calls(proc_id=child["id"], nr=60), 0, "child exit calls")
eq(root["end"], "exited", "parent end")
eq(root["exit_code"], 0, "parent exit_code")
eq(t.calls(proc_id=root["id"], nr=62), 1, "parent kill calls")
eq(t.calls(proc_id=root["id"], nr=231), 1, "parent exit_group calls")
eq(t.session["signal_exits"], 1, "session signal_exits")
eq(t.session["exits"], 2, "session exits")
done()
