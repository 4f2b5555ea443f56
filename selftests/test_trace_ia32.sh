#!/usr/bin/env bash
# A static 32-bit program: its syscalls are abi=ia32 with ia32 numbers
# (getppid is 64): 300 by int $0x80 from a labelled site of the program,
# 100 through libc (the vDSO's __kernel_vsyscall).
# tags: trace bpf bpf-quick
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog ia32 "no ia32 compiler (gcc -m32, Debian's gcc-multilib) on the build host"
[ -e /proc/sys/abi/vsyscall32 ] || skip "this kernel runs no ia32 programs (CONFIG_IA32_EMULATION)"
# A kernel built with IA32_EMULATION may still refuse them at exec
# (ia32_emulation=0, or IA32_EMULATION_DEFAULT_DISABLED): ENOEXEC, which
# bash reports as status 126.
"$PROGS/ia32" 0 0 >/dev/null 2>&1
[ $? != 126 ] || skip "this kernel does not execute ia32 programs (ENOEXEC: ia32 emulation disabled at boot or build)"
on_exit mod_unload_quiet
mod_load

P=$PROGS/ia32
off=$(elf_offset "$P" int80_insn) || exit 1
trace -- "$P" 300 100
assert_eq "$TRACE_RC" 0 "exit status"
pycheck test_trace_ia32.py "$D" "$P" "$off"
