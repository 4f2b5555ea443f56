// SPDX-License-Identifier: GPL-2.0
/*
 * The table writer's own formatting: numbers as printf prints them, JSON
 * strings as jansson prints them, CSV and JSON cells of every kind, and the
 * output buffer's flushes. Dumps are diffed byte for byte, so each compares
 * with the library it stands in for rather than with itself.
 */
#include <errno.h>
#include <stdlib.h>
#include "base/err.h"
#include "model/check.h"
#include "model/dump_json.h"
#include "out/json_str.h"
#include "out/outfile.h"
#include "test.h"

/* What fn(o, arg) writes through a buffer of cap bytes. */
#define CAPTURE(cap, text, fn, ...)					\
	do {								\
		size_t _len = 0;					\
		FILE *_f = open_memstream(&(text), &_len);		\
		char *_b = malloc(cap);					\
		struct st_obuf _o;					\
									\
		st_obuf_init(&_o, _f, _b, cap);				\
		fn(&_o, __VA_ARGS__);					\
		st_obuf_flush(&_o);					\
		fclose(_f);						\
		free(_b);						\
	} while (0)

/* 0, 1, 2^k and 10^k, each -1 and +1, and the ends of both ranges. */
static size_t edge_values(uint64_t *v)
{
	uint64_t p = 1;
	size_t n = 0;
	int k;

	for (k = 0; k < 64; k++) {
		v[n++] = (uint64_t)1 << k;
		v[n++] = ((uint64_t)1 << k) - 1;
		v[n++] = ((uint64_t)1 << k) + 1;
	}
	for (k = 0; k < 20; k++, p *= 10) {
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
	}
	v[n++] = UINT64_MAX;
	v[n++] = (uint64_t)INT64_MAX;
	v[n++] = (uint64_t)INT64_MIN;
	v[n++] = (uint64_t)-1;
	return n;
}

TEST(writer_numbers_as_printf)
{
	uint64_t v[300];
	size_t i, n = edge_values(v);
	char want[32], *got;

	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "%" PRIu64, v[i]);
		CAPTURE(64, got, st_obuf_u64, v[i]);
		EXPECT_STREQ(got, want);
		free(got);
		snprintf(want, sizeof(want), "%" PRId64, (int64_t)v[i]);
		CAPTURE(64, got, st_obuf_s64, v[i]);
		EXPECT_STREQ(got, want);
		free(got);
		snprintf(want, sizeof(want), "0x%" PRIx64, v[i]);
		CAPTURE(64, got, st_obuf_hex, v[i]);
		EXPECT_STREQ(got, want);
		free(got);
	}
	CAPTURE(64, got, st_obuf_u64, UINT64_MAX);
	EXPECT_STREQ(got, "18446744073709551615");
	free(got);
	CAPTURE(64, got, st_obuf_s64, (uint64_t)INT64_MIN);
	EXPECT_STREQ(got, "-9223372036854775808");
	free(got);
	CAPTURE(64, got, st_obuf_hex, 0);
	EXPECT_STREQ(got, "0x0");
	free(got);
	CAPTURE(64, got, st_obuf_hex, UINT64_MAX);
	EXPECT_STREQ(got, "0xffffffffffffffff");
	free(got);
}

/* st_cell_text cuts a number to its buffer as snprintf does. */
TEST(writer_cell_text_cut_as_snprintf)
{
	const struct st_cell cells[] = {
		{ .kind = ST_U64, .u = UINT64_MAX },
		{ .kind = ST_S64, .u = (uint64_t)INT64_MIN },
		{ .kind = ST_HEX, .u = 0xabcdef },
	};
	char buf[48], want[48];
	size_t i, len;

	for (i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
		for (len = 1; len <= 24; len++) {
			memset(buf, '#', sizeof(buf));
			if (cells[i].kind == ST_U64)
				snprintf(want, len, "%" PRIu64, cells[i].u);
			else if (cells[i].kind == ST_S64)
				snprintf(want, len, "%" PRId64, (int64_t)cells[i].u);
			else
				snprintf(want, len, "0x%" PRIx64, cells[i].u);
			EXPECT_STREQ(st_cell_text(&cells[i], buf, len), want);
			EXPECT_EQ(buf[len], '#');
		}
	}
}

/* st_json_put_string(s) against jansson's dump of st_json_string(s). */
static bool same_as_jansson(const char *s, size_t cap)
{
	json_t *j = st_json_string(s);
	char *want = json_dumps(j, JSON_ENCODE_ANY), *got;
	bool same;

	CAPTURE(cap, got, st_json_put_string, s);
	same = want && got && !strcmp(want, got);
	if (!same)
		printf("# \"%s\": jansson %s, ours %s\n", s, want, got);
	free(want);
	free(got);
	json_decref(j);
	return same;
}

TEST(writer_json_string_every_byte_and_pair)
{
	unsigned int a, b, bad = 0;
	char s[3] = "";

	for (a = 1; a < 256; a++) {
		s[0] = (char)a;
		s[1] = '\0';
		bad += !same_as_jansson(s, 64);
		for (b = 1; b < 256; b++) {
			s[1] = (char)b;
			bad += !same_as_jansson(s, 64);
		}
	}
	EXPECT_EQ(bad, 0);
}

TEST(writer_json_string_escapes_and_invalid_utf8)
{
	static const char *const cases[] = {
		"", "plain", "\"", "\\", "\"\\\"", "a\"b\\c", "\x7f", "/",
		"\x01\x1f\b\f\n\r\t", "tab\tend",
		"\xc3\xa9", "\xc3", "x\xc3", "\xe2\x82\xac", "\xe2\x82",
		"\xf0\x9f\x98\x80", "\xf0\x9f\x98", "\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80",
		"\xe0\x80\xaf", "\xe0\x9f\xbf", "\xf0\x8f\xbf\xbf", "\xc0\xaf", "\xc1\xbf",
		"\xed\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xee\x80\x80",
		"\xf5\x80\x80\x80", "\xff", "\x80\xbf",
		"/usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)\n\xff\"x\"",
	};
	unsigned int bad = 0;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bad += !same_as_jansson(cases[i], 64);
		bad += !same_as_jansson(cases[i], 1);
	}
	EXPECT_EQ(bad, 0);
}

/* Every 3-byte sequence led by a 3- or 4-byte lead: the UTF-8 range checks. */
TEST(writer_json_string_three_byte_sequences)
{
	unsigned int a, b, c, bad = 0;
	char s[5] = "";

	for (a = 0xe0; a <= 0xf5; a++)
		for (b = 0x7f; b <= 0xc0; b++)
			for (c = 0x7f; c <= 0xc0; c++) {
				s[0] = (char)a;
				s[1] = (char)b;
				s[2] = (char)c;
				s[3] = a >= 0xf0 ? '\x80' : '\0';
				bad += !same_as_jansson(s, 64);
			}
	EXPECT_EQ(bad, 0);
}

/* A long string through a buffer far smaller than it, and one larger. */
TEST(writer_buffer_smaller_than_a_string)
{
	char *s = malloc(70001), *small, *large;
	size_t i;

	ASSERT_TRUE(s);
	for (i = 0; i < 70000; i++)
		s[i] = "ab\"\xc3\xa9\\\x01xyz"[i % 10];
	s[70000] = '\0';
	CAPTURE(7, small, st_json_put_string, s);
	CAPTURE(1 << 17, large, st_json_put_string, s);
	EXPECT_STREQ(small, large);
	EXPECT_TRUE(same_as_jansson(s, 3));
	free(small);
	free(large);
	CAPTURE(5, small, st_csv_field, s);
	CAPTURE(1 << 17, large, st_csv_field, s);
	EXPECT_STREQ(small, large);
	EXPECT_EQ(strlen(large), 70000 + 7000 + 2);
	free(small);
	free(large);
	free(s);
}

/* A table of one row with every kind of cell, and a key that needs escaping. */
static const struct st_cell kinds_row[] = {
	{ .kind = ST_NULL },
	{ .kind = ST_U64, .u = 0 },
	{ .kind = ST_U64, .u = UINT64_MAX },
	{ .kind = ST_S64, .u = (uint64_t)INT64_MIN },
	{ .kind = ST_S64, .u = (uint64_t)-1 },
	{ .kind = ST_HEX, .u = 0 },
	{ .kind = ST_HEX, .u = UINT64_MAX },
	{ .kind = ST_BOOL, .u = 1 },
	{ .kind = ST_BOOL, .u = 0 },
	{ .kind = ST_FIXED, .decimals = 3, .u = 12345 },
	{ .kind = ST_FIXED, .decimals = 2, .u = 5000 },
	{ .kind = ST_STR, .s = "a,\"b\"\n\xff" },
};
#define NKINDS (sizeof(kinds_row) / sizeof(kinds_row[0]))

static const char *kinds_col(const struct st_table *t, size_t c)
{
	static const char *const names[NKINDS] = {
		"null", "zero", "u64_max", "s64_min", "minus_one", "hex_zero",
		"hex_max", "yes", "no", "fixed", "fixed_round", "say \"q\"\t\xc3\xa9",
	};

	(void)t;
	return names[c];
}

static void kinds_rows(const struct st_table *t, size_t r, struct st_val *v)
{
	size_t c;

	(void)t;
	(void)r;
	for (c = 0; c < NKINDS; c++)
		v[c].c = kinds_row[c];
}

static char *kinds_table(bool csv, size_t nrows, size_t flags)
{
	const struct st_table t = {
		.name = "kinds", .ncols = NKINDS, .nrows = nrows,
		.col = kinds_col, .row = kinds_rows,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (csv ? st_table_csv(f, &t) : st_table_json(f, &t, flags)) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

TEST(writer_csv_cells_of_every_kind)
{
	char *text = kinds_table(true, 2, 0);

	EXPECT_STREQ(text,
		"null,zero,u64_max,s64_min,minus_one,hex_zero,hex_max,yes,no,fixed,"
		"fixed_round,\"say \"\"q\"\"\t\xc3\xa9\"\n"
		",0,18446744073709551615,-9223372036854775808,-1,0x0,0xffffffffffffffff,"
		"1,0,12.345,50.00,\"a,\"\"b\"\"\n\xff\"\n"
		",0,18446744073709551615,-9223372036854775808,-1,0x0,0xffffffffffffffff,"
		"1,0,12.345,50.00,\"a,\"\"b\"\"\n\xff\"\n");
	free(text);
}

/*
 * The bytes of one table of n rows on the spies: all of them written, and
 * with a writer's thread, all but the last buffer's written by that thread
 * (by_thread false: by the caller's only).
 */
static char *spied_table(bool *failed, bool csv, size_t n, size_t flags,
			 bool by_thread)
{
	struct st_spy spy;
	char *text;

	st_spy_reset();
	text = kinds_table(csv, n, flags);
	spy = st_spy_read();
	if (!text)
		return NULL;
	EXPECT_EQ(spy.bytes_here + spy.bytes_elsewhere, strlen(text));
	if (by_thread) {
		EXPECT_TRUE(spy.bytes_here < 65536);
		EXPECT_TRUE(spy.bytes_elsewhere > 15 * 65536);
	} else {
		EXPECT_EQ(spy.bytes_elsewhere, 0);
	}
	return text;
}

/*
 * Tables of many 64 KiB buffers, written by the writer's thread while the
 * next rows are formatted: the rows in order, none lost or repeated; the
 * jansson path, which writes to the stream itself between rows, included.
 * thread: whether the writer has its thread, which the spies check.
 */
static void many_buffers_in_order(bool *failed, bool thread)
{
	size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(15), n = 20000, i;
	char *one, *row, *text, *want, *p;
	const char *kinds[2] = { "direct", "jansson" };
	int k;

	/* CSV: the header, then the same line n times. */
	one = kinds_table(true, 1, 0);
	ASSERT_TRUE(one);
	row = strchr(one, '\n') + 1;
	text = spied_table(failed, true, n, 0, thread);
	ASSERT_TRUE(text);
	ASSERT_EQ(strlen(text), (size_t)(row - one) + n * strlen(row));
	EXPECT_TRUE(strlen(text) > 16 * 65536);
	for (i = 0, p = text + (row - one); i < n; i++, p += strlen(row))
		if (strncmp(p, row, strlen(row)))
			break;
	EXPECT_EQ(i, n);
	free(text);
	free(one);

	/* JSON: "[\n" ROW (",\n" ROW)... "\n]", by either path. */
	one = kinds_table(false, 1, flags);
	ASSERT_TRUE(one);
	ASSERT_EQ(strncmp(one, "[\n", 2), 0);
	row = strndup(one + 2, strlen(one) - 4);
	want = malloc(n * (strlen(row) + 2) + 8);
	ASSERT_TRUE(row && want);
	p = want + sprintf(want, "[\n%s", row);
	for (i = 1; i < n; i++)
		p += sprintf(p, ",\n%s", row);
	strcpy(p, "\n]");
	for (k = 0; k < 2; k++) {
		/* jansson prints each row itself, on the caller's thread. */
		text = spied_table(failed, false, n, k ? flags | JSON_PRESERVE_ORDER : flags,
				   thread && !k);
		ASSERT_TRUE(text);
		if (strcmp(text, want))
			ST_FAIL(false, "the %s rows differ", kinds[k]);
		free(text);
	}
	free(want);
	free(row);
	free(one);
}

TEST(writer_thread_keeps_the_order_of_many_buffers)
{
	many_buffers_in_order(failed, true);
}

/* No thread to be had: the formatting thread writes each buffer itself. */
TEST(writer_without_a_thread_writes_the_same)
{
	ASSERT_EQ(st_test_no_threads(), 0);
	many_buffers_in_order(failed, false);
}

/*
 * The direct JSON rows and jansson's (JSON_PRESERVE_ORDER takes the jansson
 * path) print the same, keys escaped once per table included; a u64 is a
 * json_integer, so UINT64_MAX prints as -1 in both.
 */
TEST(writer_json_cells_of_every_kind)
{
	size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(15), n;
	char *direct, *jansson;

	for (n = 0; n < 3; n++) {
		direct = kinds_table(false, n, flags);
		jansson = kinds_table(false, n, flags | JSON_PRESERVE_ORDER);
		ASSERT_TRUE(direct && jansson);
		EXPECT_STREQ(direct, jansson);
		free(direct);
		free(jansson);
	}
	direct = kinds_table(false, 1, flags);
	EXPECT_STREQ(direct,
		"[\n{\"null\":null,\"zero\":0,\"u64_max\":-1,"
		"\"s64_min\":-9223372036854775808,\"minus_one\":-1,\"hex_zero\":\"0x0\","
		"\"hex_max\":\"0xffffffffffffffff\",\"yes\":true,\"no\":false,"
		"\"fixed\":12.345,\"fixed_round\":50.0,"
		"\"say \\\"q\\\"\\t\xc3\xa9\":\"a,\\\"b\\\"\\n\xef\xbf\xbd\"}\n]");
	free(direct);
}

static int write_kinds(FILE *f, const void *ctx)
{
	const struct st_table t = {
		.name = "kinds", .ncols = NKINDS, .nrows = *(const size_t *)ctx,
		.col = kinds_col, .row = kinds_rows,
	};

	return st_table_csv(f, &t);
}

/* A write that fails on the writer's thread is still the command's error. */
TEST(writer_thread_write_error_is_reported)
{
	struct st_err err;
	struct st_spy spy;
	size_t n = 20000;

	st_spy_reset();
	EXPECT_EQ(st_output_write("/dev/full", "writing the dump", write_kinds, &n,
				  &err), -EIO);
	spy = st_spy_read();
	/* The failed writes were the writer's thread's: every full buffer. */
	EXPECT_TRUE(spy.writes_elsewhere >= 16);
	EXPECT_EQ(err.kind, ST_ERR_LOCAL);
	EXPECT_STREQ(err.op, "writing the dump");
	EXPECT_STREQ(err.msg, "/dev/full");
	n = 1;
	EXPECT_EQ(st_output_write("/dev/full", "writing the dump", write_kinds, &n,
				  &err), -EIO);
}
