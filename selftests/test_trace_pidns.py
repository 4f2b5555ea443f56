# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_pidns.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d_in, d_out, pw, unshare, off_pid, off_ppid, root_pid, ctl_pid, pw_pid = ARGS
root_pid, ctl_pid, pw_pid = int(root_pid), int(ctl_pid), int(pw_pid)

def pidwait_sites(t, p, what):
    for off, nr in ((off_pid, 39), (off_ppid, 110)):
        s = t.site("%s: site at %s" % (what, off), proc_id=p["id"], path=pw, offset=off)
        if s:
            eq((s["nr"], s["calls"], s["errors"]), (nr, 1, 0), "%s: site at %s: nr, calls, errors" % (what, off))

t = Trace(d_in)
eq(t.session["root_pid"], 2, "inside: session root_pid")
eq(len(t.procs), 1, "inside: process rows")
p = t.root()
if p:
    eq((p["pid"], p["tgid"], p["ppid"]), (2, 2, 1), "inside: pidwait's pid, tgid, ppid")
    eq((p["exe"], p["end"], p["exit_code"]), (pw, "exited", 0), "inside: pidwait's exe, end, exit_code")
    pidwait_sites(t, p, "inside")

t = Trace(d_out)
eq(t.session["root_pid"], root_pid, "outside: session root_pid")
eq(len(t.procs), 3, "outside: process rows (unshare, its fork, pidwait)")
u = t.root()
fork = t.proc("outside: unshare's child", prev_id=None, parent_id=u["id"] if u else -1)
img = t.proc("outside: pidwait", exe=pw)
if u and fork and img:
    eq((u["pid"], u["tgid"], u["ppid"]), (root_pid, root_pid, ctl_pid), "outside: unshare's pid, tgid, ppid")
    eq((u["exe"], u["end"], u["exit_code"]), (unshare, "exited", 0), "outside: unshare's exe, end, exit_code")
    eq((fork["pid"], fork["ppid"], fork["exe"], fork["end"]), (pw_pid, root_pid, unshare, "exec"),
       "outside: unshare's child: pid, ppid, exe, end")
    eq((img["pid"], img["tgid"], img["ppid"], img["prev_id"], img["parent_id"]),
       (pw_pid, pw_pid, root_pid, fork["id"], u["id"]), "outside: pidwait's pid, tgid, ppid, prev_id, parent_id")
    eq((img["end"], img["exit_code"]), ("exited", 0), "outside: pidwait's end, exit_code")
    pidwait_sites(t, img, "outside")
done()
