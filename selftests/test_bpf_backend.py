# SPDX-License-Identifier: GPL-2.0
"""Checks of test_bpf_backend.sh, run by its pycheck after the traces."""
import csv
import json
from trace_check import begin, done, eq, Trace

ARGS = begin()
full, sites5, procs3, sites_prog, kill, ident, logged, log_csv, ncpus = ARGS
t = Trace(full)
eq(t.session["backend"], "bpf", "session backend")
eq(t.session["counters_error"], None, "counters_error with --counters none")
# The program's file as stat(2) sees it: inode, device, mtime.
# On overlayfs (the guests' root) stat gives the overlay's device, the
# mapping the file's underneath: test_trace_backends compares dev there.
ino, dev, mtime, fstype = ident.split()
for s in t.sites_where(path=sites_prog):
    w = "site at %s: " % s["offset"]
    eq(s["inode"], int(ino), w + "inode")
    if fstype != "overlayfs":
        eq(s["dev"], int(dev), w + "dev (stat's encoding)")
    eq(s["mtime_ns"], int(mtime.replace(".", "")), w + "mtime_ns")


def key(s):
    return (s["path"], s["offset"], s["nr"])


# The 5 sites the full run hit first are the limited run's only rows, with
# the same calls; every call of another site is dropped, one site row
# refused per call.
first5 = sorted(t.sites, key=lambda s: s["first_ordinal"])[:5]
with open(sites5) as f:
    lim = json.load(f)
ls = lim["session"]
eq(sorted(key(s) for s in lim["sites"]), sorted(key(s) for s in first5), "max_sites 5: the site rows")
want = {key(s): s["calls"] for s in first5}
eq({key(s): s["calls"] for s in lim["sites"]}, want, "max_sites 5: calls per site")
dropped = t.session["syscalls"] - sum(want.values())
eq(ls["sites"], 5, "max_sites 5: session sites")
eq(ls["dropped_syscalls"], dropped, "max_sites 5: dropped_syscalls")
eq(ls["dropped_sites"], dropped, "max_sites 5: dropped_sites (one per call of a site not made)")
eq(ls["syscalls"], sum(want.values()), "max_sites 5: session syscalls")
eq(t.calls(path=sites_prog, nr=110), 10, "full run: getppid calls")
for k in ("procs", "nomem", "resolve", "counters"):
    eq(ls["dropped_" + k], 0, "max_sites 5: dropped_" + k)

# forks 5 with 3 rows: its own and its first two children's (1 and 2
# getppid, exit 10 and 11); children 3-5 are not followed.
with open(procs3) as f:
    lim = json.load(f)
ps = lim["session"]
rows = sorted(lim["processes"], key=lambda p: p["id"])
eq(len(rows), 3, "max_procs 3: process rows")
eq(ps["dropped_procs"], 3, "max_procs 3: dropped_procs")
eq(ps["forks"], 2, "max_procs 3: forks")
eq([p["exit_code"] for p in rows], [3, 10, 11], "max_procs 3: exit codes")
eq([p["parent_id"] for p in rows], [None, rows[0]["id"], rows[0]["id"]], "max_procs 3: parents")
eq(sum(s["calls"] for s in lim["sites"] if s["nr"] == 110), 3, "max_procs 3: getppid calls (1 + 2)")
eq(ps["dropped_nomem"], 0, "max_procs 3: dropped_nomem")
# kill -0 1 as nobody: exactly one kill(2), failing with EPERM.
with open(kill) as f:
    k = json.load(f)
kills = [s for s in k["sites"] if s["nr"] == 62]
eq(sum(s["calls"] for s in kills), 1, "kill -0 1: kill calls")
eq(sum(s["errors"] for s in kills), 1, "kill -0 1: kill errors (EPERM)")

# sites 7 3 2 with --log-buffer 1536K: the session says what was asked, its
# memory, finished and its log drained, holds no ring (1 MiB each), and the
# log has every call.
t = Trace(logged)
eq(t.session["log_buffer"], 1536 << 10, "log session: log_buffer (as asked)")
eq(t.session["dropped_events"], 0, "log session: dropped_events")
# The same run as full's but for the log, finished and its log drained:
# its rings (one a CPU of /sys/devices/system/cpu/possible, each the power
# of 2 at most --log-buffer, 1536K: 1 MiB) are gone, and its memory is
# exactly full's.
eq(t.session["mem_bytes"], Trace(full).session["mem_bytes"],
   "log session, finished and drained: mem_bytes, as the same run's without a log (none of its %s rings of 1 MiB)" % ncpus)
with open(log_csv, newline="") as f:
    evs = [r for r in csv.DictReader(f) if r["event"] == "syscall"]
eq(len(evs), t.session["syscalls"], "log session: syscall events")
done()
