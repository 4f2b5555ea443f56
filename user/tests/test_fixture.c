// SPDX-License-Identifier: GPL-2.0
/*
 * The fixture the output tests read: session 7 "build", finished, counting
 * instructions. Image 1 (sh) made 10 syscalls at two sites; image 2, its
 * child, still runs, has a comm that needs CSV quoting and made 5 syscalls
 * at one site. The one error is an EAGAIN. Every total adds up.
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
	if (st_dump_str(d, "/usr/lib/x86_64-linux-gnu/libc.so.6", &s[0].path))
		abort();
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
	/* Site 0's error is an EAGAIN; the others returned none. */
	if (st_dump_errnos(d, &(struct st_errnos){ .n = 1, .v = { { 11, 1 } } },
			   &s[0].errnos) ||
	    st_dump_errnos(d, &(struct st_errnos){ 0 }, &s[1].errnos))
		abort();
	s[2].errnos = s[1].errnos;
	st_dump_sort(d);
}

void st_fixture_symbolized(struct st_dump *d)
{
	st_fixture(d);
	d->symbolized = true;
	if (st_dump_sym(d, &(struct st_sym){
			.object = "/usr/lib/x86_64-linux-gnu/libc.so.6",
			.symbol = "getpid",
			.has_symbol_offset = true,
			.symbol_offset = 0x9,
		}, &d->sites[0].sym))
		abort();
}

/*
 * The status and list fixture: a module with three sessions. Session 3
 * "build" is finished and dropped events; session 12 is unnamed, runs, and
 * its counters failed; session 40's name is longer than list's column and
 * its state is newer than this tool.
 */
void st_fixture_status(struct st_status *st, struct st_session_row ss[3])
{
	memset(st, 0, sizeof(*st));
	strcpy(st->version, "0.3.0-g1234abc");
	st->abi_version = 1;
	st->params = (struct st_params){
		.max_sessions = 16, .max_procs = 65536, .max_sites = 1048576,
		.max_mem_bytes = 268435456, .max_mem_total_bytes = 1073741824,
		.force_late_resolve = true,
	};
	st->sessions_live = 2;
	st->mem_bytes = 1234567;
	st->probes_active = true;

	memset(ss, 0, 3 * sizeof(*ss));
	ss[0] = (struct st_session_row){
		.id = 3, .root_pid = 4242, .state = SYSTRACE_STATE_FINISHED,
		.flags = 1, .created_ns = 1000, .realtime_base_ns = 1700000000000000000ULL,
		.counters = SYSTRACE_COUNTERS_INSTRUCTIONS, .procs = 12, .sites = 340,
		.syscalls = 98765, .errors = 321, .syscall_ns = 5555555,
		.forks = 11, .execs = 12, .exits = 12, .signal_exits = 1,
		.dropped_procs = 1, .dropped_sites = 2, .dropped_syscalls = 3,
		.dropped_nomem = 4, .dropped_resolve = 5, .dropped_counters = 6,
		.late_resolves = 7, .mem_bytes = 524288, .proc_row_bytes = 256,
		.site_row_bytes = 128, .has_counter_value = true,
		.counter_value = 123456789,
	};
	strcpy(ss[0].name, "build");
	ss[1] = (struct st_session_row){
		.id = 12, .root_pid = 77, .state = SYSTRACE_STATE_RUNNING,
		.live_tasks = 3, .counters = SYSTRACE_COUNTERS_CYCLES,
		.has_counters_error = true, .procs = 1, .sites = 2, .syscalls = 3,
		.mem_bytes = 8192, .proc_row_bytes = 256, .site_row_bytes = 128,
	};
	strcpy(ss[1].counters_error, "no PMU, e.g. in a VM");
	ss[2] = (struct st_session_row){
		.id = 40, .root_pid = 1, .state = 99, .counters = 99,
		.syscalls = 18446744073709551615ULL,
		.dropped_syscalls = 10,
	};
	strcpy(ss[2].name, "a-name-longer-than-16");
}
