# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_ia32.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
d, prog, off = ARGS
t = Trace(d)
eq(len(t.procs), 1, "process rows")
eq([s["abi"] for s in t.sites if s["abi"] != "ia32"], [], "site rows of another abi than ia32")
s = t.site("the int $0x80 site", path=prog, offset=off)
if s:
    eq(s["abi"], "ia32", "abi at int80_insn")
    eq(s["nr"], 64, "nr at int80_insn")
    eq(s["syscall"], "getppid", "syscall at int80_insn")
    eq(s["map"], "file", "map at int80_insn")
    eq(s["calls"], 300, "calls at int80_insn")
    eq(s["errors"], 0, "errors at int80_insn")
eq(t.calls(nr=64), 400, "getppid (ia32 64) calls")
eq(sum(x["calls"] for x in t.sites_where(nr=64) if x["offset"] != off), 100, "getppid calls through libc")
eq(t.calls(nr=110), 0, "calls with x64 getppid's number 110")
eq(t.calls(nr=252, syscall="exit_group"), 1, "exit_group (ia32 252) calls")
eq([r["syscall"] for r in t.syscalls if r["nr"] == 64], ["getppid"], "the syscalls table's name for ia32 64")
done()
