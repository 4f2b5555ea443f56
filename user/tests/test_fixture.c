// SPDX-License-Identifier: GPL-2.0
/*
 * The fixture the output tests read: session 7 "build", finished, counting
 * instructions. Image 1 (sh) made 10 syscalls at two sites; image 2, its
 * child, still runs, has a comm that needs CSV quoting and made 5 syscalls
 * at one site. Every total adds up.
 */
#include <stdlib.h>
#include <string.h>
#include "test.h"

void st_fixture(struct st_dump *d)
{
	struct st_proc_row *p;
	struct st_site_row *s;

	memset(d, 0, sizeof(*d));
	d->session = (struct st_session_row){
		.id = 7, .root_pid = 100, .state = SYSTRACE_STATE_FINISHED,
		.flags = SYSTRACE_SESSION_F_ON_EXEC, .created_ns = 500,
		.realtime_base_ns = 1700000000000000000ULL,
		.counters = SYSTRACE_COUNTERS_INSTRUCTIONS,
		.procs = 2, .sites = 3, .syscalls = 15, .errors = 1,
		.syscall_ns = 1500, .forks = 1, .execs = 1, .exits = 1,
		.mem_bytes = 4096, .proc_row_bytes = 256, .site_row_bytes = 128,
		.has_counter_value = true, .counter_value = 20000,
	};
	strcpy(d->session.name, "build");

	d->nprocs = 2;
	d->procs = p = calloc(2, sizeof(*p));
	p[0] = (struct st_proc_row){
		.id = 1, .pid = 100, .tgid = 100, .ppid = 99,
		.start_ns = 1000, .has_end_ns = true, .end_ns = 5000,
		.end = SYSTRACE_END_EXITED, .has_exit_code = true, .exit_code = 0,
		.threads = 1, .syscalls = 10, .errors = 1, .syscall_ns = 1000,
		.sites = 2, .user_ns = 300, .sys_ns = 400, .nvcsw = 5,
		.nivcsw = 6, .minflt = 7, .majflt = 8,
		.has_counter_value = true, .counter_value = 20000,
		.counter_tasks = 1,
	};
	strcpy(p[0].comm, "sh");
	p[0].exe = strdup("/bin/sh");
	p[1] = (struct st_proc_row){
		.id = 2, .parent_id = 1, .pid = 101, .tgid = 101, .ppid = 100,
		.start_ns = 2000, .end = SYSTRACE_END_RUNNING, .threads = 1,
		.syscalls = 5, .errors = 0, .syscall_ns = 500, .sites = 1,
		.attached = true,
	};
	strcpy(p[1].comm, "a,b\"c");

	d->nsites = 3;
	d->sites = s = calloc(3, sizeof(*s));
	s[0] = (struct st_site_row){
		.proc_id = 1, .addr = 0x7f0000001000ULL, .nr = 39,
		.abi = SYSTRACE_ABI_X64, .map = SYSTRACE_MAP_FILE,
		.offset = 0xe1000, .has_file_id = true, .inode = 1234,
		.dev = 2049, .mtime_ns = 1690000000000000000ULL,
		.calls = 6, .errors = 1, .total_ns = 600, .min_ns = 50,
		.max_ns = 200, .first_ns = 1100, .first_ordinal = 0,
	};
	s[0].path = strdup("/usr/lib/x86_64-linux-gnu/libc.so.6");
	s[1] = (struct st_site_row){
		.proc_id = 1, .addr = 0xf7f00000ULL, .nr = 20,
		.abi = SYSTRACE_ABI_IA32, .map = SYSTRACE_MAP_VDSO,
		.offset = 0xf7f00000ULL, .calls = 4, .total_ns = 400,
		.min_ns = 90, .max_ns = 110, .first_ns = 1200,
		.first_ordinal = 3,
	};
	s[2] = (struct st_site_row){
		.proc_id = 2, .addr = 0x401000, .nr = 39,
		.abi = SYSTRACE_ABI_X64, .map = SYSTRACE_MAP_ANON,
		.offset = 0x401000, .calls = 5, .total_ns = 500,
		.min_ns = 100, .max_ns = 100, .first_ns = 2100,
		.first_ordinal = 0,
	};
	st_dump_sort(d);
}
