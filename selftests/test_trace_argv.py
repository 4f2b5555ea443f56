# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_argv.sh, run by its pycheck after the traces."""
import codecs
import csv
import json
import os
import re

from trace_check import begin, done, eq, expect, log, shell_quote, shell_split, Trace

ARGV_MAX = 4096

ARGS = begin()
d, out, prog, tmp, pause, filler = ARGS


def cmdline(name):
    """What /proc/self/cmdline said inside the image: its arguments."""
    with open(os.path.join(out, name + ".cmdline"), "rb") as f:
        b = f.read()
    expect(b.endswith(b"\0"), "%s.cmdline ends in NUL" % name)
    return b


def cut(b):
    """b as the module keeps it: whole, or cut at an argument's end."""
    if len(b) <= ARGV_MAX:
        return b, False
    return b[:b.rindex(b"\0", 0, ARGV_MAX) + 1], True


def args(b):
    return b.split(b"\0")[:-1]


def as_json(b):
    return [a.decode("utf-8", "replace") for a in args(b)]


t = Trace(d)
with open(os.path.join(d, "procs.csv"), newline="") as f:
    rows = {int(r["id"]): r for r in csv.DictReader(f)}
eq(len(t.procs), 6, "process rows: root, 2 forks, exec1, its fork, long")
root = t.root()
kids = t.children(root)
forks = [p for p in kids if p["prev_id"] is None]
execs = [p for p in kids if p["prev_id"] is not None]
eq(len(forks), 2, "images the root forked")
eq(len(execs), 2, "images its children exec'd")
exec1 = t.proc("exec1", exe=prog, prev_id=forks[0]["id"])
longi = t.proc("long", prev_id=forks[1]["id"])
e1kids = t.children(exec1) if exec1 else []
eq(len(e1kids), 1, "exec1's forked child")

want = {}
want[root["id"]] = (cmdline("root"), False)
for p in forks:
    want[p["id"]] = want[root["id"]]		# a fork shares its image's argv
if exec1:
    want[exec1["id"]] = (cmdline("exec1"), False)
    eq(cmdline("exec1.child"), cmdline("exec1"), "exec1's child's own cmdline")
    for p in e1kids:
        want[p["id"]] = want[exec1["id"]]
if longi:
    full = cmdline("long")
    eq(len(full), len(prog) + 1 + 5 + len(out) + 1 + 60 * 100, "long.cmdline's bytes")
    want[longi["id"]] = cut(full)
    log("long: %d bytes, kept %d" % (len(full), len(want[longi["id"]][0])))
    eq(len(args(want[longi["id"]][0])), 3 + (ARGV_MAX - len(prog) - len(out) - 7) // 100,
       "long: whole arguments kept")

e1 = [prog.encode(), b"exec1", out.encode(), b"a b", b"it's", b"", b"x\xffy", b"l1\nl2"]
eq(args(want[exec1["id"]][0]) if exec1 else None, e1, "exec1's cmdline: the argv it was given")
# The command line, exactly (the quoting docs/semantics.md gives).
eq(rows[exec1["id"]]["argv"] if exec1 else None,
   "%s exec1 %s 'a b' 'it'\\''s' '' $'x\\xffy' $'l1\\nl2'" % (prog, out),
   "exec1's CSV argv")

for p in t.procs:
    w = "row %d (%s)" % (p["id"], p["comm"])
    b, trunc = want.get(p["id"], (None, None))
    eq(p["argv"], as_json(b), w + ": JSON argv")
    eq(p["argv_truncated"], trunc, w + ": JSON argv_truncated")
    r = rows[p["id"]]
    eq(r["argv"], shell_quote(args(b)), w + ": CSV argv")
    eq(shell_split(r["argv"]), args(b), w + ": CSV argv as bash reads it")
    eq(r["argv_truncated"], "1" if trunc else "0", w + ": CSV argv_truncated")
eq(t.session["dropped_argv"], 0, "dropped_argv")

# The log: each exec event carries its image's argv; forks and exits none.
execs_by_pid = {}
for p in t.procs:
    if p["prev_id"] is not None or p is root:
        execs_by_pid.setdefault(p["pid"], []).append(want[p["id"]])
with open(os.path.join(tmp, "argv.csv"), newline="") as f:
    ev = list(csv.DictReader(f))
got = [(int(e["pid"]), e["argv"], e["argv_truncated"]) for e in ev if e["event"] == "exec"]
eq(sorted(got), sorted((pid, shell_quote(args(b)), "1" if tr else "0")
                       for pid, l in execs_by_pid.items() for b, tr in l), "CSV log: exec events' argv")
eq([e["argv"] for e in ev if e["event"] != "exec" and e["argv"]], [], "CSV log: argv of other events")
with open(os.path.join(tmp, "argv.jsonl")) as f:
    ev = [json.loads(line) for line in f]
got = [(e["pid"], e["argv"], e["argv_truncated"]) for e in ev if e["event"] == "exec"]
eq(sorted(got), sorted((pid, as_json(b), tr) for pid, l in execs_by_pid.items() for b, tr in l),
   "JSONL log: exec events' argv")
with open(os.path.join(tmp, "argv.chrome.json")) as f:
    ev = json.load(f)["traceEvents"]
got = [(e["args"]["argv"], e["args"]["argv_truncated"]) for e in ev
       if e.get("name") == "exec" and e.get("ph") == "i"]
eq(sorted(got), sorted((as_json(b), tr) for l in execs_by_pid.values() for b, tr in l),
   "Chrome log: exec events' argv")
# protoc's text of the Perfetto log: the interned annotation names, then
# each exec's argv (a string) and argv_truncated (a bool), in that order.
with open(os.path.join(tmp, "argv.pftrace.txt"), encoding="utf-8") as f:
    pf = f.read()
names = {int(i): n for i, n in re.findall(
    r'debug_annotation_names \{\s*iid: (\d+)\s*name: "([a-z_]+)"\s*\}', pf)}
annots = re.findall(r'debug_annotations \{\s*name_iid: (\d+)\s*'
                    r'(string_value|bool_value|uint_value): ("(?:[^"\\]|\\.)*"|\w+)\s*\}', pf)
got, cur = [], None
for iid, kind, v in annots:
    name = names.get(int(iid))
    if name == "argv":
        cur = codecs.escape_decode(v[1:-1].encode())[0].decode("utf-8")
    elif name == "argv_truncated":
        got.append((cur, v == "true"))
        cur = None
eq(sorted(got), sorted((shell_quote(args(b)), tr) for l in execs_by_pid.values() for b, tr in l),
   "Perfetto log (protoc --decode): exec events' argv and argv_truncated")

# max_mem: the argv refused, and only it.
b1 = Trace(os.path.join(tmp, "big1"))
b2 = Trace(os.path.join(tmp, "big2"))
big = [pause, filler]
eq(b1.procs[0]["argv"], big, "big: argv with room")
eq(b1.session["dropped_argv"], 0, "big: dropped_argv with room")
eq(b1.session["dropped_nomem"], 0, "big: dropped_nomem with room")
eq(b2.procs[0]["argv"], None, "big: argv without room")
eq(b2.procs[0]["argv_truncated"], None, "big: argv_truncated without room")
eq(b2.session["dropped_argv"], 1, "big: dropped_argv without room")
eq(b2.session["dropped_nomem"], 1, "big: dropped_nomem without room")
alen = sum(len(a) + 1 for a in big)
eq(b1.session["mem_bytes"] - b2.session["mem_bytes"], 12 + alen,
   "big: mem_bytes less by the argv (12 + %d bytes)" % alen)
strip = ("session_id", "id", "pid", "tgid", "ppid", "start_ns", "start_time", "argv", "argv_truncated",
         "sys_time_ns", "user_time_ns", "syscall_ns", "voluntary_ctxt_switches",
         "involuntary_ctxt_switches", "minor_faults", "major_faults", "end_ns", "wall_ns")
eq({k: v for k, v in b2.procs[0].items() if k not in strip},
   {k: v for k, v in b1.procs[0].items() if k not in strip}, "big: the rest of the row")
eq(sorted((s["nr"], s["calls"]) for s in b2.sites), sorted((s["nr"], s["calls"]) for s in b1.sites),
   "big: the sites")
done()
