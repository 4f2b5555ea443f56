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
#include "systrace.h"
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

	st_fixture(&d);
	d.symbolized = true;
	if (st_dump_sym(&d, &(struct st_sym){
			.object = "/usr/lib/x86_64-linux-gnu/libc.so.6",
			.symbol = "getpid",
			.has_symbol_offset = true,
			.symbol_offset = 0x9,
		}, &d.sites[0].sym))
		abort();
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
