// SPDX-License-Identifier: GPL-2.0
/*
 * Errnos from the rows to what is printed: a program whose openat fails 37
 * times with ENOENT and 5 times with EACCES at one site, and whose close
 * fails 3 times with EBADF at another (issue 25's case), gives exactly
 * those counts and names in the dump's CSV and JSON and in report errors'
 * text, CSV and JSON.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log/log.h"
#include "model/check.h"
#include "model/dump_json.h"
#include "out/json_str.h"
#include "report.h"
#include "test.h"

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static struct st_site_row *site(struct st_dump *d, uint64_t addr, uint32_t nr,
				uint64_t calls, const char *symbol,
				const struct st_errnos *e)
{
	struct st_site_row *s = &d->sites[d->nsites++];

	*s = (struct st_site_row){
		.proc_id = 1, .addr = 0x7f0000000000ULL + addr, .nr = nr,
		.abi = SYSTRACE_ABI_X64, .map = SYSTRACE_MAP_FILE, .offset = addr,
		.calls = calls, .errors = st_errnos_total(e),
		.total_ns = calls * 1000, .min_ns = 1000, .max_ns = 1000,
		.first_ordinal = d->nsites,
	};
	if (st_dump_str(d, LIBC, &s->path) ||
	    st_dump_errnos(d, e, &s->errnos) ||
	    st_dump_sym(d, &(struct st_sym){ .object = LIBC, .symbol = symbol,
					     .has_symbol_offset = true,
					     .symbol_offset = 4 }, &s->sym))
		abort();
	d->procs[0].syscalls += calls;
	d->procs[0].errors += s->errors;
	d->procs[0].syscall_ns += s->total_ns;
	d->procs[0].sites++;
	return s;
}

/* errnos: 50 openat (37 ENOENT, 5 EACCES), 10 close (3 EBADF), 7 read. */
static void errnos_fixture(struct st_dump *d)
{
	struct st_errnos open_e = { 0 }, close_e = { 0 }, none = { 0 };

	st_errnos_add(&open_e, 2, 37);
	st_errnos_add(&open_e, 13, 5);
	st_errnos_add(&close_e, 9, 3);
	memset(d, 0, sizeof(*d));
	d->session = (struct st_session_row){ .id = 9, .state = SYSTRACE_STATE_FINISHED };
	strcpy(d->session.name, "errnos");
	d->nprocs = 1;
	d->procs = calloc(1, sizeof(*d->procs));
	d->procs[0] = (struct st_proc_row){
		.id = 1, .pid = 500, .tgid = 500, .end = SYSTRACE_END_EXITED,
		.has_end_ns = true, .start_ns = 1, .end_ns = 2, .threads = 1,
	};
	strcpy(d->procs[0].comm, "errnos");
	d->sites = calloc(3, sizeof(*d->sites));
	site(d, 0x100, 257, 50, "__open64", &open_e);
	site(d, 0x200, 3, 10, "close", &close_e);
	site(d, 0x300, 0, 7, "read", &none);
	d->session.procs = 1;
	d->session.sites = 3;
	d->session.syscalls = d->procs[0].syscalls;
	d->session.errors = d->procs[0].errors;
	d->session.syscall_ns = d->procs[0].syscall_ns;
	d->symbolized = true;
	st_dump_sort(d);
}

static char *csv_of(const struct st_view *v, enum st_table_kind kind)
{
	struct st_dump_table dt;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	st_dump_table(&dt, v, kind, true);
	st_table_csv(f, &dt.t);
	fclose(f);
	return out;
}

/* The line of text that contains what. */
static char *line_with(const char *text, const char *what)
{
	const char *at = strstr(text, what), *start, *end;

	if (!at)
		return strdup("(none)");
	for (start = at; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	return strndup(start, end ? (size_t)(end - start) : strlen(start));
}

TEST(errnos_in_the_dump_csv_and_json)
{
	struct st_dump d;
	struct st_view v;
	struct st_sysagg *aggs;
	char *out, *line, *text = NULL;
	size_t len = 0;
	json_t *doc, *row;
	FILE *f;

	errnos_fixture(&d);
	EXPECT_EQ(st_check_totals(&d, NULL), 0);
	v = (struct st_view){ .dump = &d };
	out = csv_of(&v, ST_TABLE_SITES);
	line = line_with(out, ",openat,");
	EXPECT_TRUE(strstr(line, ",50,42,"));
	EXPECT_TRUE(strstr(line, ",ENOENT(2)=37 EACCES(13)=5,0\n") || strstr(line, ",ENOENT(2)=37 EACCES(13)=5,0"));
	free(line);
	line = line_with(out, ",close,");
	EXPECT_TRUE(strstr(line, ",10,3,"));
	EXPECT_TRUE(strstr(line, ",EBADF(9)=3,0"));
	free(line);
	free(out);

	ASSERT_EQ(st_aggregate_syscalls(&d, true, &aggs, &v.naggs), 0);
	v.aggs = aggs;
	out = csv_of(&v, ST_TABLE_SYSCALLS);
	line = line_with(out, ",openat,");
	EXPECT_TRUE(strstr(line, ",ENOENT(2)=37 EACCES(13)=5,0"));
	free(line);
	free(out);

	f = open_memstream(&text, &len);
	ASSERT_EQ(st_json_dump(f, &v, true, false), 0);
	fclose(f);
	doc = json_loads(text, 0, NULL);
	ASSERT_TRUE(doc);
	row = json_array_get(json_object_get(doc, "sites"), 0);
	EXPECT_STREQ(json_string_value(json_object_get(row, "syscall")), "openat");
	EXPECT_STREQ(json_string_value(json_object_get(row, "errnos")),
		     "ENOENT(2)=37 EACCES(13)=5");
	EXPECT_EQ(json_integer_value(json_object_get(row, "errno_other")), 0);
	row = json_array_get(json_object_get(doc, "sites"), 1);
	EXPECT_STREQ(json_string_value(json_object_get(row, "errnos")), "EBADF(9)=3");
	row = json_array_get(json_object_get(doc, "sites"), 2);
	EXPECT_STREQ(json_string_value(json_object_get(row, "errnos")), "");
	row = json_array_get(json_object_get(doc, "syscalls"), 2);
	EXPECT_STREQ(json_string_value(json_object_get(row, "syscall")), "openat");
	EXPECT_STREQ(json_string_value(json_object_get(row, "errnos")),
		     "ENOENT(2)=37 EACCES(13)=5");
	json_decref(doc);
	free(text);
	free(aggs);
	st_dump_free(&d);
}

/* j as compact JSON, in a buffer of its own (the last 4 calls' stay valid). */
static const char *compact(const json_t *j)
{
	static char buf[4][256];
	static unsigned int at;
	char *b = buf[at++ % 4];
	size_t n = j ? json_dumpb(j, b, sizeof(buf[0]) - 1, JSON_COMPACT | JSON_ENCODE_ANY) : 0;

	if (!n || n >= sizeof(buf[0]))
		return "(none)";
	b[n] = '\0';
	return b;
}

static char *print(const struct rt_report *r, enum st_format fmt, const char *table)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (rt_report_print(f, r, fmt, table))
		fputs("(error)", f);
	fclose(f);
	return out;
}

TEST(report_errors_says_what_where_why)
{
	struct report_opts o = { 0 };
	struct rt_report r = { .name = "errors" };
	struct st_dump d;
	json_t *doc, *row;
	char *out, *line;

	errnos_fixture(&d);
	r.dump = &d;
	ASSERT_EQ(report_errors(&r, &d, &o), 0);

	out = print(&r, ST_FMT_TEXT, NULL);
	EXPECT_TRUE(strstr(out, "errors: 45 of 67 calls returned -4095..-1;"));
	line = line_with(out, "  ENOENT\n");
	EXPECT_STREQ(line, "   37           0.8222      2  ENOENT");
	free(line);
	line = line_with(out, "  openat  ");
	EXPECT_STREQ(line, "    42     50           0.8400  x64  257  openat   ENOENT(2)=37 EACCES(13)=5            0");
	free(line);
	line = line_with(out, "  close  ");
	EXPECT_STREQ(line, "     3     10           0.3000  x64    3  close    EBADF(9)=3                           0");
	free(line);
	line = line_with(out, "__open64");
	EXPECT_TRUE(strstr(line, "    42     50          1  openat  "));
	EXPECT_TRUE(strstr(line, "ENOENT(2)=37 EACCES(13)=5"));
	free(line);
	line = line_with(out, "  500  errnos");
	EXPECT_TRUE(strstr(line, "ENOENT(2)=37 EACCES(13)=5 EBADF(9)=3"));
	free(line);
	EXPECT_FALSE(strstr(out, "read"));
	free(out);

	out = print(&r, ST_FMT_CSV, NULL);
	EXPECT_STREQ(out,
		     "errors,calls,errors_fraction,abi,nr,syscall,errnos,errno_other\n"
		     "42,50,0.8400,x64,257,openat,ENOENT(2)=37 EACCES(13)=5,0\n"
		     "3,10,0.3000,x64,3,close,EBADF(9)=3,0\n");
	free(out);
	out = print(&r, ST_FMT_CSV, "errnos");
	EXPECT_STREQ(out, "count,errors_fraction,errno,errno_name\n"
		     "37,0.8222,2,ENOENT\n5,0.1111,13,EACCES\n3,0.0667,9,EBADF\n");
	free(out);

	out = print(&r, ST_FMT_JSON, NULL);
	doc = json_loads(out, 0, NULL);
	ASSERT_TRUE(doc);
	EXPECT_EQ(json_integer_value(json_object_get(doc, "schema_version")), 2);
	row = json_array_get(json_object_get(doc, "sites"), 0);
	EXPECT_STREQ(json_string_value(json_object_get(row, "symbol")), "__open64");
	EXPECT_STREQ(compact(json_object_get(row, "errnos")), "{\"ENOENT\":37,\"EACCES\":5}");
	EXPECT_EQ(json_integer_value(json_object_get(row, "errno_other")), 0);
	row = json_array_get(json_object_get(doc, "sites"), 1);
	EXPECT_STREQ(compact(json_object_get(row, "errnos")), "{\"EBADF\":3}");
	row = json_array_get(json_object_get(doc, "processes"), 0);
	EXPECT_STREQ(compact(json_object_get(row, "errnos")),
		     "{\"ENOENT\":37,\"EACCES\":5,\"EBADF\":3}");
	EXPECT_EQ(json_array_size(json_object_get(doc, "errnos")), 3);
	json_decref(doc);
	free(out);
	rt_report_free(&r);
	st_dump_free(&d);
}

/* Errnos not counted (an older tracer): said, and the counts stay. */
TEST(report_errors_without_errnos)
{
	struct report_opts o = { 0 };
	struct rt_report r = { .name = "errors" };
	struct st_dump d;
	char *out;
	size_t i;

	errnos_fixture(&d);
	for (i = 0; i < d.nsites; i++)
		d.sites[i].errnos = NULL;
	r.dump = &d;
	ASSERT_EQ(report_errors(&r, &d, &o), 0);
	out = print(&r, ST_FMT_TEXT, NULL);
	EXPECT_TRUE(strstr(out, "errnos: unknown (the tracer of this session did not count them)"));
	EXPECT_TRUE(strstr(out, "    42     50           0.8400  x64  257  openat\n"));
	free(out);
	rt_report_free(&r);
	st_dump_free(&d);
}

/*
 * From a log (report --input LOG): every call's return is in the log, so
 * the site rows read from it have their errnos, exact.
 */
TEST(report_errors_takes_errnos_from_a_log)
{
	static const char head[] =
		"session_id,proc_id,pid,tid,comm,seq,ts_ns,dur_ns,event,abi,nr,syscall,ret,errno,"
		"addr,map,path,offset,symbol,phase,early,child_proc_id,child_pid,exit_code,exit_signal\n"
		"7,1,1000,1000,cc,,1000,,exec,,,,,,,,/usr/bin/cc,,,,,,,,\n";
	/* openat at one site: 3 ENOENT, 1 EACCES, 1 success; close: 1 EBADF. */
	static const int rets[] = { -2, -2, -13, 3, -2, -9 };
	struct st_log_sums sums = { 0 };
	struct report_opts o = { 0 };
	struct rt_report r = { .name = "errors" };
	const struct st_site_row *open_site = NULL, *close_site = NULL;
	char path[] = "/tmp/systrace-test-errors-XXXXXX";
	struct st_dump d;
	struct st_err err;
	size_t i;
	char *out;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0);
	f = fdopen(fd, "w");
	ASSERT_TRUE(f);
	fputs(head, f);
	for (i = 0; i < sizeof(rets) / sizeof(rets[0]); i++) {
		bool close = i == 5;

		fprintf(f, "7,1,1000,1000,cc,%zu,%zu,100,syscall,x64,%d,%s,%d,%s,%s,file,"
			"/usr/lib/x86_64-linux-gnu/libc.so.6,%s,%s,program,0,,,,\n",
			i, 2000 + 1000 * i, close ? 3 : 257, close ? "close" : "openat",
			rets[i], rets[i] < 0 ? (rets[i] == -2 ? "2" : rets[i] == -13 ? "13" : "9") : "",
			close ? "0x7f0000120200" : "0x7f0000120100", close ? "0x20200" : "0x20100",
			close ? "close" : "open64");
	}
	ASSERT_EQ(fclose(f), 0);
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(st_log_load(path, &d, &sums, NULL, NULL, &err), 0);
	unlink(path);
	for (i = 0; i < d.nsites; i++) {
		if (d.sites[i].nr == 257)
			open_site = &d.sites[i];
		if (d.sites[i].nr == 3)
			close_site = &d.sites[i];
	}
	ASSERT_TRUE(open_site && close_site);
	EXPECT_EQ(open_site->calls, 5);
	EXPECT_EQ(open_site->errors, 4);
	ASSERT_TRUE(open_site->errnos);
	EXPECT_EQ(open_site->errnos->n, 2);
	EXPECT_EQ(open_site->errnos->v[0].err, 2);
	EXPECT_EQ(open_site->errnos->v[0].count, 3);
	EXPECT_EQ(open_site->errnos->v[1].err, 13);
	EXPECT_EQ(open_site->errnos->v[1].count, 1);
	EXPECT_EQ(open_site->errnos->other, 0);
	ASSERT_TRUE(close_site->errnos);
	EXPECT_EQ(close_site->errnos->n, 1);
	EXPECT_EQ(close_site->errnos->v[0].err, 9);
	EXPECT_EQ(close_site->errnos->v[0].count, 1);
	r.dump = &d;
	o.log = &sums;
	ASSERT_EQ(report_errors(&r, &d, &o), 0);
	out = print(&r, ST_FMT_TEXT, NULL);
	EXPECT_TRUE(strstr(out, "ENOENT(2)=3 EACCES(13)=1"));
	free(out);
	rt_report_free(&r);
	st_log_sums_free(&sums);
	st_dump_free(&d);
}

/*
 * An errnos cell narrower than its text loses whole entries, never a part
 * of a name or a count, and says how many: "+N more". The JSON keeps all,
 * an errno with no name keyed by its number; CSV keeps the string.
 */
TEST(errnos_cell_keeps_whole_entries)
{
	static const char *const cols[] = { "errnos", "wide" };
	static const char *const keep[] = { "errnos", "wide", NULL };
	struct rt_report r = { .name = "demo" };
	struct rt_table *t = rt_table_new("rows", NULL, cols, 2);
	struct st_dump d = { 0 };
	struct st_cell *c;
	char *out, *line, wide[21];
	json_t *doc;

	memset(wide, 'w', 20);
	wide[20] = '\0';
	r.dump = &d;
	ASSERT_EQ(rt_table_keep(t, keep), 0);
	c = rt_row(t);
	ASSERT_EQ(rt_str(&c[0], "EINVAL(22)=10922 ENOENT(2)=1582 ENOTDIR(20)=5 (4000)=1 "
			 "ERESTARTNOHAND(514)=123456789012 ENAMETOOLONG(36)=4"), 0);
	c[0].kind = ST_COUNTS;
	ASSERT_EQ(rt_str(&c[1], wide), 0);
	ASSERT_EQ(rt_add(&r, t), 0);

	out = print(&r, ST_FMT_TEXT, NULL);
	line = line_with(out, "EINVAL");
	/* 100 columns: 20 for wide, 2 between, 78 for the 106 of the errnos. */
	EXPECT_STREQ(line, "EINVAL(22)=10922 ENOENT(2)=1582 ENOTDIR(20)=5 (4000)=1 +2 more"
			   "                  wwwwwwwwwwwwwwwwwwww");
	free(line);
	free(out);
	out = print(&r, ST_FMT_CSV, NULL);
	EXPECT_TRUE(strstr(out, "\nEINVAL(22)=10922 ENOENT(2)=1582 ENOTDIR(20)=5 (4000)=1 "
			   "ERESTARTNOHAND(514)=123456789012 ENAMETOOLONG(36)=4,"));
	free(out);
	out = print(&r, ST_FMT_JSON, NULL);
	doc = json_loads(out, 0, NULL);
	ASSERT_TRUE(doc);
	EXPECT_STREQ(compact(json_object_get(json_array_get(json_object_get(doc, "rows"), 0), "errnos")),
		     "{\"EINVAL\":10922,\"ENOENT\":1582,\"ENOTDIR\":5,\"4000\":1,"
		     "\"ERESTARTNOHAND\":123456789012,\"ENAMETOOLONG\":4}");
	json_decref(doc);
	free(out);
	rt_report_free(&r);
}
