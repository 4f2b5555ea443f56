# SPDX-License-Identifier: GPL-2.0
"""Checks of test_privilege.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
dp, prog, off_a, off_b, off_c, pid, ds, setpriv, suid, off_euid, off_uid = ARGS
t = Trace(dp)
eq(t.session["name"], "perfmon", "CAP_PERFMON session: name")
eq(t.session["root_pid"], int(pid), "CAP_PERFMON session: root_pid")
eq(len(t.procs), 1, "CAP_PERFMON session: process rows")
p = t.root()
if p:
    eq((p["pid"], p["exe"], p["end"], p["exit_code"]), (int(pid), prog, "exited", 0),
       "CAP_PERFMON session: pid, exe, end, exit_code")
eq(len(t.sites_where(path=prog)), 3, "CAP_PERFMON session: site rows in the program")
for off, nr, calls, errors in ((off_a, 110, 7, 0), (off_b, 110, 3, 0), (off_c, 3, 2, 2)):
    s = t.site("CAP_PERFMON session: site at %s" % off, path=prog, offset=off)
    if s:
        eq((s["nr"], s["calls"], s["errors"]), (nr, calls, errors),
           "CAP_PERFMON session: site at %s: nr, calls, errors" % off)

t = Trace(ds)
eq(len(t.procs), 2, "setuid session: process rows (setpriv, then whoami)")
root = t.root()
img = t.proc("the setuid image", exe=suid)
if root and img:
    eq((root["exe"], root["end"]), (setpriv, "exec"), "setpriv's row: exe, end")
    eq(img["prev_id"], root["id"], "whoami's row: prev_id (setpriv's row)")
    eq((img["pid"], img["ppid"]), (root["pid"], root["ppid"]), "whoami's row: pid, ppid (setpriv's)")
    eq((img["end"], img["exit_code"], img["threads"]), ("exited", 0, 1), "whoami's row: end, exit_code, threads")
    eq(t.calls(proc_id=img["id"], nr=59), 0, "whoami's row: execve calls")
    eq(t.calls(proc_id=root["id"], nr=59), 1, "setpriv's row: execve calls (the setuid exec)")
    eq(len(t.sites_where(proc_id=img["id"], path=suid)), 2, "whoami's row: site rows in the program")
    for off, nr, calls in ((off_euid, 107, 5), (off_uid, 102, 1)):
        s = t.site("setuid image: site at %s" % off, proc_id=img["id"], path=suid, offset=off)
        if s:
            eq((s["nr"], s["calls"], s["errors"]), (nr, calls, 0),
               "setuid image: site at %s: nr, calls, errors" % off)
eq(t.session["execs"], 2, "setuid session: execs (setpriv's and the setuid one)")
done()
