// SPDX-License-Identifier: GPL-2.0
/* JSON: one document of the documented shape; keys are the CSV columns. */
#include <stdlib.h>
#include <string.h>
#include "model/check.h"
#include "model/dump_json.h"
#include "out/json_str.h"
#include "test.h"

static json_t *dump_doc(const struct st_dump *d, bool syscalls, char **text)
{
	struct st_view v = { .dump = d };
	struct st_sysagg *aggs = NULL;
	json_error_t jerr;
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	json_t *doc;

	if (syscalls)
		st_aggregate_syscalls(d, true, &aggs, &v.naggs);
	v.aggs = aggs;
	if (st_json_dump(f, &v, syscalls, d->session.state != SYSTRACE_STATE_FINISHED))
		return NULL;
	fclose(f);
	free(aggs);
	doc = json_loads(*text, 0, &jerr);
	if (!doc)
		printf("# json error: %s at line %d\n", jerr.text, jerr.line);
	return doc;
}

static void expect_keys(bool *failed, json_t *obj, const char *const *keys, size_t n)
{
	const char *key;
	json_t *val;
	size_t i = 0;

	EXPECT_EQ(json_object_size(obj), n);
	json_object_foreach(obj, key, val) {
		(void)val;
		if (i < n)
			EXPECT_STREQ(key, keys[i]);
		i++;
	}
}

TEST(json_document_shape)
{
	static const char *const top[] = {
		"schema_version", "session", "totals", "selection", "processes",
		"sites",
	};
	struct st_dump d;
	char *text;
	json_t *doc;

	st_fixture(&d);
	doc = dump_doc(&d, false, &text);
	ASSERT_TRUE(doc);
	expect_keys(failed, doc, top, 6);
	EXPECT_EQ(json_integer_value(json_object_get(doc, "schema_version")), 1);
	EXPECT_TRUE(json_is_null(json_object_get(doc, "selection")));
	EXPECT_EQ(json_array_size(json_object_get(doc, "processes")), 2);
	EXPECT_EQ(json_array_size(json_object_get(doc, "sites")), 3);
	EXPECT_NULL(json_object_get(doc, "syscalls"));
	/* one document, ending in a newline */
	EXPECT_EQ(text[strlen(text) - 1], '\n');
	json_decref(doc);
	st_dump_free(&d);
}

TEST(json_syscalls_table_is_added)
{
	struct st_dump d;
	json_t *doc, *rows;
	char *text;

	st_fixture(&d);
	doc = dump_doc(&d, true, &text);
	ASSERT_TRUE(doc);
	EXPECT_EQ(json_object_size(doc), 7);
	rows = json_object_get(doc, "syscalls");
	ASSERT_EQ(json_array_size(rows), 3);
	EXPECT_EQ(json_integer_value(json_object_get(json_array_get(rows, 0), "calls")), 6);
	EXPECT_STREQ(json_string_value(json_object_get(json_array_get(rows, 1), "abi")), "ia32");
	json_decref(doc);
	st_dump_free(&d);
}

/* The keys of a row are the CSV header, in order. */
static void expect_csv_keys(bool *failed, json_t *row, enum st_table_kind kind,
			    bool symbols)
{
	struct st_colset t;
	const char *key;
	json_t *val;
	size_t i = 0;

	st_colset_get(kind, symbols, &t);
	EXPECT_EQ(json_object_size(row), st_colset_ncolumns(&t));
	json_object_foreach(row, key, val) {
		(void)val;
		EXPECT_STREQ(key, st_colset_column(&t, i)->name);
		i++;
	}
}

TEST(json_row_keys_equal_csv_columns)
{
	struct st_dump d;
	json_t *doc;
	char *text;

	st_fixture(&d);
	doc = dump_doc(&d, true, &text);
	ASSERT_TRUE(doc);
	expect_csv_keys(failed, json_array_get(json_object_get(doc, "processes"), 0),
			ST_TABLE_PROCESSES, false);
	expect_csv_keys(failed, json_array_get(json_object_get(doc, "sites"), 0),
			ST_TABLE_SITES, false);
	expect_csv_keys(failed, json_array_get(json_object_get(doc, "syscalls"), 0),
			ST_TABLE_SYSCALLS, false);
	json_decref(doc);
	st_dump_free(&d);
}

TEST(json_values_types_and_nulls)
{
	struct st_dump d;
	json_t *doc, *p0, *p1, *s0, *s1;
	char *text;

	st_fixture(&d);
	doc = dump_doc(&d, false, &text);
	ASSERT_TRUE(doc);
	p0 = json_array_get(json_object_get(doc, "processes"), 0);
	p1 = json_array_get(json_object_get(doc, "processes"), 1);
	s0 = json_array_get(json_object_get(doc, "sites"), 0);
	s1 = json_array_get(json_object_get(doc, "sites"), 1);

	EXPECT_TRUE(json_is_integer(json_object_get(p0, "id")));
	EXPECT_TRUE(json_is_null(json_object_get(p0, "parent_id")));
	EXPECT_EQ(json_integer_value(json_object_get(p1, "parent_id")), 1);
	EXPECT_EQ(json_integer_value(json_object_get(p0, "wall_ns")), 4000);
	EXPECT_TRUE(json_is_null(json_object_get(p1, "wall_ns")));
	EXPECT_TRUE(json_is_null(json_object_get(p1, "end_ns")));
	EXPECT_TRUE(json_is_null(json_object_get(p1, "exe")));
	EXPECT_TRUE(json_is_false(json_object_get(p0, "core_dumped")));
	EXPECT_TRUE(json_is_null(json_object_get(p1, "core_dumped")));
	EXPECT_STREQ(json_string_value(json_object_get(p1, "comm")), "a,b\"c");
	EXPECT_STREQ(json_string_value(json_object_get(p0, "end")), "exited");
	EXPECT_STREQ(json_string_value(json_object_get(p0, "start_time")),
		     "2023-11-14T22:13:20.000001000Z");
	EXPECT_EQ(json_integer_value(json_object_get(p0, "instructions")), 20000);
	EXPECT_TRUE(json_is_null(json_object_get(p0, "cycles")));
	EXPECT_TRUE(json_is_null(json_object_get(p0, "task_clock_ns")));
	EXPECT_TRUE(json_is_real(json_object_get(p0, "syscalls_per_kinsn")));
	EXPECT_TRUE(json_real_value(json_object_get(p0, "syscalls_per_kinsn")) == 0.5);
	EXPECT_TRUE(strstr(text, "\"syscalls_per_kinsn\":0.5,\"attached\":false,"
			   "\"argv\":null,\"argv_truncated\":null}"));
	EXPECT_TRUE(json_is_true(json_object_get(p1, "attached")));
	EXPECT_TRUE(json_is_null(json_object_get(p1, "syscalls_per_kinsn")));

	EXPECT_STREQ(json_string_value(json_object_get(s0, "addr")), "0x7f0000001000");
	EXPECT_STREQ(json_string_value(json_object_get(s0, "offset")), "0xe1000");
	EXPECT_STREQ(json_string_value(json_object_get(s0, "syscall")), "getpid");
	EXPECT_EQ(json_integer_value(json_object_get(s0, "inode")), 1234);
	EXPECT_TRUE(json_is_null(json_object_get(s1, "inode")));
	EXPECT_TRUE(json_is_null(json_object_get(s1, "path")));
	EXPECT_STREQ(json_string_value(json_object_get(s1, "map")), "vdso");
	json_decref(doc);
	st_dump_free(&d);
}

TEST(json_session_and_totals)
{
	struct st_dump d;
	json_t *doc, *s, *t;
	char *text;

	st_fixture(&d);
	d.session.has_counters_error = true;
	strcpy(d.session.counters_error, "no PMU");
	doc = dump_doc(&d, false, &text);
	ASSERT_TRUE(doc);
	s = json_object_get(doc, "session");
	t = json_object_get(doc, "totals");
	EXPECT_EQ(json_integer_value(json_object_get(s, "id")), 7);
	EXPECT_STREQ(json_string_value(json_object_get(s, "name")), "build");
	EXPECT_STREQ(json_string_value(json_object_get(s, "state")), "finished");
	EXPECT_STREQ(json_string_value(json_object_get(s, "counters")), "instructions");
	EXPECT_STREQ(json_string_value(json_object_get(s, "counters_error")), "no PMU");
	EXPECT_EQ(json_integer_value(json_object_get(s, "instructions")), 20000);
	EXPECT_TRUE(json_is_null(json_object_get(s, "cycles")));
	EXPECT_EQ(json_integer_value(json_object_get(s, "syscalls")), 15);
	EXPECT_EQ(json_integer_value(json_object_get(t, "processes")), 2);
	EXPECT_EQ(json_integer_value(json_object_get(t, "sites")), 3);
	EXPECT_EQ(json_integer_value(json_object_get(t, "syscalls")), 15);
	EXPECT_EQ(json_integer_value(json_object_get(t, "syscall_ns")), 1500);
	EXPECT_TRUE(json_is_true(json_object_get(t, "consistent")));
	EXPECT_TRUE(json_is_false(json_object_get(t, "live")));
	EXPECT_TRUE(json_is_false(json_object_get(t, "interrupted")));
	json_decref(doc);
	st_dump_free(&d);
}

TEST(json_inconsistent_totals_are_flagged)
{
	struct st_dump d;
	json_t *doc;
	char *text;

	st_fixture(&d);
	d.session.syscall_ns = 1;
	doc = dump_doc(&d, false, &text);
	ASSERT_TRUE(doc);
	EXPECT_TRUE(json_is_false(json_object_get(json_object_get(doc, "totals"),
						  "consistent")));
	json_decref(doc);
	st_dump_free(&d);
}

TEST(json_empty_tables)
{
	struct st_dump d = { .session = { .id = 1 } };
	json_t *doc;
	char *text;

	doc = dump_doc(&d, true, &text);
	ASSERT_TRUE(doc);
	EXPECT_EQ(json_array_size(json_object_get(doc, "processes")), 0);
	EXPECT_TRUE(json_is_array(json_object_get(doc, "sites")));
	EXPECT_TRUE(json_is_null(json_object_get(json_object_get(doc, "session"), "name")));
	json_decref(doc);
}

TEST(json_invalid_utf8_becomes_replacement_character)
{
	struct st_dump d;
	json_t *doc, *p0;
	char *text;

	st_fixture(&d);
	free(d.procs[0].exe);
	d.procs[0].exe = strdup("/tmp/\xff\xfe-\xc3\xa9");
	doc = dump_doc(&d, false, &text);
	ASSERT_TRUE(doc);
	p0 = json_array_get(json_object_get(doc, "processes"), 0);
	EXPECT_STREQ(json_string_value(json_object_get(p0, "exe")),
		     "/tmp/\xef\xbf\xbd\xef\xbf\xbd-\xc3\xa9");
	json_decref(doc);
	st_dump_free(&d);
}

TEST(json_status_shape)
{
	struct st_status st = {
		.version = "0.1", .abi_version = 1, .sessions_live = 1,
		.mem_bytes = 4096, .probes_active = true,
		.params = { .max_sessions = 8, .max_procs = 100, .max_sites = 200,
			    .max_mem_bytes = 1 << 20 },
	};
	struct st_dump d;
	json_t *doc;

	st_fixture(&d);
	doc = st_json_status(&st, &d.session, 1);
	ASSERT_TRUE(doc);
	EXPECT_EQ(json_integer_value(json_object_get(doc, "schema_version")), 1);
	EXPECT_STREQ(json_string_value(json_object_get(doc, "version")), "0.1");
	EXPECT_EQ(json_integer_value(json_object_get(json_object_get(doc, "params"),
						     "max_sites")), 200);
	EXPECT_TRUE(json_is_true(json_object_get(doc, "probes_active")));
	EXPECT_EQ(json_array_size(json_object_get(doc, "sessions")), 1);
	EXPECT_EQ(json_integer_value(json_object_get(json_array_get(
		json_object_get(doc, "sessions"), 0), "mem_bytes")), 4096);
	json_decref(doc);
	st_dump_free(&d);
}

TEST(json_utf8_overlongs_and_surrogates_are_replaced)
{
	struct st_dump d;
	json_t *doc, *p0;
	char *text;

	st_fixture(&d);
	free(d.procs[0].exe);
	/* overlong '/', a UTF-16 surrogate, a valid 4-byte sequence */
	d.procs[0].exe = strdup("\xc0\xaf|\xed\xa0\x80|\xf0\x9f\x98\x80");
	doc = dump_doc(&d, false, &text);
	ASSERT_TRUE(doc);
	p0 = json_array_get(json_object_get(doc, "processes"), 0);
	EXPECT_STREQ(json_string_value(json_object_get(p0, "exe")),
		     "\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|"
		     "\xf0\x9f\x98\x80");
	json_decref(doc);
	st_dump_free(&d);
}

/*
 * st_utf8_valid and st_utf8_repair (the Perfetto trace's strings) give
 * what st_json_string gives: the same U+FFFD for the same bytes, and a
 * string left whole exactly when it is valid; a sequence cut by n is not.
 */
TEST(utf8_repair_is_json_strings_replacement)
{
	static const char *const cases[] = {
		"plain ASCII, longer than a word",
		"0123456789abcdef\xff",
		"\xc0\xaf|\xed\xa0\x80|\xf0\x9f\x98\x80",
		"\xc3\xa9\xe2\x9c\x93 od\x01\nd",
		"cut \xe2\x9c",
		"\xf5\x80\x80\x80",
		"",
	};
	char out[128];
	size_t i, n;
	json_t *j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		j = st_json_string(cases[i]);
		ASSERT_TRUE(j);
		n = st_utf8_repair(out, cases[i], strlen(cases[i]));
		out[n] = '\0';
		EXPECT_STREQ(out, json_string_value(j));
		EXPECT_EQ(st_utf8_valid(cases[i], strlen(cases[i])), !strcmp(out, cases[i]));
		json_decref(j);
	}
	EXPECT_EQ(i, 7);
	EXPECT_TRUE(st_utf8_valid("\xc3\xa9", 2));
	EXPECT_FALSE(st_utf8_valid("\xc3\xa9", 1));
	EXPECT_EQ(st_utf8_repair(out, "\xc3\xa9", 1), 3);
}

/* The rows of table kind of d as st_table_json prints them with flags. */
static char *table_json(const struct st_dump *d, enum st_table_kind kind, size_t flags)
{
	struct st_view v = { .dump = d };
	struct st_dump_table dt;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	st_dump_table(&dt, &v, kind, d->symbolized);
	if (st_table_json(f, &dt.t, flags)) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

/*
 * Dumps write rows straight to the stream; any other flags still go through
 * a jansson object per row (JSON_PRESERVE_ORDER changes nothing since
 * jansson 2.8). Both must print the same bytes, escapes and all.
 */
TEST(json_rows_print_as_jansson_would)
{
	static const enum st_table_kind kinds[] = { ST_TABLE_PROCESSES, ST_TABLE_SITES };
	struct st_dump d;
	char *text;
	size_t i;

	st_fixture(&d);
	free(d.procs[0].exe);
	d.procs[0].exe = strdup("/t\"q\\b\x01\x1f\b\f\n\r\t\x7f/\xff|\xc3\xa9|\xf0\x9f\x98\x80|\xed\xa0\x80");
	snprintf(d.procs[0].comm, sizeof(d.procs[0].comm), "a,\"b\"\x1b");
	d.sites[0].max_ns = UINT64_MAX;
	d.sites[0].addr = UINT64_MAX;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char *direct = table_json(&d, kinds[i], JSON_COMPACT | JSON_REAL_PRECISION(15));
		char *jansson = table_json(&d, kinds[i], JSON_COMPACT | JSON_REAL_PRECISION(15) |
					   JSON_PRESERVE_ORDER);

		ASSERT_TRUE(direct && jansson);
		EXPECT_STREQ(direct, jansson);
		free(direct);
		free(jansson);
	}
	text = table_json(&d, ST_TABLE_PROCESSES, JSON_COMPACT);
	EXPECT_TRUE(text && strstr(text, "\"/t\\\"q\\\\b\\u0001\\u001F\\b\\f\\n\\r\\t\x7f/\xef\xbf\xbd|"));
	free(text);
	st_dump_free(&d);
}
