// SPDX-License-Identifier: GPL-2.0
/*
 * A temporal log of a synthetic build, with exactly known counts, for the
 * readers' tests and benchmarks (it writes the log's columns itself, not
 * through lib/: a writer's bug does not hide a reader's).
 *
 *   log_gen [-n CHILDREN] [-k CALLS] [-j JOBS] [--jsonl] [-o FILE]
 *
 * Image 1, "make" (pid 1000, exec'd, the root), makes 4 loader-phase calls
 * from ld.so and 2 program-phase calls, then runs CHILDREN children, JOBS
 * at a time: child c is a fork image ("make", pid 2000 + c, no call) that
 * execs image "cc" (same pid) making CALLS calls (CALLS >= 2): the first
 * CALLS / 4 (at least 1) from ld.so (8 sites, then again), the rest from
 * libc (16 sites, then again), one call each microsecond, each 400 ns;
 * cc exits with status c % 3; make waits for it (wait4 from libc, one
 * site). make exits last, status 0. Events are in log order.
 *
 * Exact totals (printed to stderr as "key value" lines):
 *   images   1 + 2 CHILDREN
 *   syscalls 6 + CHILDREN (CALLS + 1)
 *   events   syscalls + 1 exec + CHILDREN (fork, exec, exit) + 1 exit
 *   loader   4 + CHILDREN max(1, CALLS / 4)
 *   sites    rows with a site: 6 (make's first calls), make's wait4 if
 *            CHILDREN, and CHILDREN x (min(8, loader) + min(16, program))
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LD "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LD_BASE 0x7f0000001000ULL
#define LIBC_BASE 0x7f0000100000ULL

static bool jsonl;
static FILE *out;

struct ev {
	const char *event;
	uint64_t proc_id, seq, ts, dur;
	uint32_t pid;
	const char *comm;
	bool syscall;
	uint32_t nr;
	const char *name;
	int64_t ret;
	uint64_t addr, offset;
	const char *path, *symbol, *phase;
	uint64_t child_proc_id;
	uint32_t child_pid;
	int exit_code;
	/* exec: argv as the CSV writes it (a command line) and as JSON */
	const char *argv_csv, *argv_json;
};

static void field_u(bool on, uint64_t v, bool last)
{
	if (jsonl)
		return;
	if (on)
		fprintf(out, "%" PRIu64, v);
	fputc(last ? '\n' : ',', out);
}

static void emit(const struct ev *e)
{
	bool sc = e->syscall;

	if (jsonl) {
		fprintf(out, "{\"session_id\":7,\"proc_id\":%" PRIu64 ",\"pid\":%u,\"tid\":%u,\"comm\":\"%s\","
			"\"seq\":", e->proc_id, e->pid, e->pid, e->comm);
		if (sc)
			fprintf(out, "%" PRIu64, e->seq);
		else
			fputs("null", out);
		fprintf(out, ",\"ts_ns\":%" PRIu64 ",\"event\":\"%s\"", e->ts, e->event);
		if (sc)
			fprintf(out, ",\"dur_ns\":%" PRIu64 ",\"abi\":\"x64\",\"nr\":%u,\"syscall\":\"%s\","
				"\"ret\":%" PRId64 ",%s\"addr\":\"0x%" PRIx64 "\",\"map\":\"file\",\"path\":\"%s\","
				"\"offset\":\"0x%" PRIx64 "\",\"symbol\":\"%s\",\"phase\":\"%s\",\"early\":%s",
				e->dur, e->nr, e->name, e->ret, e->ret == -2 ? "\"errno\":2," : "",
				e->addr, e->path, e->offset,
				e->symbol, e->phase, strcmp(e->phase, "loader") ? "false" : "true");
		if (e->path && !sc)
			fprintf(out, ",\"path\":\"%s\"", e->path);
		if (e->child_proc_id)
			fprintf(out, ",\"child_proc_id\":%" PRIu64 ",\"child_pid\":%u",
				e->child_proc_id, e->child_pid);
		if (e->exit_code >= 0)
			fprintf(out, ",\"exit_code\":%d", e->exit_code);
		if (e->argv_json)
			fprintf(out, ",\"argv\":%s,\"argv_truncated\":false", e->argv_json);
		fputs("}\n", out);
		return;
	}
	fprintf(out, "7,%" PRIu64 ",%u,%u,%s,", e->proc_id, e->pid, e->pid, e->comm);
	field_u(sc, e->seq, false);
	field_u(true, e->ts, false);
	field_u(sc, e->dur, false);
	fprintf(out, "%s,", e->event);
	if (sc)
		fprintf(out, "x64,%u,%s,%" PRId64 ",%s,0x%" PRIx64 ",file,%s,0x%" PRIx64 ",%s,%s,%d,",
			e->nr, e->name, e->ret, e->ret == -2 ? "2" : "", e->addr, e->path,
			e->offset, e->symbol, e->phase, !strcmp(e->phase, "loader"));
	else
		fprintf(out, ",,,,,,,%s,,,,,", e->path ? e->path : "");
	field_u(e->child_proc_id, e->child_proc_id, false);
	field_u(e->child_proc_id, e->child_pid, false);
	field_u(e->exit_code >= 0, (uint64_t)e->exit_code, false);
	/* exit_signal, never set, then argv and argv_truncated */
	if (e->argv_csv)
		fprintf(out, ",%s,0,\n", e->argv_csv);
	else
		fputs(",,,\n", out);
}

static const struct {
	uint32_t nr;
	const char *name;
} ld_calls[8] = {
	{ 12, "brk" }, { 9, "mmap" }, { 21, "access" }, { 257, "openat" },
	{ 262, "newfstatat" }, { 3, "close" }, { 10, "mprotect" }, { 158, "arch_prctl" },
}, libc_calls[16] = {
	{ 0, "read" }, { 1, "write" }, { 257, "openat" }, { 3, "close" },
	{ 262, "newfstatat" }, { 9, "mmap" }, { 11, "munmap" }, { 12, "brk" },
	{ 8, "lseek" }, { 17, "pread64" }, { 16, "ioctl" }, { 89, "readlink" },
	{ 72, "fcntl" }, { 217, "getdents64" }, { 79, "getcwd" }, { 102, "getuid" },
};

static void syscall_ev(struct ev *e, uint64_t proc_id, uint32_t pid,
		       const char *comm, uint64_t seq, uint64_t ts, bool loader,
		       unsigned int site)
{
	memset(e, 0, sizeof(*e));
	e->event = "syscall";
	e->syscall = true;
	e->proc_id = proc_id;
	e->pid = pid;
	e->comm = comm;
	e->seq = seq;
	e->ts = ts;
	e->dur = 400;
	e->exit_code = -1;
	site %= loader ? 8 : 16;
	e->phase = loader ? "loader" : "program";
	e->path = loader ? LD : LIBC;
	e->nr = loader ? ld_calls[site % 8].nr : libc_calls[site % 16].nr;
	e->name = loader ? ld_calls[site % 8].name : libc_calls[site % 16].name;
	e->symbol = e->name;
	e->offset = (loader ? 0x1000 : 0x20000) + 0x40 * (uint64_t)site;
	e->addr = (loader ? LD_BASE : LIBC_BASE) + e->offset;
	/* One site in 8 fails, as openat's ENOENT would. */
	e->ret = site % 8 == 3 ? -2 : 0;
}

/* A job slot: the child it runs, and where that child is. */
struct slot {
	uint64_t next_ts;
	long child;		/* -1: idle */
	uint64_t calls_done;
	int stage;		/* 0 fork, 1 exec, 2 calls, 3 exit, 4 wait4 */
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jsonl", no_argument, NULL, 'J' },
		{ 0 }
	};
	long children = 1000, jobs = 4, next_child = 0, done = 0;
	uint64_t calls = 40, loader, make_seq = 0, ts = 1000000000;
	uint64_t events = 0, syscalls = 0, nloader = 0, sites = 0;
	const char *path = "-";
	struct slot *slot;
	struct ev e;
	int c, i;

	while ((c = getopt_long(argc, argv, "n:k:j:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			children = strtol(optarg, NULL, 10);
			break;
		case 'k':
			calls = strtoull(optarg, NULL, 10);
			break;
		case 'j':
			jobs = strtol(optarg, NULL, 10);
			break;
		case 'o':
			path = optarg;
			break;
		case 'J':
			jsonl = true;
			break;
		default:
			fprintf(stderr, "usage: log_gen [-n CHILDREN] [-k CALLS] [-j JOBS] [--jsonl] [-o FILE]\n");
			return 2;
		}
	}
	if (children < 0 || jobs < 1 || calls < 2) {
		fprintf(stderr, "log_gen: -n >= 0, -j >= 1, -k >= 2\n");
		return 2;
	}
	loader = calls / 4 ? calls / 4 : 1;
	out = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!out) {
		perror(path);
		return 1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	if (!jsonl)
		fputs("session_id,proc_id,pid,tid,comm,seq,ts_ns,dur_ns,event,abi,nr,syscall,ret,"
		      "errno,addr,map,path,offset,symbol,phase,early,child_proc_id,child_pid,"
		      "exit_code,exit_signal,argv,argv_truncated,arg_path\n", out);
	/* make: exec, 4 loader calls, 2 program calls. */
	e = (struct ev){ .event = "exec", .proc_id = 1, .pid = 1000, .comm = "make",
			 .ts = ts, .path = "/usr/bin/make", .exit_code = -1,
			 .argv_csv = "make -j2 'CFLAGS=-O2 -g'",
			 .argv_json = "[\"make\",\"-j2\",\"CFLAGS=-O2 -g\"]" };
	emit(&e);
	events++;
	for (i = 0; i < 6; i++) {
		syscall_ev(&e, 1, 1000, "make", make_seq++, ts += 1000, i < 4, (unsigned int)i);
		emit(&e);
		events++;
		syscalls++;
		nloader += i < 4;
	}
	sites += 6;
	slot = calloc((size_t)jobs, sizeof(*slot));
	for (i = 0; i < jobs; i++) {
		slot[i].child = -1;
		slot[i].next_ts = ts + 1000 + (uint64_t)i * 7;
	}
	while (done < children) {
		struct slot *s = NULL;
		uint64_t id, pid;

		for (i = 0; i < jobs; i++)
			if ((slot[i].child >= 0 || next_child < children) &&
			    (!s || slot[i].next_ts < s->next_ts))
				s = &slot[i];
		if (s->child < 0) {
			s->child = next_child++;
			s->stage = 0;
			s->calls_done = 0;
		}
		id = 2 + 2 * (uint64_t)s->child;
		pid = 2000 + (uint64_t)s->child;
		switch (s->stage) {
		case 0:
			e = (struct ev){ .event = "fork", .proc_id = 1, .pid = 1000, .comm = "make",
					 .ts = s->next_ts, .child_proc_id = id,
					 .child_pid = (uint32_t)pid, .exit_code = -1 };
			s->stage = 1;
			s->next_ts += 20000;
			break;
		case 1:
			e = (struct ev){ .event = "exec", .proc_id = id + 1, .pid = (uint32_t)pid,
					 .comm = "cc", .ts = s->next_ts, .path = "/usr/bin/cc",
					 .exit_code = -1, .argv_csv = "cc -c f.c",
					 .argv_json = "[\"cc\",\"-c\",\"f.c\"]" };
			s->stage = 2;
			s->next_ts += 1000;
			break;
		case 2:
			syscall_ev(&e, id + 1, (uint32_t)pid, "cc", s->calls_done, s->next_ts,
				   s->calls_done < loader,
				   (unsigned int)(s->calls_done < loader ? s->calls_done :
						  s->calls_done - loader));
			syscalls++;
			nloader += s->calls_done < loader;
			if (++s->calls_done == calls)
				s->stage = 3;
			s->next_ts += 1000;
			break;
		case 3:
			e = (struct ev){ .event = "exit", .proc_id = id + 1, .pid = (uint32_t)pid,
					 .comm = "cc", .ts = s->next_ts,
					 .exit_code = (int)(s->child % 3) };
			s->stage = 4;
			s->next_ts += 2000;
			break;
		default:
			syscall_ev(&e, 1, 1000, "make", make_seq++, s->next_ts, false, 0);
			e.nr = 61;
			e.name = e.symbol = "wait4";
			e.offset = 0x30000;
			e.addr = LIBC_BASE + e.offset;
			e.ret = (int64_t)pid;
			syscalls++;
			s->child = -1;
			s->next_ts += 5000;
			done++;
			break;
		}
		emit(&e);
		events++;
	}
	e = (struct ev){ .event = "exit", .proc_id = 1, .pid = 1000, .comm = "make",
			 .ts = ts + 1000, .exit_code = 0 };
	for (i = 0; i < jobs; i++)
		if (slot[i].next_ts + 1000 > e.ts)
			e.ts = slot[i].next_ts + 1000;
	emit(&e);
	events++;
	if (children)
		sites += 1 + (uint64_t)children * ((loader < 8 ? loader : 8) +
						   (calls - loader < 16 ? calls - loader : 16));
	if (fflush(out) || ferror(out)) {
		perror(path);
		return 1;
	}
	fprintf(stderr, "images %" PRIu64 "\nsyscalls %" PRIu64 "\nevents %" PRIu64
		"\nloader %" PRIu64 "\nsites %" PRIu64 "\n", 1 + 2 * (uint64_t)children,
		syscalls, events, nloader, sites);
	free(slot);
	return 0;
}
