#!/usr/bin/env bash
# The module and the BPF backend, one after the other on the same kernel,
# trace the same programs (forks 5, sites 1000 250 37, execchain) and agree
# exactly: the same process rows (exe, end, exit code, threads, syscalls,
# errors, sites) and the same calls and errors per (image, file, offset,
# syscall, abi). It skips only on a kernel without BTF.
# tags: trace
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
[ "${SYSTRACE_BACKEND:-kmod}" = kmod ] || skip "compares the BPF backend with the module: needs the module"
need_root
need_prog forks
need_prog sites
need_prog execchain
on_exit mod_unload_quiet
on_exit bpf_sessions_delete
# The one reason to skip: a kernel without BTF, which the backend needs.
# Anything else that stops the BPF backend (a program the verifier
# refuses, whatever its exit status) fails the test.
[ -r /sys/kernel/btf/vmlinux ] || skip "this kernel has no BTF (/sys/kernel/btf/vmlinux)"
mod_load
"$SYSTRACECTL" start --backend bpf --quiet --counters none -- /bin/true 2>"$T/probe.err"
assert_eq "$?" 0 "systracectl start --backend bpf -- /bin/true ($(cat "$T/probe.err"))"
bpf_sessions_delete

dirs=()
for cmd in "forks 5" "sites 1000 250 37" "execchain"; do
	# shellcheck disable=SC2086 # the program and its arguments
	trace -- "$PROGS"/$cmd
	dirs+=("$D")
	# shellcheck disable=SC2086
	SYSTRACE_BACKEND=bpf trace -- "$PROGS"/$cmd
	dirs+=("$D")
done
pycheck test_trace_backends.py "${dirs[@]}"
