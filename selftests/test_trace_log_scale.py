# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_log_scale.sh, run by its pycheck after the trace."""
import json
import os

from trace_check import begin, done, eq, expect, Trace

ARGS = begin()
tmp, prog, d_big = ARGS
t = Trace(d_big)


def load(name):
    with open(os.path.join(tmp, name)) as f:
        return json.load(f)


syscalls = t.session["syscalls"]
expect(syscalls >= 2000040, "the session counted at least the program's 2,000,040 calls (%d)" % syscalls)
eq(t.session["dropped_events"], 0, "no event dropped from the log (64M buffer)")
eq(t.calls(path=prog), 2000040, "the program's own calls in the rows")

log_sys, dump_sys = load("log.syscalls.json"), load("dump.syscalls.json")
log_am, dump_am = load("log.amortize.json"), load("dump.amortize.json")
log_ph = load("log.phases.json")

# Events equal syscalls: the log read back has the session's every call.
eq(log_sys["session"]["syscalls"], syscalls, "the log's syscall events = the session's syscalls")
eq(log_sys["session"]["processes"], len(t.procs), "the log's images = the dump's process rows")
eq(log_sys["session"]["sites"], len(t.sites), "the log's site rows = the dump's site rows")
for k in ("totals", "syscalls"):
    eq(log_sys[k], dump_sys[k], "report syscalls: table %s of the log = of the dump" % k)
for k in ("totals", "histogram", "thresholds"):
    eq(log_am[k], dump_am[k], "report amortize: table %s of the log = of the dump" % k)


# An image that exec'd ends, in the log, where the next one starts (the
# exec event's time); the module's end of it comes a little earlier.
def no_wall(rows):
    return [{k: v for k, v in r.items() if k != "wall_ns"} for r in rows]


eq(no_wall(log_am["processes"]), no_wall(dump_am["processes"]),
   "report amortize: table processes of the log = of the dump, but for wall_ns")
ends = {p["id"]: p["end"] for p in t.procs}
eq([r["wall_ns"] for r in log_am["processes"] if ends[r["proc_id"]] != "exec"],
   [r["wall_ns"] for r in dump_am["processes"] if ends[r["proc_id"]] != "exec"],
   "report amortize: wall_ns of the log = of the dump for every image that did not exec")

# Per image, the phases of the log are what the rows say.
LD = "ld-linux-x86-64.so.2"
rows = {p["id"]: p for p in t.procs}
by_img = {}
for s in sorted(t.sites, key=lambda s: (s["proc_id"], s["first_ordinal"])):
    by_img.setdefault(s["proc_id"], []).append(s)
checked = 0
for ph in log_ph["processes"]:
    p = rows[ph["proc_id"]]
    sites = by_img.get(p["id"], [])
    if ph["interp_source"] == "fork":
        want = 0
    else:
        outside = [s for s in sites if not (s["path"] or "").endswith(LD)]
        want = outside[0]["first_ordinal"] if outside else p["syscalls"]
    eq((ph["loader_calls"], ph["program_calls"]), (want, p["syscalls"] - want),
       "image %d (%s): loader and program calls of the log = the first_ordinal of its first site row outside %s"
       % (p["id"], p["comm"], LD))
    checked += 1
eq(checked, len(t.procs), "report phases of the log: every image")
eq(sum(ph["loader_calls"] + ph["program_calls"] for ph in log_ph["processes"]), syscalls,
   "report phases of the log: every call has a phase")
done()
