// SPDX-License-Identifier: GPL-2.0
/*
 * The per-call floor of the BPF backend: programs of the same type on the
 * same tracepoints as bpf/systrace.bpf.c's (tp_btf sys_enter and sys_exit)
 * that return at once. What a syscall costs with them attached is what the
 * kernel charges any tracer of this kind before it does any work of its
 * own; bench/host/run's bpf_floor variant runs a workload beside them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int st_floor_enter(void *ctx)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int st_floor_exit(void *ctx)
{
	return 0;
}
