# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_reports.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, log, Trace

ARGS = begin()
import collections, json, re
d, tdir, prog = ARGS
t = Trace(d)
p = t.proc("the program's image", comm="sites")
LD = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"

# strace -k: "[PID ]name(args) = ret" then " > OBJ(fn+off) [0xOFF]" frames;
# the PID is left out while strace has only ever traced one process.
calls, cur = [], None
for line in open(tdir + "/strace.txt"):
    m = re.match(r"(?:(\d+) +)?([a-z_0-9]+)\(", line)
    if m:
        pid = int(m.group(1)) if m.group(1) else p["pid"]
        cur = {"pid": pid, "name": m.group(2), "frame": None}
        calls.append(cur)
        continue
    m = re.match(r" > (\S+?)\(.*\) \[0x([0-9a-f]+)\]", line)
    if m and cur is not None and cur["frame"] is None:
        cur["frame"] = (m.group(1), int(m.group(2), 16) - 2)
mine = [c for c in calls if c["pid"] == p["pid"]]
# Its execve belongs to the image that called it (strace's child).
eq(mine[0]["name"], "execve", "strace's first call of the program's pid")
mine = mine[1:]
eq(len(mine), p["syscalls"], "syscalls strace saw in the program's image")

want = collections.Counter((c["frame"][0], c["frame"][1], c["name"]) for c in mine)
got = collections.Counter()
for s in t.sites_where(proc_id=p["id"]):
    got[(s["path"], int(s["offset"], 16), s["syscall"])] += s["calls"]
eq(dict(got), dict(want), "calls per (object, offset, syscall): module vs strace -k")

loader = 0
for c in mine:
    if c["frame"][0] != LD:
        break
    loader += 1
log("program: %d syscalls at %d (object, offset, syscall) keys, %d in the loader phase"
    % (len(mine), len(want), loader))
ph = json.load(open(tdir + "/phases.json"))
row = [r for r in ph["processes"] if r["proc_id"] == p["id"]]
eq(len(row), 1, "phases row of the program")
if row:
    eq(row[0]["loader_calls"], loader, "loader-phase calls: report phases vs strace -k")
    eq(row[0]["program_calls"], len(mine) - loader, "program-phase calls")

# Non-amortized sites: one patch per instruction, so per (object, offset).
per_insn = collections.Counter()
for (obj, off, name), n in want.items():
    per_insn[(obj, off)] += n
am = json.load(open(tdir + "/amortize.json"))
prow = [r for r in am["processes"] if r["proc_id"] == p["id"]]
eq(len(prow), 1, "amortize row of the program")
if prow:
    eq(prow[0]["sites"], len(per_insn), "instructions (sites) in the program")
    eq(prow[0]["sites_below"], sum(1 for n in per_insn.values() if n < 16),
       "sites hit fewer than 16 times: report amortize vs strace -k")

# Symbols of the raw syscall sites: the nm function that holds each one,
# at the offset of its syscall instruction (the label NAME_insn) in it.
addr, size = {}, {}
for line in open(tdir + "/nm.txt"):
    f = line.split()
    if len(f) == 4:
        addr[f[3]], size[f[3]] = int(f[0], 16), int(f[1], 16)
    elif len(f) == 3:
        addr[f[2]] = int(f[0], 16)
sym = json.load(open(tdir + "/sym.json"))["sites"]
named = {}
for s in sym:
    if s["proc_id"] == p["id"] and s["path"] == prog and s["nr"] in (110, 3):
        named[s["calls"]] = (s["symbol"], s["symbol_offset"])
want = {}
for calls, f in ((40, "site_a"), (20, "site_b"), (17, "site_c")):
    if expect(f in addr and f in size and f + "_insn" in addr, "nm lists %s, its size and %s_insn" % (f, f)):
        off = addr[f + "_insn"] - addr[f]
        expect(0 <= off < size[f], "nm: %s_insn (+0x%x) lies in %s's %d bytes" % (f, off, f, size[f]))
        want[calls] = (f, "0x%x" % off)
eq(named, want, "symbols and offsets of the three sites (calls: (symbol, symbol_offset)) vs nm")
done()
