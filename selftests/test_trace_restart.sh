#!/usr/bin/env bash
# Syscalls interrupted by signals: an SA_RESTART read counts twice at its
# site (-ERESTARTSYS is an error, the restart a success) plus one
# rt_sigreturn; without SA_RESTART once, as an error; a nanosleep stopped
# by SIGSTOP goes on as restart_syscall from the same site.
# tags: trace debug bpf bpf-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog restart
on_exit mod_unload_quiet
mod_load

P=$PROGS/restart
off=$(elf_offset "$P" block_site_insn) || exit 1
dirs=()
for mode in restart eintr stop; do
	trace -- "$P" $mode
	assert_eq "$TRACE_RC" 0 "$mode: exit status (0: the call returned what the mode expects)"
	dirs+=("$D")
done
pycheck test_trace_restart.py "$P" "$off" "${dirs[@]}"
