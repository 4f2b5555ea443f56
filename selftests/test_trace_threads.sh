#!/usr/bin/env bash
# Threads count into their process row: 4 threads x 500 getppid, then 16
# threads x 1000; threads, clones, exit calls and the per-site sum exact.
# tags: trace debug bpf bpf-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog threads
on_exit mod_unload_quiet
mod_load

P=$PROGS/threads
off=$(elf_offset "$P" thread_site_insn) || exit 1

for run in "4 500" "16 1000"; do
	# shellcheck disable=SC2086
	trace -- "$P" $run
	assert_eq "$TRACE_RC" 0 "$run: exit status"
	# shellcheck disable=SC2086
	pycheck test_trace_threads.py "$D" "$P" "$off" $run
done
