// SPDX-License-Identifier: GPL-2.0
/*
 * argv (issue 24 item 5): its command line and JSON, exactly; bash reads
 * the command line back to the same bytes; the dump's columns and the
 * log's, written and read back, exec and fork.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "out/argv.h"
#include "log/log.h"
#include "model/check.h"
#include "model/dump_json.h"
#include "out/json_str.h"
#include "libsystrace.h"
#include "test.h"

/* prog, a space, a quote, the empty one, a bad byte, a newline, UTF-8 */
static const char ARGV[] = "prog\0a b\0it's\0\0x\xffy\0l1\nl2\0--k=v,w\0\xc3\xbc\0";
#define ARGV_LEN (sizeof(ARGV) - 1)
static const char SHELL[] =
	"prog 'a b' 'it'\\''s' '' $'x\\xffy' $'l1\\nl2' --k=v,w '\xc3\xbc'";
static const char JSON[] =
	"[\"prog\",\"a b\",\"it's\",\"\",\"x\xef\xbf\xbdy\",\"l1\\nl2\",\"--k=v,w\",\"\xc3\xbc\"]";

static char *obuf_text(void (*fn)(struct st_obuf *, const char *, size_t),
		       const char *argv, size_t len)
{
	char *buf = NULL, b[16];
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct st_obuf o;

	st_obuf_init(&o, f, b, sizeof(b));
	fn(&o, argv, len);
	st_obuf_flush(&o);
	fclose(f);
	return buf;
}

TEST(argv_command_line_and_json_exact)
{
	char *s = st_argv_shell_str(ARGV, ARGV_LEN), *j;
	json_t *a;

	EXPECT_STREQ(s, SHELL);
	free(s);
	j = obuf_text(st_argv_put_json, ARGV, ARGV_LEN);
	EXPECT_STREQ(j, JSON);
	free(j);
	/* jansson's array prints the same */
	a = st_argv_json(ARGV, ARGV_LEN);
	j = json_dumps(a, JSON_COMPACT);
	EXPECT_STREQ(j, JSON);
	free(j);
	json_decref(a);
	EXPECT_EQ(st_argv_count(ARGV, ARGV_LEN), 8);
	/* none: no argument; one empty argument: '' */
	s = st_argv_shell_str("", 0);
	EXPECT_STREQ(s, "");
	free(s);
	s = st_argv_shell_str("", 1);
	EXPECT_STREQ(s, "''");
	free(s);
	j = obuf_text(st_argv_put_json, "", 0);
	EXPECT_STREQ(j, "[]");
	free(j);
	/* the other control bytes, 0x7f, a backslash and a quote in $'...' */
	s = st_argv_shell_str("\x01\t\r\x7f\\'\"", 8);
	EXPECT_STREQ(s, "$'\\x01\\t\\r\\x7f\\\\\\'\"'");
	free(s);
}

TEST(argv_command_line_reads_back_as_bash_reads_it)
{
	char *argv = NULL, cmd[512], out[256];
	uint32_t len = 0;
	const char *why;
	size_t n;
	FILE *p;

	ASSERT_EQ(st_argv_parse_shell(SHELL, &argv, &len, &why), 0);
	EXPECT_EQ(len, ARGV_LEN);
	EXPECT_TRUE(!memcmp(argv, ARGV, ARGV_LEN));
	free(argv);
	/* bash: each word of the line, NUL-ended, is the same bytes */
	if (access("/bin/bash", X_OK))
		SKIP("no bash");
	snprintf(cmd, sizeof(cmd), "/bin/bash -c 'eval \"set -- $1\"; printf \"%%s\\0\" \"$@\"' - \"$L\"");
	setenv("L", SHELL, 1);
	p = popen(cmd, "r");
	ASSERT_TRUE(p);
	n = fread(out, 1, sizeof(out), p);
	EXPECT_EQ(pclose(p), 0);
	EXPECT_EQ(n, ARGV_LEN);
	EXPECT_TRUE(n == ARGV_LEN && !memcmp(out, ARGV, ARGV_LEN));
	/* what a person may type: "..." and \c; and what is refused */
	ASSERT_EQ(st_argv_parse_shell("a\\ b \"c \\\"d\"  e", &argv, &len, &why), 0);
	EXPECT_EQ(len, 11);
	EXPECT_TRUE(!memcmp(argv, "a b\0c \"d\0e", 11));
	free(argv);
	EXPECT_EQ(st_argv_parse_shell("'a", &argv, &len, &why), -EINVAL);
	EXPECT_STREQ(why, "a '...' quote does not end");
	EXPECT_EQ(st_argv_parse_shell("$'\\x00'", &argv, &len, &why), -EINVAL);
	EXPECT_STREQ(why, "a NUL (\\x00) in an argument");
	EXPECT_EQ(st_argv_parse_shell("$'\\q'", &argv, &len, &why), -EINVAL);
	EXPECT_STREQ(why, "an unknown escape in a $'...' quote");
}

TEST(argv_copy_cuts_at_an_argument_end)
{
	char big[SYSTRACE_ARGV_MAX + 100], *argv;
	uint32_t len;
	bool trunc = false;

	/* 400 arguments of 10 bytes and their NUL: 4400 bytes */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = i % 11 == 10 ? '\0' : 'a';
	ASSERT_EQ(st_argv_copy(big, 4400, &argv, &len, &trunc), 0);
	EXPECT_EQ(len, 4092);	/* 372 whole arguments */
	EXPECT_TRUE(trunc);
	EXPECT_EQ(argv[len - 1], '\0');
	free(argv);
	/* exactly 4096 bytes: kept whole */
	trunc = false;
	big[4095] = '\0';
	ASSERT_EQ(st_argv_copy(big, 4096, &argv, &len, &trunc), 0);
	EXPECT_EQ(len, 4096);
	EXPECT_FALSE(trunc);
	free(argv);
	/* a last argument without its NUL (a process that wrote over it) */
	ASSERT_EQ(st_argv_copy("ab\0cd", 5, &argv, &len, &trunc), 0);
	EXPECT_EQ(len, 6);
	EXPECT_TRUE(!memcmp(argv, "ab\0cd\0", 6));
	EXPECT_FALSE(trunc);
	free(argv);
}

/*
 * 4097 bytes whose byte 4095 is a NUL: the first 4096 are kept, an argument
 * ends exactly at the limit (a copy cut at 4095 kept 4092, back to the
 * argument before).
 */
TEST(argv_copy_keeps_an_argument_ending_at_4096)
{
	char big[SYSTRACE_ARGV_MAX + 1], *argv;
	uint32_t len;
	bool trunc = false;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = i % 11 == 10 ? '\0' : 'a';
	big[4095] = '\0';
	ASSERT_EQ(st_argv_copy(big, sizeof(big), &argv, &len, &trunc), 0);
	EXPECT_EQ(len, 4096);
	EXPECT_TRUE(trunc);
	EXPECT_EQ(argv[4095], '\0');
	EXPECT_EQ(argv[4094], 'a');
	free(argv);
}

/* A JSON argv of exactly 4096 bytes (NULs included) is taken; 4097 is not. */
TEST(argv_from_json_takes_4096_bytes_not_4097)
{
	char arg[SYSTRACE_ARGV_MAX], *argv = NULL;
	const char *why = NULL;
	uint32_t len = 0;
	json_t *a;

	memset(arg, 'a', sizeof(arg));
	a = json_pack("[s#]", arg, (size_t)SYSTRACE_ARGV_MAX - 1);
	ASSERT_EQ(st_argv_from_json(a, &argv, &len, &why), 0);
	EXPECT_EQ(len, SYSTRACE_ARGV_MAX);
	free(argv);
	json_decref(a);
	a = json_pack("[s#]", arg, (size_t)SYSTRACE_ARGV_MAX);
	EXPECT_EQ(st_argv_from_json(a, &argv, &len, &why), -EINVAL);
	EXPECT_STREQ(why, "longer than 4096 bytes");
	json_decref(a);
}

/* DEL is a control byte: quoted as $'...', as a shell needs to read it back. */
TEST(argv_shell_quotes_del)
{
	char *s = st_argv_shell_str("a\x7f", 3);

	EXPECT_STREQ(s, "$'a\\x7f'");
	free(s);
}

/* A command line of exactly 4096 bytes (NUL included) is taken; 4097 is not. */
TEST(argv_parse_shell_takes_4096_bytes_not_4097)
{
	char line[SYSTRACE_ARGV_MAX + 1], *argv = NULL;
	const char *why = NULL;
	uint32_t len = 0;

	memset(line, 'a', SYSTRACE_ARGV_MAX - 1);
	line[SYSTRACE_ARGV_MAX - 1] = '\0';
	ASSERT_EQ(st_argv_parse_shell(line, &argv, &len, &why), 0);
	EXPECT_EQ(len, SYSTRACE_ARGV_MAX);
	free(argv);
	memset(line, 'a', SYSTRACE_ARGV_MAX);
	line[SYSTRACE_ARGV_MAX] = '\0';
	EXPECT_EQ(st_argv_parse_shell(line, &argv, &len, &why), -EINVAL);
	EXPECT_STREQ(why, "longer than 4096 bytes");
}

/* A dump with one known argv, one truncated empty one, one unknown. */
static void argv_dump(struct st_dump *d)
{
	bool t = false;

	memset(d, 0, sizeof(*d));
	d->session.id = 3;
	d->session.state = SYSTRACE_STATE_FINISHED;
	d->session.procs = 3;
	d->procs = calloc(3, sizeof(*d->procs));
	d->nprocs = 3;
	for (size_t i = 0; i < 3; i++) {
		d->procs[i].id = i + 1;
		d->procs[i].pid = d->procs[i].tgid = 100 + (uint32_t)i;
		snprintf(d->procs[i].comm, sizeof(d->procs[i].comm), "p%zu", i);
		d->procs[i].end = SYSTRACE_END_EXITED;
		d->procs[i].has_exit_code = true;
	}
	st_argv_copy(ARGV, ARGV_LEN, &d->procs[0].argv, &d->procs[0].argv_len, &t);
	d->procs[1].parent_id = 1;
	st_argv_copy("", 0, &d->procs[1].argv, &d->procs[1].argv_len, &t);
	d->procs[1].argv_truncated = true;
}

static char *dump_out(const struct st_dump *d, bool json)
{
	struct st_view v = { .dump = d };
	struct st_dump_table dt;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (json) {
		st_json_dump(f, &v, false, false);
	} else {
		st_dump_table(&dt, &v, ST_TABLE_PROCESSES, false);
		st_table_csv(f, &dt.t);
	}
	fclose(f);
	return buf;
}

TEST(argv_dump_columns_csv_json_and_read_back)
{
	struct st_dump d, e;
	struct st_err err;
	char *csv, *json, path[] = "/tmp/systrace-test-argv-XXXXXX";
	const char *line;
	int fd;

	argv_dump(&d);
	csv = dump_out(&d, false);
	ASSERT_TRUE(csv);
	EXPECT_TRUE(strstr(csv, ",attached,argv,argv_truncated\n"));
	/* the command line is one field: CSV quotes it for its quote */
	line = strchr(csv, '\n') + 1;
	EXPECT_TRUE(strstr(line, ",0,\"prog 'a b' 'it'\\''s' '' $'x\\xffy' $'l1\\nl2' "
			   "--k=v,w '\xc3\xbc'\",0\n"));
	line = strchr(line, '\n') + 1;
	EXPECT_TRUE(strstr(line, ",0,,1\n"));		/* known, empty, truncated */
	line = strchr(line, '\n') + 1;
	EXPECT_TRUE(strstr(line, ",0,,\n"));		/* unknown */
	json = dump_out(&d, true);
	ASSERT_TRUE(json);
	EXPECT_TRUE(strstr(json, "\"argv\":[\"prog\",\"a b\",\"it's\",\"\",\"x\xef\xbf\xbdy\","
			   "\"l1\\nl2\",\"--k=v,w\",\"\xc3\xbc\"],\"argv_truncated\":false}"));
	EXPECT_TRUE(strstr(json, "\"argv\":[],\"argv_truncated\":true}"));
	EXPECT_TRUE(strstr(json, "\"argv\":null,\"argv_truncated\":null}"));
	/* read back: the bytes but the one that is no UTF-8 (U+FFFD in JSON) */
	fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	ASSERT_EQ(st_dump_load(path, &e, &err), 0);
	unlink(path);
	ASSERT_EQ(e.nprocs, 3);
	EXPECT_EQ(e.procs[0].argv_len, ARGV_LEN + 2);
	EXPECT_TRUE(e.procs[0].argv && !memcmp(e.procs[0].argv, "prog\0a b\0it's\0\0x\xef\xbf\xbdy",
					      21));
	EXPECT_FALSE(e.procs[0].argv_truncated);
	EXPECT_TRUE(e.procs[1].argv && e.procs[1].argv_len == 0);
	EXPECT_TRUE(e.procs[1].argv_truncated);
	EXPECT_NULL(e.procs[2].argv);
	st_dump_free(&e);
	free(csv);
	free(json);
	st_dump_free(&d);
}

/* exec of image 1 with ARGV (truncated), its fork of image 2, both exits. */
static void argv_log(struct st_log *log, struct st_dump *d)
{
	bool t = false;

	memset(d, 0, sizeof(*d));
	d->procs = calloc(2, sizeof(*d->procs));
	d->nprocs = 2;
	d->procs[0] = (struct st_proc_row){ .id = 1, .pid = 50, .tgid = 50, .comm = "prog",
					    .start_ns = 100, .end = SYSTRACE_END_EXITED,
					    .has_exit_code = true, .prev_id = 0 };
	d->procs[0].exe = strdup("/bin/prog");
	st_argv_copy(ARGV, ARGV_LEN, &d->procs[0].argv, &d->procs[0].argv_len, &t);
	d->procs[0].argv_truncated = true;
	memset(log, 0, sizeof(*log));
	log->ev = calloc(4, sizeof(*log->ev));
	log->n = 4;
	log->ev[0] = (struct st_event){ .kind = ST_EV_EXEC, .proc_id = 1, .pid = 50, .tid = 50,
					.ts_ns = 100, .proc = &d->procs[0] };
	log->ev[1] = (struct st_event){ .kind = ST_EV_FORK, .proc_id = 1, .pid = 50, .tid = 50,
					.ts_ns = 200, .child_proc_id = 2, .child_pid = 51,
					.proc = &d->procs[0] };
	log->ev[2] = (struct st_event){ .kind = ST_EV_EXIT, .proc_id = 2, .pid = 51, .tid = 51,
					.ts_ns = 300, .proc = &d->procs[0] };
	log->ev[3] = (struct st_event){ .kind = ST_EV_EXIT, .proc_id = 1, .pid = 50, .tid = 50,
					.ts_ns = 400, .proc = &d->procs[0] };
}

static char *log_out(const struct st_log *log, enum st_log_format fmt, size_t *len)
{
	struct st_log_meta meta = { .session_id = 3 };
	struct st_log_writer *w;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	size_t i;

	if (st_log_writer_new(&w, f, fmt, &meta))
		return NULL;
	for (i = 0; i < log->n; i++)
		st_log_writer_event(w, &log->ev[i]);
	st_log_writer_end(w);
	st_log_writer_free(w);
	fclose(f);
	return buf;
}

static void log_reads_back(bool *failed, const char *text, size_t len)
{
	char path[] = "/tmp/systrace-test-argv-XXXXXX";
	int fd = mkstemp(path);
	struct st_log_src *src;
	struct st_event ev;
	struct st_dump d;
	struct st_err err;

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, text, len), (ssize_t)len);
	close(fd);
	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	ASSERT_EQ(st_log_src_next(src, &ev, &err), 1);
	EXPECT_EQ(ev.kind, ST_EV_EXEC);
	EXPECT_EQ(ev.proc->argv_len, ARGV_LEN);
	EXPECT_TRUE(ev.proc->argv && !memcmp(ev.proc->argv, ARGV, ARGV_LEN));
	EXPECT_TRUE(ev.proc->argv_truncated);
	ASSERT_EQ(st_log_src_next(src, &ev, &err), 1);
	EXPECT_EQ(ev.kind, ST_EV_FORK);
	EXPECT_NULL(ev.proc->argv);
	st_log_src_close(src);
	/* the rows: the exec's argv, and the forked child shares it */
	ASSERT_EQ(st_log_load(path, &d, NULL, NULL, NULL, &err), 0);
	ASSERT_EQ(d.nprocs, 2);
	for (size_t i = 0; i < 2; i++) {
		EXPECT_EQ(d.procs[i].argv_len, ARGV_LEN);
		EXPECT_TRUE(d.procs[i].argv && !memcmp(d.procs[i].argv, ARGV, ARGV_LEN));
		EXPECT_TRUE(d.procs[i].argv_truncated);
	}
	st_dump_free(&d);
	unlink(path);
}

TEST(argv_log_csv_and_jsonl_exact_and_read_back)
{
	struct st_log log;
	struct st_dump d;
	size_t len = 0;
	char *csv, *jsonl;

	argv_log(&log, &d);
	csv = log_out(&log, ST_LOG_CSV, &len);
	ASSERT_TRUE(csv);
	EXPECT_TRUE(strstr(csv, ",exit_code,exit_signal,argv,argv_truncated,arg_path\n"));
	EXPECT_TRUE(strstr(csv, ",exec,,,,,,,,/bin/prog,,,,,,,,,\"prog 'a b' 'it'\\''s' '' "
			   "$'x\\xffy' $'l1\\nl2' --k=v,w '\xc3\xbc'\",1,\n"));
	EXPECT_TRUE(strstr(csv, ",fork,,,,,,,,,,,,,2,51,,,,,\n"));
	log_reads_back(failed, csv, len);
	jsonl = log_out(&log, ST_LOG_JSONL, &len);
	ASSERT_TRUE(jsonl);
	EXPECT_TRUE(strstr(jsonl, ",\"argv\":[\"prog\",\"a b\",\"it's\",\"\",\"x\xef\xbf\xbdy\","
			   "\"l1\\nl2\",\"--k=v,w\",\"\xc3\xbc\"],\"argv_truncated\":true,\"arg_path\":null}\n"));
	EXPECT_TRUE(strstr(jsonl, "\"event\":\"fork\""));
	free(csv);
	free(jsonl);
	st_log_free(&log);
	st_dump_free(&d);
}

TEST(argv_log_jsonl_reads_back_utf8_argv)
{
	static const char text[] =
		"{\"proc_id\":1,\"pid\":50,\"ts_ns\":100,\"event\":\"exec\","
		"\"argv\":[\"a b\", \"\\u00fc\",\"\"] ,\"argv_truncated\":false}\n"
		"{\"proc_id\":2,\"pid\":51,\"ts_ns\":100,\"event\":\"exec\",\"argv\":[]}\n"
		"{\"proc_id\":3,\"pid\":52,\"ts_ns\":100,\"event\":\"exec\",\"argv\":\"a\"}\n";
	char path[] = "/tmp/systrace-test-argv-XXXXXX";
	int fd = mkstemp(path);
	struct st_log_src *src;
	struct st_event ev;
	struct st_err err;

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	ASSERT_EQ(st_log_src_next(src, &ev, &err), 1);
	EXPECT_EQ(ev.proc->argv_len, 8);
	EXPECT_TRUE(ev.proc->argv && !memcmp(ev.proc->argv, "a b\0\xc3\xbc\0\0", 8));
	EXPECT_FALSE(ev.proc->argv_truncated);
	ASSERT_EQ(st_log_src_next(src, &ev, &err), 1);
	EXPECT_TRUE(ev.proc->argv && ev.proc->argv_len == 0);
	EXPECT_EQ(st_log_src_next(src, &ev, &err), -EINVAL);
	EXPECT_TRUE(strstr(err.msg, ":3: argv: not an array of strings"));
	st_log_src_close(src);
	unlink(path);
}

/* The varint at *p (advanced past it), or UINT64_MAX past end. */
static uint64_t pf_varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	int s;

	for (s = 0; *p < end && s < 64; s += 7) {
		v |= (uint64_t)(**p & 0x7f) << s;
		if (!(*(*p)++ & 0x80))
			return v;
	}
	return UINT64_MAX;
}

/*
 * A command line of 16,377 bytes (4,093 bytes 0xff): the Perfetto writer
 * sets a message's length when the message ends, in the one byte it kept
 * for it, and moves the body up when it needs more: here the exec's event
 * and its packet take three bytes. Every packet's length must lead to the
 * next one, and the string keep its own length.
 */
TEST(argv_log_perfetto_long_command_line)
{
	static char argv[SYSTRACE_ARGV_MAX];
	struct st_log log;
	struct st_dump d;
	const unsigned char *p, *end, *at;
	unsigned char lead[4] = { 6 << 3 | 2, 0xf9, 0x7f, 'p' };	/* string_value, 16377 */
	size_t len = 0, packets = 0, big = 0;
	uint64_t n;
	char *pf;
	bool t = false;

	argv[0] = 'p';
	memset(argv + 2, 0xff, sizeof(argv) - 3);
	argv_log(&log, &d);
	free(d.procs[0].argv);
	ASSERT_EQ(st_argv_copy(argv, sizeof(argv), &d.procs[0].argv, &d.procs[0].argv_len, &t), 0);
	ASSERT_EQ(d.procs[0].argv_len, SYSTRACE_ARGV_MAX);
	pf = log_out(&log, ST_LOG_PERFETTO, &len);
	ASSERT_TRUE(pf);
	p = (const unsigned char *)pf;
	end = p + len;
	while (p < end && *p == (1 << 3 | 2)) {
		p++;
		n = pf_varint(&p, end);
		if (n > (uint64_t)(end - p))
			break;
		packets++;
		big += n >= 16384;
		p += n;
	}
	EXPECT_TRUE(p == end);
	EXPECT_EQ(packets, 15);
	EXPECT_EQ(big, 1);
	at = memmem(pf, len, lead, sizeof(lead));
	ASSERT_TRUE(at);
	EXPECT_TRUE(at + 3 + 16377 <= end && !memcmp(at + 3, "p $'\\xff\\xff", 12) &&
		    !memcmp(at + 3 + 16377 - 9, "\\xff\\xff'", 9));
	free(pf);
	st_log_free(&log);
	st_dump_free(&d);
}

TEST(argv_log_chrome_and_perfetto_carry_it)
{
	struct st_log log;
	struct st_dump d;
	size_t len = 0;
	char *chrome, *pf;
	const char *want = "prog 'a b' 'it'\\''s' '' $'x\\xffy' $'l1\\nl2' --k=v,w '\xc3\xbc'";

	argv_log(&log, &d);
	chrome = log_out(&log, ST_LOG_CHROME, &len);
	ASSERT_TRUE(chrome);
	EXPECT_TRUE(strstr(chrome, "\"path\":\"/bin/prog\",\"argv\":[\"prog\",\"a b\",\"it's\","
			   "\"\",\"x\xef\xbf\xbdy\",\"l1\\nl2\",\"--k=v,w\",\"\xc3\xbc\"],"
			   "\"argv_truncated\":true}"));
	pf = log_out(&log, ST_LOG_PERFETTO, &len);
	ASSERT_TRUE(pf);
	/* the command line, whole, as a string_value (field 6) */
	EXPECT_TRUE(memmem(pf, len, want, strlen(want)));
	free(chrome);
	free(pf);
	st_log_free(&log);
	st_dump_free(&d);
}
