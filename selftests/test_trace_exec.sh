#!/usr/bin/env bash
# An exec chain (fork, then a -> b -> c): one row per image linked by
# prev_id, end=exec, the execve counted once in each old image and as a
# success; a failed execve (ENOENT) is an error in its caller.
# tags: trace debug bpf bpf-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog execchain
on_exit mod_unload_quiet
mod_load

P=$PROGS/execchain
off=$(elf_offset "$P" exec_site_insn) || exit 1

trace -- "$P"
assert_eq "$TRACE_RC" 42 "exit status (c's 42, passed on by the root)"
chain=$D
trace -- "$P" fail
assert_eq "$TRACE_RC" 0 "execchain fail: exit status (0: execve failed with ENOENT)"

pycheck test_trace_exec.py "$chain" "$D" "$P" "$off"
