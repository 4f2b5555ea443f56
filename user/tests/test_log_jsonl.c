// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a JSONL log (log_read.c): the lines its writer writes take a
 * fast way, every other line the general parser. Both give the same
 * events: each line read as written and read again spaced out (which no
 * fast way takes) gives the same fields, and the exact values; numbers at
 * their limits; escapes, keys out of order, unknown and repeated keys;
 * errors with their line.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "log/log.h"
#include "log/log_file.h"
#include "log/log_read.h"
#include "test.h"

/* The keys of a line as the writer writes them, up to "event". */
#define HEAD(id, pid, tid, comm, seq, ts, dur) \
	"{\"session_id\":7,\"proc_id\":" id ",\"pid\":" pid ",\"tid\":" tid \
	",\"comm\":" comm ",\"seq\":" seq ",\"ts_ns\":" ts ",\"dur_ns\":" dur
#define SYSCALL(ret, addr, path, off, sym, phase, early) \
	",\"event\":\"syscall\",\"abi\":\"x64\",\"nr\":12,\"syscall\":\"brk\",\"ret\":" ret \
	",\"errno\":null,\"addr\":" addr ",\"map\":\"file\",\"path\":" path ",\"offset\":" off \
	",\"symbol\":" sym ",\"phase\":" phase ",\"early\":" early \
	",\"child_proc_id\":null,\"child_pid\":null,\"exit_code\":null,\"exit_signal\":null," \
	"\"argv\":null,\"argv_truncated\":null}\n"
#define OTHER(ev, path, child, cpid, code, sig, argv, trunc) \
	",\"event\":\"" ev "\",\"abi\":null,\"nr\":null,\"syscall\":null,\"ret\":null," \
	"\"errno\":null,\"addr\":null,\"map\":null,\"path\":" path ",\"offset\":null," \
	"\"symbol\":null,\"phase\":null,\"early\":null,\"child_proc_id\":" child \
	",\"child_pid\":" cpid ",\"exit_code\":" code ",\"exit_signal\":" sig \
	",\"argv\":" argv ",\"argv_truncated\":" trunc "}\n"

static const char LOG[] =
	/* 1: an exec with its argv (an array: the general way) */
	HEAD("1", "1000", "1000", "\"make\"", "null", "1000", "null")
	OTHER("exec", "\"/usr/bin/make\"", "null", "null", "null", "null",
	      "[\"make\",\"-j2\"]", "false")
	/* 2: numbers at their limits: 20 digits, 19, u32's, s64's least */
	HEAD("1", "1000", "4294967295", "\"make\"", "18446744073709551615",
	     "9999999999999999999", "0")
	SYSCALL("-9223372036854775808", "\"0xffffffffffffffff\"", "\"/lib/ld.so\"", "\"0x0\"",
		"\"_start\"", "\"loader\"", "true")
	/* 3: escapes; an empty symbol is none */
	HEAD("1", "1000", "1000", "\"make\"", "1", "2000", "7")
	SYSCALL("9223372036854775807", "\"0x7f0000001000\"", "\"/lib/a\\\"b\\\\c\\u00e9\\/d.so\"",
		"\"0x1000\"", "\"\"", "\"program\"", "false")
	/* 4: leading zeros, a number as a string, hex as a number's string */
	HEAD("1", "1000", "1000", "\"make\"", "007", "\"0x10\"", "\"12\"")
	SYSCALL("0", "\"0XABC\"", "\"/lib/ld.so\"", "\"4096\"", "null", "null", "null")
	/* 5, 6: keys out of order, unknown ones of each kind: learnt, then fast */
	"{\"ts_ns\":3000,\"zz\":\"q\",\"event\":\"syscall\",\"yy\":12,\"proc_id\":1,"
	"\"ww\":null,\"pid\":1000,\"vv\":true,\"uu\":-3,\"nr\":60,\"abi\":\"x64\",\"ret\":-4095}\n"
	"{\"ts_ns\":3100,\"zz\":\"\",\"event\":\"syscall\",\"yy\":0,\"proc_id\":1,"
	"\"ww\":false,\"pid\":1000,\"vv\":null,\"uu\":\"-\",\"nr\":61,\"abi\":\"x64\",\"ret\":4}\n"
	/* 7: a fork; then an empty line */
	HEAD("1", "1000", "1000", "\"make\"", "null", "4000", "null")
	OTHER("fork", "null", "2", "1001", "null", "null", "null", "null")
	"\n"
	/* 9, 10, 11: keys said twice: the last one counts (a number, then text or null) */
	HEAD("2", "5", "1001", "\"\"", "3", "5000", "9")
	SYSCALL("3", "\"0x10\"", "\"/lib/ld.so\"", "\"0x20\"", "null", "\"program\"", "false")
	"{\"pid\":5,\"proc_id\":2,\"ts_ns\":5100,\"event\":\"syscall\",\"ret\":3,"
	"\"pid\":\"1001\",\"ret\":null,\"ts_ns\":\"0x13ed\",\"nr\":1,\"nr\":\"2\"}\n"
	"{\"pid\":6,\"proc_id\":2,\"ts_ns\":5200,\"event\":\"syscall\",\"ret\":4,"
	"\"pid\":\"1001\",\"ret\":null,\"ts_ns\":\"0x1451\",\"nr\":3,\"nr\":\"4\"}\n"
	/* 12: CRLF, then the exit without a line end */
	HEAD("2", "1001", "1001", "\"cc\"", "null", "6000", "null")
	OTHER("exit", "null", "null", "null", "0", "null", "null", "null")
	"\r\n"
	HEAD("1", "1000", "1000", "\"make\"", "null", "7000", "null")
	OTHER("exit", "null", "null", "null", "null", "9", "null", "null");

static char *tmp_log(const char *text)
{
	char *path = strdup("/tmp/systrace-test-jsonl-XXXXXX");
	int fd = mkstemp(path);
	size_t n = strlen(text);

	if (fd < 0 || write(fd, text, n) != (ssize_t)n)
		abort();
	close(fd);
	return path;
}

/* Every '":' as '" : ', every ',"' as ' , "', '{' as '{ ': no fast way. */
static char *spaced(const char *text)
{
	char *o = malloc(strlen(text) * 3 + 1), *q = o;
	const char *p;

	for (p = text; *p; p++) {
		if (p[0] == '"' && p[1] == ':') {
			q = stpcpy(q, "\" : ");
			p++;
		} else if (p[0] == ',' && p[1] == '"') {
			q = stpcpy(q, " , \"");
			p++;
		} else if (p[0] == '{') {
			q = stpcpy(q, "{ ");
		} else {
			*q++ = *p;
		}
	}
	*q = '\0';
	return o;
}

/* An event and its rows as text: one line to compare. */
static void ev_text(char *b, size_t n, const struct st_event *e)
{
	const struct st_proc_row *p = e->proc;
	const struct st_ev_site *s = e->site;
	char argv[64] = "";
	size_t i;

	for (i = 0; p->argv && i < p->argv_len && i + 1 < sizeof(argv); i++)
		argv[i] = p->argv[i] ? p->argv[i] : '|';
	snprintf(b, n,
		 "%d id=%" PRIu64 " pid=%u tid=%u seq=%" PRIu64 " ts=%" PRIu64 " dur=%" PRIu64
		 " abi=%u nr=%u ret=%" PRId64 " addr=0x%" PRIx64 " ph=%d early=%d child=%" PRIu64
		 "/%u | comm=%s exe=%s argv=%s/%u/%d prev=%" PRIu64 " parent=%" PRIu64
		 " end=%d code=%u/%d sig=%u/%d | site=%d %u %s 0x%" PRIx64 " %s",
		 e->kind, e->proc_id, e->pid, e->tid, e->seq, e->ts_ns, e->dur_ns, e->abi, e->nr,
		 e->ret, e->addr, e->phase, e->early, e->child_proc_id, e->child_pid,
		 p->comm, p->exe ? p->exe : "-", argv, p->argv_len, p->argv_truncated,
		 p->prev_id, p->parent_id, p->end, p->exit_code, p->has_exit_code,
		 p->exit_signal, p->has_exit_signal, !!s, s ? s->map : 0,
		 s && s->path ? s->path : "-", s ? s->offset : 0,
		 s && s->sym ? s->sym->symbol : "-");
}

/* The events of text, one line each. */
static char *events_of(bool *failed, const char *text, size_t *n)
{
	char *path = tmp_log(text), *out = NULL, line[1024];
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct st_log_src *src;
	struct st_event ev;
	struct st_err err;
	int ret;

	*n = 0;
	if (st_log_src_open(&src, path, &err)) {
		ST_FAIL(false, "open: %s\n", err.msg);
		fclose(f);
		unlink(path);
		free(path);
		return out;
	}
	while ((ret = st_log_src_next(src, &ev, &err)) == 1) {
		ev_text(line, sizeof(line), &ev);
		fprintf(f, "%s\n", line);
		(*n)++;
	}
	if (ret)
		fprintf(f, "error %d: %s\n", ret, err.msg);
	st_log_src_close(src);
	fclose(f);
	unlink(path);
	free(path);
	return out;
}

TEST(log_jsonl_lines_as_written_and_spaced_out_read_the_same)
{
	char *sp = spaced(LOG), *a, *b, *l;
	size_t na, nb;

	a = events_of(failed, LOG, &na);
	b = events_of(failed, sp, &nb);
	EXPECT_EQ(na, 12);
	EXPECT_EQ(nb, 12);
	EXPECT_STREQ(a, b);
	/* The exact values, line by line. */
	l = strtok(a, "\n");
	EXPECT_STREQ(l, "2 id=1 pid=1000 tid=1000 seq=0 ts=1000 dur=0 abi=0 nr=0 ret=0 addr=0x0 ph=0 early=0 child=0/0 | comm=make exe=/usr/bin/make argv=make|-j2|/9/0 prev=0 parent=0 end=0 code=0/0 sig=0/0 | site=0 0 - 0x0 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "0 id=1 pid=1000 tid=4294967295 seq=18446744073709551615 ts=9999999999999999999 dur=0 abi=0 nr=12 ret=-9223372036854775808 addr=0xffffffffffffffff ph=1 early=1 child=0/0 | comm=make exe=- argv=/0/0 prev=0 parent=0 end=0 code=0/0 sig=0/0 | site=1 1 /lib/ld.so 0x0 _start");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "0 id=1 pid=1000 tid=1000 seq=1 ts=2000 dur=7 abi=0 nr=12 ret=9223372036854775807 addr=0x7f0000001000 ph=2 early=0 child=0/0 | comm=make exe=- argv=/0/0 prev=0 parent=0 end=0 code=0/0 sig=0/0 | site=1 1 /lib/a\"b\\c\xc3\xa9/d.so 0x1000 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "0 id=1 pid=1000 tid=1000 seq=7 ts=16 dur=12 abi=0 nr=12 ret=0 addr=0xabc ph=0 early=0 child=0/0 | comm=make exe=- argv=/0/0 prev=0 parent=0 end=0 code=0/0 sig=0/0 | site=1 1 /lib/ld.so 0x1000 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "0 id=1 pid=1000 tid=0 seq=0 ts=3000 dur=0 abi=0 nr=60 ret=-4095 addr=0x0 ph=0 early=0 child=0/0 | comm= exe=- argv=/0/0 prev=0 parent=0 end=0 code=0/0 sig=0/0 | site=0 0 - 0x0 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "0 id=1 pid=1000 tid=0 seq=0 ts=3100 dur=0 abi=0 nr=61 ret=4 addr=0x0 ph=0 early=0 child=0/0 | comm= exe=- argv=/0/0 prev=0 parent=0 end=0 code=0/0 sig=0/0 | site=0 0 - 0x0 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "1 id=1 pid=1000 tid=1000 seq=0 ts=4000 dur=0 abi=0 nr=0 ret=0 addr=0x0 ph=0 early=0 child=2/1001 | comm=make exe=- argv=/0/0 prev=0 parent=0 end=0 code=0/0 sig=0/0 | site=0 0 - 0x0 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "0 id=2 pid=5 tid=1001 seq=3 ts=5000 dur=9 abi=0 nr=12 ret=3 addr=0x10 ph=2 early=0 child=0/0 | comm= exe=- argv=/0/0 prev=0 parent=1 end=0 code=0/0 sig=0/0 | site=1 1 /lib/ld.so 0x20 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "0 id=2 pid=1001 tid=0 seq=0 ts=5101 dur=0 abi=0 nr=2 ret=0 addr=0x0 ph=0 early=0 child=0/0 | comm= exe=- argv=/0/0 prev=0 parent=1 end=0 code=0/0 sig=0/0 | site=0 0 - 0x0 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "0 id=2 pid=1001 tid=0 seq=0 ts=5201 dur=0 abi=0 nr=4 ret=0 addr=0x0 ph=0 early=0 child=0/0 | comm= exe=- argv=/0/0 prev=0 parent=1 end=0 code=0/0 sig=0/0 | site=0 0 - 0x0 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "3 id=2 pid=1001 tid=1001 seq=0 ts=6000 dur=0 abi=0 nr=0 ret=0 addr=0x0 ph=0 early=0 child=0/0 | comm=cc exe=- argv=/0/0 prev=0 parent=1 end=1 code=0/1 sig=0/0 | site=0 0 - 0x0 -");
	l = strtok(NULL, "\n");
	EXPECT_STREQ(l, "3 id=1 pid=1000 tid=1000 seq=0 ts=7000 dur=0 abi=0 nr=0 ret=0 addr=0x0 ph=0 early=0 child=0/0 | comm=make exe=- argv=/0/0 prev=0 parent=0 end=2 code=0/0 sig=9/1 | site=0 0 - 0x0 -");
	free(a);
	free(b);
	free(sp);
}

#define LINE(seq, ts) \
	HEAD("1", "10", "10", "\"a\"", seq, ts, "1") \
	SYSCALL("0", "\"0x10\"", "\"/l.so\"", "\"0x10\"", "null", "null", "null")

/*
 * Two lines as written, then line 3 as written but for key's value (the
 * text up to the next ',' or '}'): its error. The keys in the order of
 * the lines before: the fast way's checks.
 */
static void third_line_error(bool *failed, const char *key, const char *value,
			     const char *want)
{
	char text[4096], *path, expect[512], pat[64], *at, *end;
	struct st_log_src *src;
	struct st_event ev;
	struct st_err err;
	int ret, n = 0;

	snprintf(text, sizeof(text), "%s", LINE("0", "100") LINE("1", "200") LINE("2", "300"));
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = strstr(strstr(strstr(text, "\n") + 1, "\n") + 1, pat);
	ASSERT_TRUE(at);
	at += strlen(pat);
	end = at + strcspn(at, ",}");
	memmove(at + strlen(value), end, strlen(end) + 1);
	memcpy(at, value, strlen(value));
	path = tmp_log(text);
	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	while ((ret = st_log_src_next(src, &ev, &err)) == 1)
		n++;
	EXPECT_EQ(n, 2);
	EXPECT_EQ(ret, -EINVAL);
	snprintf(expect, sizeof(expect), "%s:3: %s", path, want);
	EXPECT_STREQ(err.msg, expect);
	st_log_src_close(src);
	unlink(path);
	free(path);
}

TEST(log_jsonl_errors_name_their_line_after_lines_read_fast)
{
	third_line_error(failed, "pid", "4294967296", "pid: not a number: \"4294967296\"");
	third_line_error(failed, "tid", "\"0x100000000\"", "tid: not a number: \"0x100000000\"");
	third_line_error(failed, "session_id", "4294967296",
			 "session_id: not a number: \"4294967296\"");
	third_line_error(failed, "seq", "18446744073709551616",
			 "seq: not a number: \"18446744073709551616\"");
	third_line_error(failed, "ts_ns", "99999999999999999999",
			 "ts_ns: not a number: \"99999999999999999999\"");
	third_line_error(failed, "ret", "9223372036854775808",
			 "ret: not a number: \"9223372036854775808\"");
	third_line_error(failed, "addr", "\"0x1ffffffffffffffff\"",
			 "addr: not a number: \"0x1ffffffffffffffff\"");
	third_line_error(failed, "offset", "\"0x\"", "offset: not a number: \"0x\"");
	third_line_error(failed, "offset", "\"0xg\"", "offset: not a number: \"0xg\"");
	third_line_error(failed, "seq", "12345678901234567890123",
			 "seq: not a number: \"12345678901234567890123\"");
	third_line_error(failed, "seq", "123456789012345678901234", "seq: a number too long");
	third_line_error(failed, "ts_ns", "1e3", "ts_ns: not a string or an integer");
	third_line_error(failed, "ts_ns", "-", "ts_ns: not a number: \"-\"");
	third_line_error(failed, "ts_ns", "-0", "ts_ns: not a number: \"-0\"");
	third_line_error(failed, "comm", "\"a\tb\"", "a control character in a string");
	third_line_error(failed, "path", "\"a\\qb\"", "a bad escape in a string");
	third_line_error(failed, "argv", "\"make\"", "argv: not an array of strings");
	third_line_error(failed, "early", "tru", "a value expected after \"early\"");
	third_line_error(failed, "early", "\"2\"", "early: \"2\" is not 0 or 1");
	third_line_error(failed, "argv_truncated", "null}x", "text after the object");
	third_line_error(failed, "early", "null,\"x\":[1]", "x: not a string or an integer");
}

/* A line cut short at the end of the file: its error, its line. */
TEST(log_jsonl_a_last_line_cut_short_is_an_error_of_its_line)
{
	static const char text[] =
		HEAD("1", "10", "10", "\"a\"", "0", "100", "1")
		SYSCALL("0", "\"0x10\"", "\"/l.so\"", "\"0x10\"", "null", "null", "null")
		HEAD("1", "10", "10", "\"a\"", "1", "200", "1");
	char *path = tmp_log(text), expect[512];
	struct st_log_src *src;
	struct st_event ev;
	struct st_err err;

	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	EXPECT_EQ(st_log_src_next(src, &ev, &err), 1);
	EXPECT_EQ(ev.ts_ns, 100);
	EXPECT_EQ(st_log_src_next(src, &ev, &err), -EINVAL);
	snprintf(expect, sizeof(expect), "%s:2: ',' or '}' expected", path);
	EXPECT_STREQ(err.msg, expect);
	st_log_src_close(src);
	unlink(path);
	free(path);
}

/*
 * Records across the read-ahead thread's chunks (1 MiB, 64 KiB of room
 * before each for the record carried over): ones longer than that room,
 * one longer than a chunk; JSONL and CSV, each event exact.
 */
static void long_records(bool *failed, bool csv)
{
	const size_t n = 6000, big[] = { 5, 1000, 3000 }, len[] = { 100000, 70000, 3 << 20 };
	char *path = strdup("/tmp/systrace-test-jsonl-XXXXXX"), *sym;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct st_log_src *src;
	struct st_event ev;
	struct st_err err;
	size_t i, j, k = 0, bad_ts = 0, bad_sym = 0;
	int ret;

	ASSERT_TRUE(f);
	sym = malloc((3 << 20) + 1);
	memset(sym, 's', 3 << 20);
	if (csv)
		fputs("proc_id,ts_ns,event,map,path,offset,symbol\n", f);
	for (i = 0; i < n; i++) {
		size_t l = 3;

		for (j = 0; j < 3; j++)
			if (i == big[j])
				l = len[j];
		if (csv)
			fprintf(f, "1,%zu,syscall,file,/l.so,0x10,\"%.*s\n%.*s\"\n", 1000 + i,
				(int)l / 2, sym, (int)(l - l / 2 - 1), sym);
		else
			fprintf(f, HEAD("1", "10", "10", "\"a\"", "%zu", "%zu", "1")
				SYSCALL("0", "\"0x10\"", "\"/l.so\"", "\"0x10\"", "\"%.*s\"",
					"null", "null"), i, 1000 + i, (int)l, sym);
	}
	fclose(f);
	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	while ((ret = st_log_src_next(src, &ev, &err)) == 1) {
		size_t l = 3;

		for (j = 0; j < 3; j++)
			if (k == big[j])
				l = len[j];
		bad_ts += ev.ts_ns != 1000 + k;
		bad_sym += !ev.site || !ev.site->sym || strlen(ev.site->sym->symbol) != l ||
			   (csv && ev.site->sym->symbol[l / 2] != '\n');
		k++;
	}
	EXPECT_EQ(ret, 0);
	EXPECT_EQ(k, n);
	EXPECT_EQ(bad_ts, 0);
	EXPECT_EQ(bad_sym, 0);
	st_log_src_close(src);
	unlink(path);
	free(path);
	free(sym);
}

TEST(log_records_longer_than_the_read_ahead_room_or_chunk_read_whole)
{
	long_records(failed, false);
	long_records(failed, true);
}

/* A record over 64 MiB: refused, with its line. */
TEST(log_record_over_64_mib_is_refused_with_its_line)
{
	char *path = strdup("/tmp/systrace-test-jsonl-XXXXXX"), *big, expect[512];
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct st_log_src *src;
	struct st_event ev;
	struct st_err err;

	ASSERT_TRUE(f);
	big = malloc(65 << 20);
	memset(big, 'x', 65 << 20);
	fputs(LINE("0", "100"), f);
	fprintf(f, "{\"proc_id\":1,\"ts_ns\":200,\"event\":\"exit\",\"zz\":\"%.*s\"}\n",
		65 << 20, big);
	fputs(LINE("2", "300"), f);
	fclose(f);
	free(big);
	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	EXPECT_EQ(st_log_src_next(src, &ev, &err), 1);
	EXPECT_EQ(st_log_src_next(src, &ev, &err), -EINVAL);
	snprintf(expect, sizeof(expect), "%s:2: a record longer than 64 MiB", path);
	EXPECT_STREQ(err.msg, expect);
	st_log_src_close(src);
	unlink(path);
	free(path);
}

#define SYM_LINE HEAD("1", "10", "10", "\"a\"", "0", "%zu", "1") \
	SYSCALL("0", "\"0x10\"", "\"/l.so\"", "\"0x10\"", "\"%.*s\"", "null", "null")

/*
 * Records that start where the one carried over to the next chunk fills
 * the room before it exactly (ST_RA_ROOM bytes), by one byte less, or by
 * one byte more (then it goes to the reader's own buffer).
 */
TEST(log_records_carried_over_at_the_read_ahead_room_s_limit)
{
	const size_t at[] = { (1 << 20) - ST_RA_ROOM, (2 << 20) - ST_RA_ROOM + 1,
			      (3 << 20) - ST_RA_ROOM - 1 };
	char *path = strdup("/tmp/systrace-test-jsonl-XXXXXX"), *sym;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct st_log_src *src;
	struct st_event ev;
	struct st_err err;
	size_t off = 0, ts = 0, i, k = 0, bad = 0, *lens = calloc(20000, sizeof(*lens));
	int ret;

	ASSERT_TRUE(f && lens);
	sym = malloc(1 << 20);
	memset(sym, 'y', 1 << 20);
	for (i = 0; i < 3; i++) {
		/* Lines of 600 or so bytes up to at[i], the last one padded. */
		size_t base;

		for (;;) {
			base = (size_t)snprintf(NULL, 0, SYM_LINE, ts, 0, sym);
			if (at[i] - off < 2 * (base + 200))
				break;
			lens[ts] = 200;
			off += (size_t)fprintf(f, SYM_LINE, ts++, 200, sym);
		}
		lens[ts] = at[i] - off - base;
		off += (size_t)fprintf(f, SYM_LINE, ts, (int)lens[ts], sym);
		ts++;
		ASSERT_EQ(off, at[i]);
		lens[ts] = 100000;
		off += (size_t)fprintf(f, SYM_LINE, ts++, 100000, sym);
	}
	fclose(f);
	free(sym);
	ASSERT_EQ(st_log_src_open(&src, path, &err), 0);
	while ((ret = st_log_src_next(src, &ev, &err)) == 1) {
		bad += ev.ts_ns != k || !ev.site || !ev.site->sym ||
		       strlen(ev.site->sym->symbol) != lens[k];
		k++;
	}
	EXPECT_EQ(ret, 0);
	EXPECT_EQ(k, ts);
	EXPECT_EQ(bad, 0);
	st_log_src_close(src);
	unlink(path);
	free(path);
	free(lens);
}
