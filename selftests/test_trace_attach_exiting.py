# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_attach_exiting.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
top, prog, off = ARGS
for line in open(top + "/runs"):
    name, pid, target, ppid, sid = line.split()
    w = name + ": "
    t = Trace(top + "/" + name)
    s = t.session
    eq((s["id"], s["state"], s["live_tasks"], s["root_pid"], s["flags"]),
       (int(sid), "finished", 0, int(pid), 0), w + "session id, state, live_tasks, root_pid, flags")
    eq(len(t.procs), 1, w + "process rows")
    p = t.procs[0]
    eq((p["pid"], p["tgid"], p["ppid"], p["parent_id"], p["prev_id"], p["comm"], p["exe"]),
       (int(target), int(pid), int(ppid), None, None, "zombieleader", prog),
       w + "pid, tgid, ppid, parent_id, prev_id, comm, exe")
    eq((p["end"], p["exit_code"], p["exit_signal"], p["threads"]), ("exited", 9, None, 2),
       w + "end, exit_code, exit_signal, threads")
    # The reads in flight at the attach are not counted: only the exits.
    eq([(x["nr"], x["map"], x["path"], x["offset"], x["calls"], x["errors"]) for x in t.sites],
       [(60, "file", prog, off, 2, 0)], w + "site rows")
    eq((p["syscalls"], p["errors"], p["sites"]), (2, 0, 1), w + "the row's syscalls, errors, sites")
    eq((s["syscalls"], s["errors"], t.totals["syscalls"]), (2, 0, 2), w + "session and totals syscalls, errors")
    eq((s["exits"], s["signal_exits"], s["forks"], s["clones"], s["execs"]), (1, 0, 0, 0, 0),
       w + "session exits, signal_exits, forks, clones, execs")
    eq([s["dropped_" + k] for k in ("procs", "sites", "syscalls", "nomem", "resolve", "counters")],
       [0] * 6, w + "dropped procs, sites, syscalls, nomem, resolve, counters")
done()
