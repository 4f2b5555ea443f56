#!/usr/bin/env bash
# Late resolution of a site's mapping, made deterministic by the module's
# force_late_resolve (every first hit behaves as if the mmap lock were
# busy). Threads: every site resolves on the way back to user mode, a
# thread's exit through a sibling's address space; only exit_group stays
# unknown. An exec chain: each image's execve and each final exit_group
# stay unknown, counted in dropped_resolve; everything else resolves to
# the same file and offset as without the parameter.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog threads
need_prog execchain
on_exit mod_unload_quiet
mod_load force_late_resolve=1
assert_eq "$(mod_param force_late_resolve)" Y "force_late_resolve after insmod"

TP=$PROGS/threads
toff=$(elf_offset "$TP" thread_site_insn) || exit 1
E=$PROGS/execchain
eoff=$(elf_offset "$E" exec_site_insn) || exit 1

# The main thread lingers 300 ms after its joins: a join returns when a
# thread's mm is released, before its exit's task work runs, and that work
# hands the exit site's resolution to a live sibling; without the linger,
# main may already be in exit_group (seen once on the debug kernel).
trace -- "$TP" 4 50 300
assert_eq "$TRACE_RC" 0 "threads: exit status"
dthreads=$D
trace -- "$E"
assert_eq "$TRACE_RC" 42 "execchain: exit status"
dchain=$D

pycheck test_trace_late_resolve.py "$dthreads" "$TP" "$toff" "$dchain" "$E" "$eoff"

# Back to normal: the same chain resolves every site at its first hit.
echo 0 >/sys/module/systrace/parameters/force_late_resolve
trace -- "$E"
assert_eq "$TRACE_RC" 42 "execchain, parameter off: exit status"
pycheck test_trace_late_resolve.off.py "$D" "$E" "$eoff"
