# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_sites.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, Trace

ARGS = begin()
d1, d2, prog, off_a, off_b, off_c, inode = ARGS
t = Trace(d1)
eq(len(t.procs), 1, "process rows")
p = t.root()
eq(p["exe"], prog, "exe")
eq(p["end"], "exited", "end")
eq(p["exit_code"], 0, "exit_code")
eq(p["threads"], 1, "threads")

# Exactly these three sites lie in the program's own file.
eq(len(t.sites_where(path=prog)), 3, "site rows in the program")
eq(len(t.sites_where(nr=110)), 2, "getppid site rows")
eq(t.calls(nr=110), 1250, "getppid calls")
want = {off_a: (110, "getppid", 1000, 0), off_b: (110, "getppid", 250, 0), off_c: (3, "close", 37, 37)}
rows = {}
for off, (nr, name, calls, errors) in want.items():
    s = t.site("site at %s" % off, path=prog, offset=off)
    if not s:
        continue
    rows[off] = s
    w = "site at " + off
    eq(s["nr"], nr, w + ": nr")
    eq(s["syscall"], name, w + ": syscall")
    eq(s["abi"], "x64", w + ": abi")
    eq(s["map"], "file", w + ": map")
    eq(s["calls"], calls, w + ": calls")
    eq(s["errors"], errors, w + ": errors")
    expect(s["min_ns"] <= s["avg_ns"] <= s["max_ns"], w + ": min_ns <= avg_ns <= max_ns")
    eq(s["inode"], int(inode), w + ": inode of the program")
if len(rows) == 3:
    a, b, c = rows[off_a], rows[off_b], rows[off_c]
    # One mapping: address - offset is the same for the three sites.
    eq(len({int(r["addr"], 16) - int(r["offset"], 16) for r in rows.values()}), 1,
       "load biases (addr - offset) of the three sites")
    # Nothing between the loops: site b's first call comes exactly 1000
    # syscalls after site a's, site c's 250 after site b's.
    eq(b["first_ordinal"], a["first_ordinal"] + 1000, "first_ordinal of site b")
    eq(c["first_ordinal"], b["first_ordinal"] + 250, "first_ordinal of site c")
    expect(a["first_ns"] < b["first_ns"] < c["first_ns"], "first_ns in call order")

# Other numbers give other counts.
t = Trace(d2)
eq(t.calls(path=prog, offset=off_a), 7, "7 3 2: calls at site a")
eq(t.calls(path=prog, offset=off_b), 3, "7 3 2: calls at site b")
eq(t.errors(path=prog, offset=off_c), 2, "7 3 2: errors at site c")
done()
