#!/usr/bin/env bash
# A process whose leader leaves by SYS_exit (code 5) before its other
# thread (code 9, also by SYS_exit): its row ends "exited" with the code
# wait(2) reports. On the kernels under test (5.19 and later) that is the
# last thread's, 9: the thread whose exit leaves no live thread records
# its code as the group's (synchronize_group_exit()), so a row saying 5,
# the leader's, is wrong. Both exits at one site, exit_group never called.
# tags: trace debug bpf bpf-quick
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog leaderexit
on_exit mod_unload_quiet
mod_load

P=$PROGS/leaderexit
off=$(elf_offset "$P" exit_site_insn) || exit 1

# What wait(2) says without the module: the shell's $?.
"$P"
rc=$?
assert_eq "$rc" 9 "untraced: the exit status the shell's wait sees"

trace -- "$P"
assert_eq "$TRACE_RC" 9 "traced: exit status (systracectl start passes CMD's on)"
pycheck test_trace_leader_exit.py "$D" "$P" "$off"
