# SPDX-License-Identifier: GPL-2.0
"""Checks of test_bpf_progs_kept.sh: T DIGEST."""
import json
import os
from trace_check import begin, done, eq, expect

NAMES = ["st_exec", "st_exit", "st_fork", "st_sys_enter", "st_sys_exit"]
KINDS = ["procs", "sites", "files", "argv"]


def lines(t, name):
    with open(os.path.join(t, name)) as f:
        return f.read().split("\n")[:-1]


def loaded(t, name):
    """NAME ID lines: [(name, id)] in the order bpfq gives (by name)."""
    return [(ln.split()[0], int(ln.split()[1])) for ln in lines(t, name)]


def spares(t, name):
    """KIND ID lines: {kind: id}."""
    return {ln.split()[0]: int(ln.split()[1]) for ln in lines(t, name)}


def inner(t, name):
    """NAME.KIND, bpftool's dump of an array of maps: {kind: set of the map ids at its slots}."""
    out = {}
    for k in KINDS:
        with open(os.path.join(t, "%s.%s" % (name, k))) as f:
            out[k] = {int.from_bytes(bytes(int(x, 16) for x in e["value"]), "little") for e in json.load(f)}
    return out


t, digest = begin()
expect(len(digest) == 16, "the digest of the pins: 16 hex digits, got %r" % digest)
pinned = ["prog-%s-%s" % (digest, n) for n in NAMES]

first = loaded(t, "first.loaded")
eq([n for n, _ in first], NAMES, "first: the programs loaded once the session ended")
eq(lines(t, "first.pins"), pinned, "first: the pins")
sp1 = spares(t, "first.spares")
eq(sorted(sp1), sorted(KINDS), "first: the spares its keeper left")
put = inner(t, "first.inner")
eq([k for k in KINDS if sp1.get(k) in put[k]], KINDS, "first: the spares put at a slot ahead of the next start")

eq(lines(t, "again.attached"), ["5"], "again: programs attached while the session runs")
eq(loaded(t, "again.during"), first, "again: the programs loaded while it runs, by id")
eq(loaded(t, "again.loaded"), first, "again: the programs loaded once it ended, by id")
at = inner(t, "again.inner")
for k in KINDS:
    expect(sp1.get(k) in at[k], "again: the spare %s (id %r) at a slot of %s: %r" % (k, sp1.get(k), k, sorted(at[k])))
eq(lines(t, "again.spare_pins"), [], "again: spare pins while it runs")
sp2 = spares(t, "again.spares")
eq(sorted(sp2), sorted(KINDS), "again: the spares its keeper left")
eq([k for k in KINDS if sp2.get(k) == sp1.get(k)], [], "again: spares its keeper left that are the first's")

lim = inner(t, "limits.inner")
eq([k for k in KINDS if sp2.get(k) in lim[k]], ["sites", "files"],
   "limits: the spares at a slot (max_procs 64: procs and argv made for it)")

stranger = loaded(t, "stranger.loaded")
eq([n for n, _ in stranger], NAMES, "stranger: the programs loaded once the session ended")
kept = dict(first)
eq([(n, i) for n, i in stranger if n != "st_sys_enter"], [(n, i) for n, i in first if n != "st_sys_enter"],
   "stranger: the 4 programs whose pins were whole, by id")
expect(dict(stranger)["st_sys_enter"] not in kept.values(),
       "stranger: st_sys_enter loaded again, got id %d" % dict(stranger)["st_sys_enter"])
eq(lines(t, "stranger.pins"), pinned, "stranger: the pins")
done()
