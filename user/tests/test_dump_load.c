// SPDX-License-Identifier: GPL-2.0
/*
 * report --input's loader, which reads a saved dump row by row: any layout
 * of the document gives the rows the whole-tree loader gives, and a bad
 * file is refused with the line jansson finds for the whole document.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "libsystrace.h"
#include "test.h"

static char path[64];

/* The fixture, one of its sites symbolized, as `dump --json --syscalls` writes it. */
static char *fixture_text(void)
{
	struct st_view v;
	struct st_dump d;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	st_fixture_symbolized(&d);
	v = (struct st_view){ .dump = &d };
	f = open_memstream(&text, &len);
	st_json_dump(f, &v, true, false);
	fclose(f);
	st_dump_free(&d);
	return text;
}

static char *dump_text(struct st_dump *d)
{
	struct st_view v = { .dump = d };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&text, &len);
	st_json_dump(f, &v, true, false);
	fclose(f);
	return text;
}

static int load_text(const char *text, struct st_dump *d, struct st_err *err)
{
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/tmp/systrace-load-%d.json", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	fclose(f);
	ret = st_dump_load(path, d, err);
	unlink(path);
	return ret;
}

/* err's message without the file name in front. */
static const char *why(const struct st_err *err)
{
	size_t n = strlen(path);

	if (strncmp(err->msg, path, n) || strncmp(err->msg + n, ": ", 2))
		return err->msg;
	return err->msg + n + 2;
}

/* What jansson says of the whole document, as the loader words it. */
static const char *whole_doc_error(const char *text)
{
	static char buf[256];
	json_error_t jerr;
	json_t *doc;

	doc = json_loads(text, 0, &jerr);
	json_decref(doc);
	if (doc)
		return "(valid JSON)";
	snprintf(buf, sizeof(buf), "line %d: %s", jerr.line, jerr.text);
	return buf;
}

static char *replace(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	if (!at)
		return strdup("(no such text)");
	if (asprintf(&out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) < 0)
		return NULL;
	return out;
}

static int line_of(const char *text, const char *what)
{
	const char *at = strstr(text, what), *p;
	int line = 1;

	for (p = text; at && p < at; p++)
		line += *p == '\n';
	return at ? line : -1;
}

/*
 * systracectl's own layout (a row a line), jq's (two spaces, a key a line),
 * keys sorted (processes before session: their counter column waits for
 * the session) and one line: all the rows of the whole-tree loader.
 */
TEST(dump_load_reads_any_layout)
{
	static const size_t flags[] = {
		JSON_INDENT(2) | JSON_PRESERVE_ORDER,
		JSON_INDENT(1) | JSON_SORT_KEYS,
		JSON_COMPACT | JSON_PRESERVE_ORDER,
	};
	char *text = fixture_text(), *want, *got, *layout, why_[256];
	struct st_dump d, e;
	struct st_err err;
	json_error_t jerr;
	json_t *doc;
	size_t i;

	doc = json_loads(text, 0, &jerr);
	ASSERT_TRUE(doc);
	ASSERT_EQ(st_dump_load_json(doc, &d, why_, sizeof(why_)), 0);
	want = dump_text(&d);

	ASSERT_EQ(load_text(text, &e, &err), 0);
	EXPECT_EQ(e.nprocs, 2);
	EXPECT_EQ(e.nsites, 3);
	EXPECT_TRUE(e.symbolized);
	EXPECT_EQ(e.procs[1].counter_value, d.procs[1].counter_value);
	got = dump_text(&e);
	EXPECT_STREQ(got, want);
	free(got);
	st_dump_free(&e);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		layout = json_dumps(doc, flags[i]);
		ASSERT_EQ(load_text(layout, &e, &err), 0);
		EXPECT_EQ(e.session.counters, SYSTRACE_COUNTERS_INSTRUCTIONS);
		EXPECT_TRUE(e.procs[0].has_counter_value);
		got = dump_text(&e);
		EXPECT_STREQ(got, want);
		free(got);
		free(layout);
		st_dump_free(&e);
	}
	/* a key spelled with escapes, odd spacing, an unknown key of each kind */
	layout = replace(text, "\"sites\":[", " \"\\u0073ites\"\r\n :\t[ ");
	got = replace(layout, "{\"schema_version\":1,",
		      "{\"new\":[{\"a\":[1]},2],\"n\":-1.5e3,\"s\":\"}]\\\"\",\"schema_version\":1 ,");
	ASSERT_EQ(load_text(got, &e, &err), 0);
	free(got);
	got = dump_text(&e);
	EXPECT_STREQ(got, want);
	free(got);
	free(layout);
	st_dump_free(&e);

	json_decref(doc);
	free(want);
	free(text);
	st_dump_free(&d);
}

/* Each refusal names the line: jansson's for bad JSON, the row's for a bad row. */
/*
 * Keys sorted, the process rows before the session: a process row's error
 * names its own line, not the session's (its conversion waits for it).
 */
static void early_row_line(const char *text, bool *failed)
{
	const char *s0 = strstr(text, "\n\"session\":") + 1;
	char *session = strndup(s0, (size_t)(strchr(s0, '\n') + 1 - s0));
	char *cut = replace(text, session, ""), *to, *moved, *bad, want[256];
	struct st_dump e;
	struct st_err err;
	int line;

	ASSERT_TRUE(asprintf(&to, "%s\"sites\":[", session) > 0);
	moved = replace(cut, "\"sites\":[", to);
	EXPECT_EQ(load_text(moved, &e, &err), 0);
	st_dump_free(&e);
	bad = replace(moved, "\"pid\":101,", "\"pid\":\"101\",");
	line = line_of(bad, "\"pid\":\"101\"");
	EXPECT_TRUE(line > 0 && line < line_of(bad, "\"session\":"));
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	snprintf(want, sizeof(want), "line %d: processes: key \"pid\" is missing or of the wrong type",
		 line);
	EXPECT_STREQ(why(&err), want);
	free(session);
	free(cut);
	free(to);
	free(moved);
	free(bad);
}

TEST(dump_load_refuses_bad_files)
{
	char *text = fixture_text(), *bad, want[256];
	struct st_dump e;
	struct st_err err;
	int line;

	EXPECT_EQ(load_text("", &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "line 1: '[' or '{' expected near end of file");
	EXPECT_EQ(load_text("proc_id,pid,comm\n1,2,sh\n", &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "line 1: '[' or '{' expected near 'proc'");
	EXPECT_EQ(load_text("[1,2]\n", &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "not a `dump --json` document of schema_version 1 "
		     "(with session, processes, sites)");
	EXPECT_EQ(load_text("{\"schema_version\":1}", &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "not a `dump --json` document of schema_version 1 "
		     "(with session, processes, sites)");
	EXPECT_EQ(load_text("{\"schema_version\":2,\"session\":{}}", &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "not a `dump --json` document of schema_version 1 "
		     "(with session, processes, sites)");
	EXPECT_EQ(err.kind, ST_ERR_LOCAL);
	EXPECT_EQ(err.err, 0);

	bad = replace(text, "{\"schema_version\":1,", "{");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "document: key \"schema_version\" is missing or of the wrong type");
	free(bad);
	bad = replace(text, "\"sites\":[", "\"sites\":{}, \"x\":[");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "not a `dump --json` document of schema_version 1 "
		     "(with session, processes, sites)");
	free(bad);
	bad = replace(text, "\"id\":7,", "");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "line 2: session: key \"id\" is missing or of the wrong type");
	free(bad);

	/* a row's key missing or of the wrong type: the row's line */
	line = line_of(text, "\"addr\":\"0xf7f00000\"");
	bad = replace(text, "\"addr\":\"0xf7f00000\",", "");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	snprintf(want, sizeof(want), "line %d: sites: key \"addr\" is missing or of the wrong type",
		 line);
	EXPECT_STREQ(why(&err), want);
	EXPECT_TRUE(line > 5);
	free(bad);
	line = line_of(text, "\"pid\":101,");
	bad = replace(text, "\"pid\":101,", "\"pid\":\"101\",");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	snprintf(want, sizeof(want), "line %d: processes: key \"pid\" is missing or of the wrong type",
		 line);
	EXPECT_STREQ(why(&err), want);
	free(bad);
	bad = replace(text, "\"pid\":101,", "\"pid\":101,\"x\":[1,}");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), whole_doc_error(bad));
	snprintf(want, sizeof(want), "line %d: unexpected token near '}'", line);
	EXPECT_STREQ(why(&err), want);
	free(bad);
	early_row_line(text, failed);
	bad = replace(text, "]}", "],}");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), whole_doc_error(bad));
	EXPECT_TRUE(strstr(why(&err), "string or '}' expected"));
	free(bad);
	bad = replace(text, "\"sites\":[", "\"sites\":[7,");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "line 8: sites: key \"(row)\" is missing or of the wrong type");
	free(bad);

	/* truncated anywhere: jansson's message and line for the whole document */
	bad = strdup(text);
	bad[strstr(text, "\"calls\":4") - text + 5] = '\0';
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), whole_doc_error(bad));
	EXPECT_STREQ(why(&err), "line 10: premature end of input near '\"call'");
	bad[strlen(text) - 3] = '\0';
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), whole_doc_error(bad));
	free(bad);
	bad = replace(text, "]}", "]} x");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), whole_doc_error(bad));
	free(bad);
	bad = replace(text, "\"totals\":", "\"totals\" ");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), whole_doc_error(bad));
	free(bad);
	bad = replace(text, "\"totals\":", "\"sites\":[],\"totals\":");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "line 8: key \"sites\" given twice");
	free(bad);

	EXPECT_EQ(st_dump_load("/nonexistent/a.json", &e, &err), -ENOENT);
	EXPECT_EQ(st_dump_load("/tmp", &e, &err), -EISDIR);
	EXPECT_EQ(err.err, EISDIR);
	free(text);
}

/*
 * Two process rows of one id: refused by both loaders, since a lookup by
 * id (a site's process, a parent) could find either row.
 */
TEST(dump_load_refuses_two_processes_of_one_id)
{
	static const char msg[] = "processes: two rows of id 1 (an id is one process image's)";
	char *text = fixture_text(), *bad, why_[256];
	struct st_dump e;
	struct st_err err;
	json_error_t jerr;
	json_t *doc;

	bad = replace(text, "7,\"id\":2,", "7,\"id\":1,");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), msg);
	doc = json_loads(bad, 0, &jerr);
	ASSERT_TRUE(doc);
	EXPECT_EQ(st_dump_load_json(doc, &e, why_, sizeof(why_)), -EINVAL);
	EXPECT_STREQ(why_, msg);
	json_decref(doc);
	free(bad);
	/* the same rows with distinct ids load */
	bad = replace(text, "7,\"id\":2,", "7,\"id\":3,");
	ASSERT_EQ(load_text(bad, &e, &err), 0);
	EXPECT_EQ(e.nprocs, 2);
	EXPECT_EQ(e.procs[1].id, 3);
	st_dump_free(&e);
	free(bad);
	free(text);
}

/* text loaded both ways: 0 with the dump each gives, or the first error. */
static int load_both(const char *text, struct st_dump *d, struct st_dump *e,
		     struct st_err *err)
{
	char why_[256];
	json_error_t jerr;
	json_t *doc;
	int ret;

	doc = json_loads(text, 0, &jerr);
	if (!doc)
		return -EINVAL;
	ret = st_dump_load_json(doc, d, why_, sizeof(why_));
	json_decref(doc);
	if (ret)
		return ret;
	ret = load_text(text, e, err);
	if (ret)
		st_dump_free(d);
	return ret;
}

/* Each escape decoded as jansson decodes it, a surrogate pair to one character. */
TEST(dump_load_decodes_escapes_as_jansson)
{
	char *text = fixture_text(), *a, *b, *c, *want, *got;
	struct st_dump d, e;
	struct st_err err;

	a = replace(text, "\"exe\":\"/bin/sh\"",
		    "\"exe\":\"/b\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\ude00\"");
	b = replace(a, "\"comm\":\"sh\",\"exe\"",
		    "\"comm\":\"\\u0073\\u00E9\\ud83d\\ude00\",\"exe\"");
	c = replace(b, "\"path\":\"/usr/lib/x86_64-linux-gnu/libc.so.6\"",
		    "\"path\":\"\\/usr\\/lib/x86_64-linux-gnu/libc.so.\\u0036\"");
	ASSERT_EQ(load_both(c, &d, &e, &err), 0);
	EXPECT_STREQ(e.procs[0].exe, "/b\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
	EXPECT_STREQ(e.procs[0].comm, "s\xc3\xa9\xf0\x9f\x98\x80");
	EXPECT_STREQ(e.procs[1].comm, "a,b\"c");
	EXPECT_STREQ(e.sites[0].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	want = dump_text(&d);
	got = dump_text(&e);
	EXPECT_STREQ(got, want);
	free(want);
	free(got);
	st_dump_free(&d);
	st_dump_free(&e);
	free(a);
	free(b);
	free(c);
	free(text);
}

/* An integer is an int64 as jansson reads it; a fraction or an exponent is a real. */
TEST(dump_load_reads_numbers_as_jansson)
{
	static const char *const refused[][2] = {
		{ "9223372036854775808", "line 5: too big integer near '9223372036854775808'" },
		{ "-9223372036854775809",
		  "line 5: too big negative integer near '-9223372036854775809'" },
		{ "1e999", "line 5: real number overflow near '1e999'" },
		{ "0100", "line 5: invalid token near '0'" },
		{ "1.", "line 5: invalid token near '1.'" },
		{ "-", "line 5: invalid token near '-'" },
	};
	static const char *const reals[] = { "1000.0", "1e3", "1E+3", "-0.5e-1" };
	char *text = fixture_text(), *bad, *n;
	struct st_dump e;
	struct st_err err;
	size_t i;

	bad = replace(text, "\"start_ns\":1000,", "\"start_ns\":9223372036854775807,");
	ASSERT_EQ(load_text(bad, &e, &err), 0);
	EXPECT_EQ(e.procs[0].start_ns, INT64_MAX);
	st_dump_free(&e);
	free(bad);
	bad = replace(text, "\"start_ns\":1000,", "\"start_ns\":-0,");
	ASSERT_EQ(load_text(bad, &e, &err), 0);
	EXPECT_EQ(e.procs[0].start_ns, 0);
	st_dump_free(&e);
	free(bad);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (asprintf(&n, "\"start_ns\":%s,", refused[i][0]) < 0)
			abort();
		bad = replace(text, "\"start_ns\":1000,", n);
		EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
		EXPECT_STREQ(why(&err), whole_doc_error(bad));
		EXPECT_STREQ(why(&err), refused[i][1]);
		free(bad);
		free(n);
	}
	for (i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		if (asprintf(&n, "\"start_ns\":%s,", reals[i]) < 0)
			abort();
		bad = replace(text, "\"start_ns\":1000,", n);
		EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
		EXPECT_STREQ(why(&err),
			     "line 5: processes: key \"start_ns\" is missing or of the wrong type");
		free(bad);
		free(n);
	}
	free(text);
}

/* An unknown key may hold anything; a known key holding an object is refused. */
TEST(dump_load_skips_nested_unknown_values)
{
	char *text = fixture_text(), *a, *b, *c, *want, *got;
	struct st_dump d, e;
	struct st_err err;

	a = replace(text, "\"pid\":101,", "\"pid\":101,\"new\":{\"a\":[1,{\"b\":null}],\"c\":\"}]\"},");
	b = replace(a, "\"calls\":4,", "\"calls\":4,\"new\":[],\"more\":{},");
	c = replace(b, "\"flags\":1,", "\"flags\":1,\"limits\":{\"rows\":[2,3]},");
	ASSERT_EQ(load_both(c, &d, &e, &err), 0);
	EXPECT_EQ(e.nprocs, 2);
	EXPECT_EQ(e.nsites, 3);
	EXPECT_EQ(e.procs[1].pid, 101);
	EXPECT_EQ(e.session.flags, 1);
	want = dump_text(&d);
	got = dump_text(&e);
	EXPECT_STREQ(got, want);
	free(got);
	st_dump_free(&e);
	st_dump_free(&d);
	/* the same as the file without them */
	ASSERT_EQ(load_text(text, &e, &err), 0);
	got = dump_text(&e);
	EXPECT_STREQ(got, want);
	free(got);
	free(want);
	st_dump_free(&e);
	free(a);
	free(b);
	free(c);

	a = replace(text, "\"comm\":\"sh\",", "\"comm\":[\"sh\"],");
	EXPECT_EQ(load_text(a, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "line 5: processes: key \"comm\" is missing or of the wrong type");
	free(a);
	free(text);
}

/* A key given twice in a row: its last value, as jansson keeps it. */
TEST(dump_load_keeps_the_last_of_duplicate_keys)
{
	char *text = fixture_text(), *a, *b, *want, *got;
	struct st_dump d, e;
	struct st_err err;

	a = replace(text, "\"pid\":100,", "\"pid\":\"x\",\"pid\":100,");
	b = replace(a, "\"attached\":false,", "\"attached\":false,\"tgid\":42,\"attached\":true,");
	ASSERT_EQ(load_both(b, &d, &e, &err), 0);
	EXPECT_EQ(e.procs[0].pid, 100);
	EXPECT_EQ(e.procs[0].tgid, 42);
	EXPECT_TRUE(e.procs[0].attached);
	EXPECT_EQ(d.procs[0].tgid, 42);
	want = dump_text(&d);
	got = dump_text(&e);
	EXPECT_STREQ(got, want);
	free(want);
	free(got);
	st_dump_free(&d);
	st_dump_free(&e);
	free(a);
	a = replace(text, "\"pid\":100,", "\"pid\":100,\"pid\":\"x\",");
	EXPECT_EQ(load_text(a, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), "line 5: processes: key \"pid\" is missing or of the wrong type");
	free(a);
	free(b);
	free(text);
}

/* text with blanks of each kind around each token outside its strings. */
static char *spaced(const char *text)
{
	bool in = false, esc = false;
	char *out = NULL;
	size_t len = 0;
	const char *p;
	FILE *f;

	f = open_memstream(&out, &len);
	for (p = text; *p; p++) {
		if (in) {
			fputc(*p, f);
			if (esc)
				esc = false;
			else if (*p == '\\')
				esc = true;
			else if (*p == '"')
				in = false;
		} else if (*p == '"') {
			fputs(" \t\"", f);
			in = true;
		} else if (strchr("{}[]:,", *p)) {
			fprintf(f, " \r\n%c\t ", *p);
		} else {
			fputc(*p, f);
		}
	}
	fclose(f);
	return out;
}

TEST(dump_load_takes_whitespace_everywhere)
{
	char *text = fixture_text(), *s = spaced(text), *want, *got;
	struct st_dump d, e;
	struct st_err err;

	EXPECT_TRUE(strstr(s, "\"pid\" \r\n:\t 100 \r\n,\t  \t\"tgid\""));
	ASSERT_EQ(load_both(s, &d, &e, &err), 0);
	EXPECT_EQ(e.nprocs, 2);
	EXPECT_EQ(e.nsites, 3);
	want = dump_text(&d);
	got = dump_text(&e);
	EXPECT_STREQ(got, want);
	free(want);
	free(got);
	st_dump_free(&d);
	st_dump_free(&e);
	free(s);
	free(text);
}

/* Bad JSON inside a row: jansson's message, at the line it gives. */
TEST(dump_load_refuses_bad_rows_as_jansson)
{
	static const char *const bad_comm[] = {
		"\"s\\x\"", "\"s\\u00G0\"", "\"s\\u0000\"", "\"s\\ud83d\"", "\"s\\ud83d\\u0041\"",
		"\"s\\ude00\"", "\"s\xff\"", "\"s\xc0\xaf\"", "\"s\xed\xa0\x80\"", "\"s\xe2\x82\"",
		"\"s\x01\"", "\"s\n\"", "tru", "nul", "falsey", "'sh'", "\"sh\" \"x\"",
		"\"sh\",}", "\"sh\",,",
	};
	char *text = fixture_text(), *bad, *n;
	struct st_dump e;
	struct st_err err;
	size_t i;

	for (i = 0; i < sizeof(bad_comm) / sizeof(bad_comm[0]); i++) {
		if (asprintf(&n, "\"comm\":%s,", bad_comm[i]) < 0)
			abort();
		bad = replace(text, "\"comm\":\"sh\",", n);
		EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
		EXPECT_STREQ(why(&err), whole_doc_error(bad));
		EXPECT_TRUE(!strncmp(why(&err), "line 5: ", 8) || !strncmp(why(&err), "line 6: ", 8));
		free(bad);
		free(n);
	}
	bad = replace(text, "\"pid\":100,", "\"pid\" 100,");
	EXPECT_EQ(load_text(bad, &e, &err), -EINVAL);
	EXPECT_STREQ(why(&err), whole_doc_error(bad));
	EXPECT_STREQ(why(&err), "line 5: ':' expected near '100'");
	free(bad);
	free(text);
}

/*
 * The errno columns read back: the fixture's EAGAIN, the other sites'
 * none; without errno_other the errnos are unknown. Counts that do not add
 * up to errors, a malformed list, an errno out of range or given twice,
 * and one column without the other are refused, with the row's line.
 */
TEST(dump_load_reads_errnos_and_refuses_bad_ones)
{
	static const struct {
		const char *from, *to, *why;
	} bad[] = {
		{ "\"errnos\":\"EAGAIN(11)=1\"", "\"errnos\":\"EAGAIN(11)=2\"",
		  "key \"errno_other\": the errno counts and errno_other do not add up to errors" },
		{ "\"errnos\":\"EAGAIN(11)=1\"", "\"errnos\":\"EAGAIN(11)\"",
		  "key \"errnos\": not NAME(ERRNO)=COUNT ..., each errno (1..4095) once, at most 4" },
		{ "\"errnos\":\"EAGAIN(11)=1\"", "\"errnos\":\"(4096)=1\"",
		  "key \"errnos\": not NAME(ERRNO)=COUNT ..., each errno (1..4095) once, at most 4" },
		{ "\"errnos\":\"EAGAIN(11)=1\"", "\"errnos\":\"EAGAIN(11)=0\"",
		  "key \"errnos\": not NAME(ERRNO)=COUNT ..., each errno (1..4095) once, at most 4" },
		{ "\"errnos\":\"EAGAIN(11)=1\"", "\"errnos\":\"(11)=1 (11)=1\"",
		  "key \"errnos\": not NAME(ERRNO)=COUNT ..., each errno (1..4095) once, at most 4" },
		{ "\"errnos\":\"EAGAIN(11)=1\",\"errno_other\":0", "\"errnos\":\"EAGAIN(11)=1\"",
		  "key \"errno_other\": errnos without errno_other" },
		{ "\"errnos\":\"EAGAIN(11)=1\",", "",
		  "key \"errnos\": errno_other without errnos" },
	};
	char *text = fixture_text(), *t, want[256];
	const struct st_errnos *e0;
	struct st_dump e;
	struct st_err err;
	size_t i;
	int line;

	ASSERT_EQ(load_text(text, &e, &err), 0);
	e0 = e.sites[0].errnos;
	ASSERT_TRUE(e0);
	EXPECT_EQ(e0->n, 1);
	EXPECT_EQ(e0->v[0].err, 11);
	EXPECT_EQ(e0->v[0].count, 1);
	EXPECT_EQ(e0->other, 0);
	ASSERT_TRUE(e.sites[2].errnos);
	EXPECT_EQ(e.sites[2].errnos->n, 0);
	st_dump_free(&e);

	t = replace(text, "\"errnos\":\"EAGAIN(11)=1\",\"errno_other\":0",
		    "\"errnos\":null,\"errno_other\":null");
	ASSERT_EQ(load_text(t, &e, &err), 0);
	EXPECT_NULL(e.sites[0].errnos);
	EXPECT_TRUE(e.sites[1].errnos);
	st_dump_free(&e);
	free(t);

	line = line_of(text, "\"errnos\":\"EAGAIN(11)=1\"");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = replace(text, bad[i].from, bad[i].to);
		EXPECT_EQ(load_text(t, &e, &err), -EINVAL);
		snprintf(want, sizeof(want), "line %d: sites: %s", line, bad[i].why);
		EXPECT_STREQ(why(&err), want);
		free(t);
	}
	free(text);
}
