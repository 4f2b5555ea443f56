// SPDX-License-Identifier: GPL-2.0
/*
 * JSON writer. The dump is one document, written row by row so that its
 * memory does not grow with the table: each row is a jansson object that is
 * printed and freed before the next one is built.
 */
#include <stdlib.h>
#include <string.h>
#include "names.h"
#include "output.h"

#define JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

static json_t *j_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/*
 * The length of the valid UTF-8 sequence at s (1 for ASCII), or 0 (RFC
 * 3629, as jansson checks it). At most avail bytes are read; a string's
 * NUL ends any sequence, so a NUL-terminated one may pass SIZE_MAX.
 */
size_t st_utf8_len(const char *s, size_t avail)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n, i;
	uint32_t cp;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4;
	else
		return 0;
	cp = u[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if (i >= avail || (u[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * Paths and comms are bytes; JSON strings are Unicode. A byte that is not
 * part of valid UTF-8 becomes U+FFFD rather than losing the whole string.
 */
static json_t *j_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	json_t *j = json_string(s);
	char *buf, *o;
	size_t n;

	if (j)
		return j;
	buf = malloc(strlen(s) * 3 + 1);
	if (!buf)
		return NULL;
	for (o = buf; *p; p += n ? n : 1) {
		n = st_utf8_len((const char *)p, SIZE_MAX);
		if (n) {
			memcpy(o, p, n);
			o += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
		}
	}
	*o = '\0';
	j = json_string(buf);
	free(buf);
	return j;
}

json_t *st_json_string(const char *s)
{
	return j_string(s);
}

/* The bytes st_json_put_string copies as they are: ASCII from ' ' but " (0x22) and \ (0x5c). */
static const bool json_plain[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7f] = true,
};

/* Whether the 8 bytes at p hold one that json_plain[] does not have. */
static inline bool json_word_special(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t x, q, b;

	memcpy(&x, p, 8);
	q = x ^ (ones * '"');
	b = x ^ (ones * '\\');
	/* A byte < 0x20, == '"', == '\\', or >= 0x80 (its high bit). */
	return ((x - ones * 0x20) | (q - ones) | (b - ones) | x) & high;
}

/*
 * s as a JSON string literal, byte for byte what dumping st_json_string(s)
 * prints: invalid UTF-8 becomes U+FFFD, and jansson's escapes (", \\, the
 * control characters; nothing else, as without JSON_ENSURE_ASCII and
 * JSON_ESCAPE_SLASH). A dump writes one per string cell: runs of plain
 * bytes are copied whole, and only bytes >= 0x80 are decoded.
 */
void st_json_put_string(struct st_obuf *o, const char *s)
{
	static const char *const esc[0x20] = {
		['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n",
		['\r'] = "\\r", ['\t'] = "\\t",
	};
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s, *run;
	char u[6] = "\\u00";
	size_t n;

	st_obuf_putc(o, '"');
	/* Whole words of plain bytes first (a path is tens of them). */
	n = strlen(s);
	for (run = p; n >= 8 && !json_word_special(p); p += 8, n -= 8)
		;
	st_obuf_put(o, run, p - run);
	for (;;) {
		for (run = p; json_plain[*p]; p++)
			;
		st_obuf_put(o, run, p - run);
		if (!*p)
			break;
		if (*p >= 0x80) {
			n = st_utf8_len((const char *)p, SIZE_MAX);
			if (n)
				st_obuf_put(o, p, n);
			else
				st_obuf_put(o, "\xef\xbf\xbd", 3);
			p += n ? n : 1;
			continue;
		}
		if (*p == '"' || *p == '\\') {
			st_obuf_putc(o, '\\');
			st_obuf_putc(o, *p);
		} else if (esc[*p]) {
			st_obuf_put(o, esc[*p], 2);
		} else {
			u[4] = hex[*p >> 4];
			u[5] = hex[*p & 0xf];
			st_obuf_put(o, u, 6);
		}
		p++;
	}
	st_obuf_putc(o, '"');
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v ? v : json_null());
}

/* instructions, cycles, task_clock_ns: the one matching the mode is set. */
static void set_counter_keys(json_t *o, uint32_t mode, bool has, uint64_t value)
{
	static const uint32_t modes[] = {
		SYSTRACE_COUNTERS_INSTRUCTIONS,
		SYSTRACE_COUNTERS_CYCLES,
		SYSTRACE_COUNTERS_TASK_CLOCK,
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		set(o, st_counters_column(modes[i]),
		    has && mode == modes[i] ? j_u64(value) : json_null());
}

/* The session's columns (columns.c) as one object. */
json_t *st_json_session(const struct st_session_row *s)
{
	const struct st_row row = { .session = s };
	const struct st_column *cols;
	json_t *o = json_object();
	struct st_val v;
	size_t i, n;

	if (!o)
		return NULL;
	cols = st_session_columns(&n);
	for (i = 0; i < n; i++) {
		memset(&v, 0, sizeof(v));
		cols[i].get(&row, &v);
		set(o, cols[i].name, st_cell_json(&v.c));
	}
	return o;
}

json_t *st_json_status(const struct st_status *st, const struct st_session_row *ss,
		       size_t n)
{
	json_t *o = json_object(), *params = json_object(), *arr = json_array();
	size_t i;

	if (!o || !params || !arr) {
		json_decref(o);
		json_decref(params);
		json_decref(arr);
		return NULL;
	}
	for (i = 0; i < st_nparams; i++) {
		const struct st_param_desc *d = &st_params_desc[i];
		uint64_t v = st_param_get(&st->params, d);

		set(params, d->key,
		    d->type == ST_PARAM_BOOL ? json_boolean(v) : j_u64(v));
	}
	for (i = 0; i < n; i++)
		json_array_append_new(arr, st_json_session(&ss[i]));

	set(o, "schema_version", j_u64(ST_SCHEMA_VERSION));
	set(o, "version", j_string(st->version));
	set(o, "abi_version", j_u64(st->abi_version));
	set(o, "params", params);
	set(o, "sessions_live", j_u64(st->sessions_live));
	set(o, "mem_bytes", j_u64(st->mem_bytes));
	set(o, "probes_active", json_boolean(st->probes_active));
	set(o, "sessions", arr);
	return o;
}

json_t *st_json_totals(const struct st_dump *d, bool live)
{
	json_t *o = json_object();
	struct st_totals t;

	if (!o)
		return NULL;
	st_totals_compute(d, &t);
	set(o, "processes", j_u64(t.procs));
	set(o, "sites", j_u64(t.sites));
	set(o, "syscalls", j_u64(t.syscalls));
	set(o, "errors", j_u64(t.errors));
	set(o, "syscall_ns", j_u64(t.syscall_ns));
	set_counter_keys(o, d->session.counters, t.has_counter_value,
			 t.counter_value);
	set(o, "consistent", json_boolean(st_check_totals(d, NULL) == 0));
	set(o, "live", json_boolean(live));
	set(o, "interrupted", json_boolean(d->interrupted));
	return o;
}

/* Prints and frees obj. */
static int put(FILE *f, json_t *obj)
{
	int ret;

	if (!obj)
		return -1;
	ret = json_dumpf(obj, f, JSON_FLAGS | JSON_ENCODE_ANY);
	json_decref(obj);
	return ret;
}

static int put_table(FILE *f, const struct st_view *v, enum st_table_kind kind)
{
	struct st_dump_table dt;

	st_dump_table(&dt, v, kind, v->dump->symbolized);
	fprintf(f, ",\n\"%s\":", dt.t.name);
	return st_table_json(f, &dt.t, JSON_FLAGS);
}

/*
 * {"schema_version":1,"session":{...},"totals":{...},"selection":null,
 *  "processes":[...],"sites":[...]} plus "syscalls":[...] when asked; one
 * row per line. selection: the options that left rows out, or null.
 */
int st_json_dump(FILE *f, const struct st_view *v, bool syscalls, bool live)
{
	fprintf(f, "{\"schema_version\":%d,\n\"session\":", ST_SCHEMA_VERSION);
	if (put(f, st_json_session(&v->dump->session)))
		return -1;
	fputs(",\n\"totals\":", f);
	if (put(f, st_json_totals(v->dump, live)))
		return -1;
	fputs(",\"selection\":", f);
	if (put(f, v->selection ? st_json_string(v->selection) : json_null()))
		return -1;
	if (put_table(f, v, ST_TABLE_PROCESSES) ||
	    put_table(f, v, ST_TABLE_SITES) ||
	    (syscalls && put_table(f, v, ST_TABLE_SYSCALLS)))
		return -1;
	fputs("}\n", f);
	return 0;
}

/* A whole small document (status, list), indented; frees doc. */
int st_json_print(FILE *f, json_t *doc)
{
	int ret;

	if (!doc)
		return -1;
	ret = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	fputc('\n', f);
	json_decref(doc);
	return ret;
}
