#!/usr/bin/env bash
# A static 32-bit program: its syscalls are abi=ia32 with ia32 numbers
# (getppid is 64): 300 by int $0x80 from a labelled site of the program,
# 100 through libc (the vDSO's __kernel_vsyscall).
# tags: trace
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog ia32 "no ia32 compiler (gcc -m32, Debian's gcc-multilib) on the build host"
[ -e /proc/sys/abi/vsyscall32 ] || skip "this kernel runs no ia32 programs (CONFIG_IA32_EMULATION)"
on_exit mod_unload_quiet
mod_load

P=$PROGS/ia32
off=$(elf_offset "$P" int80_insn) || exit 1
trace -- "$P" 300 100
assert_eq "$TRACE_RC" 0 "exit status"
pycheck "$D" "$P" "$off" <<'EOF'
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
EOF
