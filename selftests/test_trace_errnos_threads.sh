#!/usr/bin/env bash
# Errnos per site from threads, and past a row's 4 slots: progs/errnomix
# with 1 then 4 threads. site_mix fails with 6 errnos (in one order in
# every thread): with 1 thread the first 4 met are kept, exact, and the
# other 2 are errno_other; with 4, each errno kept has its exact total and
# the slots plus errno_other add up to the errors (the module, which folds
# each thread's slots into the row by errno, keeps the same first 4).
# site_four gets 4 errnos spread over the threads: all exact, other 0.
# tags: trace debug bpf bpf-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog errnomix
on_exit mod_unload_quiet
mod_load

P=$PROGS/errnomix
off_mix=$(elf_offset "$P" site_mix_insn) || exit 1
off_four=$(elf_offset "$P" site_four_insn) || exit 1
log "syscall instructions at file offsets: site_mix $off_mix, site_four $off_four"

mkdir -p "$T/one" "$T/four"
trace -- "$P" "$T/one" 1
assert_eq "$TRACE_RC" 0 "exit status of errnomix DIR 1: $TRACE_ERR"
one=$D
trace -- "$P" "$T/four" 4
assert_eq "$TRACE_RC" 0 "exit status of errnomix DIR 4: $TRACE_ERR"

pycheck test_trace_errnos_threads.py "$one" "$D" "$P" "$off_mix" "$off_four"
