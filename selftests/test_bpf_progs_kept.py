# SPDX-License-Identifier: GPL-2.0
"""Checks of test_bpf_progs_kept.sh: T DIGEST."""
import os
from trace_check import begin, done, eq, expect

NAMES = ["st_exec", "st_exit", "st_fork", "st_sys_enter", "st_sys_exit"]


def lines(t, name):
    with open(os.path.join(t, name)) as f:
        return f.read().split("\n")[:-1]


def loaded(t, name):
    """NAME ID lines: [(name, id)] in the order bpfq gives (by name)."""
    return [(ln.split()[0], int(ln.split()[1])) for ln in lines(t, name)]


t, digest = begin()
expect(len(digest) == 16, "the digest of the pins: 16 hex digits, got %r" % digest)
pinned = ["prog-%s-%s" % (digest, n) for n in NAMES]

first = loaded(t, "first.loaded")
eq([n for n, _ in first], NAMES, "first: the programs loaded once the session ended")
eq(lines(t, "first.pins"), pinned, "first: the pins")

eq(lines(t, "again.attached"), ["5"], "again: programs attached while the session runs")
eq(loaded(t, "again.during"), first, "again: the programs loaded while it runs, by id")
eq(loaded(t, "again.loaded"), first, "again: the programs loaded once it ended, by id")

stranger = loaded(t, "stranger.loaded")
eq([n for n, _ in stranger], NAMES, "stranger: the programs loaded once the session ended")
kept = dict(first)
eq([(n, i) for n, i in stranger if n != "st_sys_enter"], [(n, i) for n, i in first if n != "st_sys_enter"],
   "stranger: the 4 programs whose pins were whole, by id")
expect(dict(stranger)["st_sys_enter"] not in kept.values(),
       "stranger: st_sys_enter loaded again, got id %d" % dict(stranger)["st_sys_enter"])
eq(lines(t, "stranger.pins"), pinned, "stranger: the pins")
done()
