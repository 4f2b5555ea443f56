#!/usr/bin/env bash
# A child killed by SIGKILL in the middle of a getppid loop: end=signaled,
# exit_signal 9, no exit call counted; its parent exited normally.
# tags: trace debug debug-quick bpf bpf-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog sigkill
on_exit mod_unload_quiet
mod_load

P=$PROGS/sigkill
off=$(elf_offset "$P" loop_site_insn) || exit 1
trace -- "$P"
assert_eq "$TRACE_RC" 0 "exit status (0: the child died of SIGKILL)"
pycheck test_trace_sigkill.py "$D" "$P" "$off"
