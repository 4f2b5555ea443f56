// SPDX-License-Identifier: GPL-2.0
/*
 * report --input FILE: a saved `dump --json` document back into the
 * struct st_dump the kernel's data would have given. Unknown keys are
 * ignored (new keys may be added to the schema); a missing required key
 * or a value of the wrong type rejects the document.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "out/argv.h"
#include "model/names.h"
#include "base/err.h"
#include "model/dump_json.h"
#include "out/json_str.h"

struct ctx {
	char *why;
	size_t len;
	bool bad;
};

static void fail(struct ctx *c, const char *what, const char *key)
{
	if (!c->bad)
		snprintf(c->why, c->len, "%s: key \"%s\" is missing or of the wrong type",
			 what, key);
	c->bad = true;
}

/* A value of the right type that cannot be: why, in words. */
static void fail_why(struct ctx *c, const char *what, const char *key,
		     const char *why)
{
	if (!c->bad)
		snprintf(c->why, c->len, "%s: key \"%s\": %s", what, key, why);
	c->bad = true;
}

/*
 * A row: an object whose values are scalars, parsed in place by
 * row_parse() (the common case), or taken from jansson's tree when the
 * row has anything else (a nested value, bad JSON: jansson says why).
 * Its keys are found by a hash of slots; a key given twice in a row
 * keeps its last value, as jansson does.
 */
/* V_STRS: an array of strings, s[0, i) each ending in NUL (an argv). */
enum vkind { V_NULL, V_TRUE, V_FALSE, V_INT, V_REAL, V_STR, V_STRS, V_OTHER };

struct field {
	const char *key;
	size_t klen;
	enum vkind kind;
	json_int_t i;
	double real;
	const char *s;
};

struct row {
	bool object;		/* false: the row is not a JSON object */
	struct field *f;
	size_t n, cap;
	uint32_t *slot;		/* a key's field index + 1; 0 when free */
	size_t nslot;		/* a power of 2, at least twice n */
	char *buf;		/* the decoded keys and strings */
	size_t bufcap;
	json_t *tree;		/* jansson's parse, when the row has one */
};

static uint32_t key_hash(const char *key, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 16777619u;
	return h;
}

static const struct field *row_get(const struct row *r, const char *key)
{
	size_t len = strlen(key), mask = r->nslot - 1, i;
	const struct field *f;

	if (!r->nslot)
		return NULL;
	for (i = key_hash(key, len) & mask; r->slot[i]; i = (i + 1) & mask) {
		f = &r->f[r->slot[i] - 1];
		if (f->klen == len && !memcmp(f->key, key, len))
			return f;
	}
	return NULL;
}

static struct field *row_add(struct row *r)
{
	struct field *f;

	if (r->n == r->cap) {
		f = realloc(r->f, (r->cap ? 2 * r->cap : 64) * sizeof(*f));
		if (!f)
			return NULL;
		r->f = f;
		r->cap = r->cap ? 2 * r->cap : 64;
	}
	return &r->f[r->n++];
}

/* The slots of the row's keys; false when out of memory. */
static bool row_index(struct row *r)
{
	size_t want = 64, mask, i, j;
	const struct field *f, *g;
	uint32_t *p;

	while (want < 2 * r->n)
		want *= 2;
	if (want > r->nslot) {
		p = realloc(r->slot, want * sizeof(*p));
		if (!p)
			return false;
		r->slot = p;
		r->nslot = want;
	}
	memset(r->slot, 0, r->nslot * sizeof(*r->slot));
	mask = r->nslot - 1;
	for (i = 0; i < r->n; i++) {
		f = &r->f[i];
		for (j = key_hash(f->key, f->klen) & mask; r->slot[j]; j = (j + 1) & mask) {
			g = &r->f[r->slot[j] - 1];
			if (g->klen == f->klen && !memcmp(g->key, f->key, f->klen))
				break;
		}
		r->slot[j] = (uint32_t)i + 1;
	}
	return true;
}

static void row_clear(struct row *r)
{
	json_decref(r->tree);
	r->tree = NULL;
	r->n = 0;
	r->object = false;
}

static void row_free(struct row *r)
{
	row_clear(r);
	free(r->f);
	free(r->slot);
	free(r->buf);
}

/* The row from jansson's tree of it, which the row then holds. */
static bool row_from_json(struct row *r, json_t *o)
{
	struct field *f;
	const char *key;
	size_t klen;
	json_t *v;

	row_clear(r);
	r->tree = json_incref(o);
	r->object = json_is_object(o);
	json_object_keylen_foreach(o, key, klen, v) {
		f = row_add(r);
		if (!f)
			return false;
		*f = (struct field){ .key = key, .klen = klen, .kind = V_OTHER };
		switch (json_typeof(v)) {
		case JSON_NULL:
			f->kind = V_NULL;
			break;
		case JSON_TRUE:
			f->kind = V_TRUE;
			break;
		case JSON_FALSE:
			f->kind = V_FALSE;
			break;
		case JSON_INTEGER:
			f->kind = V_INT;
			f->i = json_integer_value(v);
			break;
		case JSON_REAL:
			f->kind = V_REAL;
			f->real = json_real_value(v);
			break;
		case JSON_STRING:
			f->kind = V_STR;
			f->s = json_string_value(v);
			break;
		default:
			break;
		}
	}
	return row_index(r);
}

/* A parsed row as jansson's tree, to keep it: jansson keeps a key's last value. */
static json_t *row_to_json(const struct row *r)
{
	json_t *o = json_object(), *v;
	const struct field *f;
	size_t i;

	for (i = 0; o && i < r->n; i++) {
		f = &r->f[i];
		switch (f->kind) {
		case V_NULL:
			v = json_null();
			break;
		case V_TRUE:
			v = json_true();
			break;
		case V_FALSE:
			v = json_false();
			break;
		case V_INT:
			v = json_integer(f->i);
			break;
		case V_REAL:
			v = json_real(f->real);
			break;
		case V_STR:
			v = json_string(f->s);
			break;
		case V_STRS:
			v = st_argv_json(f->s, (size_t)f->i);
			break;
		default:
			v = NULL;
			break;
		}
		if (!v || json_object_setn_new(o, f->key, f->klen, v)) {
			json_decref(o);
			o = NULL;
		}
	}
	return o;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && is_space(*p))
		p++;
	return p;
}

static bool is_digit(const char *p, const char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

/*
 * The rest of a string whose opening quote was read, unescaped to *out
 * with a NUL; never longer than its text. NULL when jansson would not
 * take it.
 */
static const char *parse_string(const char *p, const char *end, char **out)
{
	static const char plain[] = "\"\\/bfnrt", real[] = "\"\\/\b\f\n\r\t";
	const char *e, *why;
	char *o = *out;
	size_t n;

	while (p < end) {
		unsigned char c = (unsigned char)*p;

		if (c == '"') {
			*o++ = '\0';
			*out = o;
			return p + 1;
		}
		if (c < 0x20) {
			return NULL;
		} else if (c == '\\') {
			if (++p == end)
				return NULL;
			if (*p == 'u') {
				p = st_json_unescape_u(p, end, &o, &why);
				if (!p)
					return NULL;
				continue;
			}
			e = *p ? strchr(plain, *p) : NULL;
			if (!e)
				return NULL;
			*o++ = real[e - plain];
			p++;
		} else if (c < 0x80) {
			*o++ = (char)c;
			p++;
		} else {
			n = st_utf8_len(p, (size_t)(end - p));
			if (!n)
				return NULL;
			memcpy(o, p, n);
			o += n;
			p += n;
		}
	}
	return NULL;
}

/*
 * A number as jansson reads it: an integer unless it has a fraction or
 * an exponent; NULL for what jansson refuses (an integer out of range, a
 * real that overflows, a leading zero) and for a long real (jansson reads
 * it).
 */
static const char *parse_number(const char *p, const char *end, struct field *f)
{
	const char *q = p + (*p == '-'), *digits = q;
	uint64_t v = 0;		/* unsigned: more than 18 digits wrap, unused */
	char tok[64], *e;
	bool real;

	if (q < end && *q == '0') {
		if (is_digit(++q, end))
			return NULL;
	} else if (is_digit(q, end)) {
		while (is_digit(q, end))
			v = v * 10 + (*q++ - '0');
	} else {
		return NULL;
	}
	real = q < end && (*q == '.' || *q == 'e' || *q == 'E');
	if (q < end && *q == '.') {
		if (!is_digit(++q, end))
			return NULL;
		while (is_digit(q, end))
			q++;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (!is_digit(q, end))
			return NULL;
		while (is_digit(q, end))
			q++;
	}
	if (!real && q - digits <= 18) {
		f->kind = V_INT;
		f->i = *p == '-' ? -(json_int_t)v : (json_int_t)v;
		return q;
	}
	/* strtoll and strtod as jansson calls them, on a copy of the token */
	if ((size_t)(q - p) >= sizeof(tok))
		return NULL;
	memcpy(tok, p, (size_t)(q - p));
	tok[q - p] = '\0';
	errno = 0;
	if (real) {
		f->kind = V_REAL;
		f->real = strtod(tok, &e);
		if ((f->real == HUGE_VAL || f->real == -HUGE_VAL) && errno == ERANGE)
			return NULL;
	} else {
		f->kind = V_INT;
		f->i = strtoll(tok, &e, 10);
		if (errno)
			return NULL;
	}
	return *e ? NULL : q;
}

static const char *parse_literal(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && !memcmp(p, word, n) ? p + n : NULL;
}

/* An array of strings (after its '['), each with its NUL, to *out. */
static const char *parse_strings(const char *p, const char *end,
				 struct field *f, char **out)
{
	f->kind = V_STRS;
	f->s = *out;
	p = skip_space(p, end);
	if (p < end && *p == ']')
		goto close;
	for (;;) {
		if (p == end || *p != '"')
			return NULL;
		p = parse_string(p + 1, end, out);
		if (!p)
			return NULL;
		p = skip_space(p, end);
		if (p < end && *p == ']')
			break;
		if (p == end || *p != ',')
			return NULL;
		p = skip_space(p + 1, end);
	}
close:
	f->i = (json_int_t)(*out - f->s);
	return p + 1;
}

/* One scalar value (or an array of strings) at p; NULL for anything else. */
static const char *parse_scalar(const char *p, const char *end, struct field *f,
				char **out)
{
	switch (*p) {
	case '[':
		return parse_strings(p + 1, end, f, out);
	case '"':
		f->kind = V_STR;
		f->s = *out;
		return parse_string(p + 1, end, out);
	case 't':
		f->kind = V_TRUE;
		return parse_literal(p, end, "true");
	case 'f':
		f->kind = V_FALSE;
		return parse_literal(p, end, "false");
	case 'n':
		f->kind = V_NULL;
		return parse_literal(p, end, "null");
	default:
		return parse_number(p, end, f);
	}
}

/*
 * text[0, len) as a flat object, its strings decoded into the row's
 * buffer; false for anything else (a nested value, an error), which
 * jansson then parses.
 */
static bool row_parse(struct row *r, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	struct field *f;
	char *out;

	row_clear(r);
	if (len + 1 > r->bufcap) {
		out = realloc(r->buf, len + 1);
		if (!out)
			return false;
		r->buf = out;
		r->bufcap = len + 1;
	}
	out = r->buf;
	p = skip_space(p, end);
	if (p == end || *p != '{')
		return false;
	p = skip_space(p + 1, end);
	if (p < end && *p == '}')
		p++;
	else
		for (;;) {
			if (p == end || *p != '"')
				return false;
			f = row_add(r);
			if (!f)
				return false;
			f->key = out;
			p = parse_string(p + 1, end, &out);
			if (!p)
				return false;
			f->klen = (size_t)(out - f->key) - 1;
			p = skip_space(p, end);
			if (p == end || *p != ':')
				return false;
			p = skip_space(p + 1, end);
			if (p == end)
				return false;
			p = parse_scalar(p, end, f, &out);
			if (!p)
				return false;
			p = skip_space(p, end);
			if (p < end && *p == '}') {
				p++;
				break;
			}
			if (p == end || *p != ',')
				return false;
			p = skip_space(p + 1, end);
		}
	if (skip_space(p, end) != end)
		return false;
	r->object = true;
	return row_index(r);
}

static uint64_t get_u64(struct ctx *c, const struct row *o, const char *what,
			const char *key)
{
	const struct field *v = row_get(o, key);

	if (!v || v->kind != V_INT || v->i < 0) {
		fail(c, what, key);
		return 0;
	}
	return (uint64_t)v->i;
}

/* false for null or absent; a present non-integer is an error. */
static bool get_opt_u64(struct ctx *c, const struct row *o, const char *what,
			const char *key, uint64_t *out)
{
	const struct field *v = row_get(o, key);

	if (!v || v->kind == V_NULL)
		return false;
	if (v->kind != V_INT || v->i < 0) {
		fail(c, what, key);
		return false;
	}
	*out = (uint64_t)v->i;
	return true;
}

static const char *get_opt_str(struct ctx *c, const struct row *o, const char *what,
			       const char *key)
{
	const struct field *v = row_get(o, key);

	if (!v || v->kind == V_NULL)
		return NULL;
	if (v->kind != V_STR) {
		fail(c, what, key);
		return NULL;
	}
	return v->s;
}

static bool get_true(const struct row *o, const char *key)
{
	const struct field *v = row_get(o, key);

	return v && v->kind == V_TRUE;
}

static const char *get_str(struct ctx *c, const struct row *o, const char *what,
			   const char *key)
{
	const char *s = get_opt_str(c, o, what, key);

	if (!s)
		fail(c, what, key);
	return s ? s : "";
}

static uint64_t get_hex(struct ctx *c, const struct row *o, const char *what,
			const char *key, bool *has)
{
	const char *s = get_opt_str(c, o, what, key);
	char *end;
	uint64_t v;

	*has = false;
	if (!s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 16);
	if (strncmp(s, "0x", 2) || errno || *end) {
		fail(c, what, key);
		return 0;
	}
	*has = true;
	return v;
}

/* An enum from its name; a number stands for a value newer than this tool. */
static uint32_t get_enum(struct ctx *c, const struct row *o, const char *what,
			 const char *key, const char *(*name)(uint32_t))
{
	const char *s = get_str(c, o, what, key);
	uint32_t i;
	char *end;
	unsigned long v;

	for (i = 0; i < 64; i++)
		if (name(i) && !strcmp(name(i), s))
			return i;
	v = strtoul(s, &end, 10);
	if (!*s || *end || v > UINT32_MAX)
		fail(c, what, key);
	return (uint32_t)v;
}

static const char *counters_name(uint32_t v)
{
	return st_counters_name(v);
}

static void copy_name(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s ? s : "");
}

static void load_session(struct ctx *c, const struct row *o, struct st_session_row *s)
{
	const char *w = "session", *str;
	uint64_t v;
	size_t i;

	s->id = (uint32_t)get_u64(c, o, w, "id");
	copy_name(s->name, sizeof(s->name), get_opt_str(c, o, w, "name"));
	s->root_pid = (uint32_t)get_u64(c, o, w, "root_pid");
	str = get_opt_str(c, o, w, "backend");	/* absent before the BPF backend */
	s->backend = str && !strcmp(str, "bpf") ? ST_BACKEND_BPF : ST_BACKEND_KMOD;
	s->state = get_enum(c, o, w, "state", st_state_name);
	s->flags = (uint32_t)get_u64(c, o, w, "flags");
	s->created_ns = get_u64(c, o, w, "created_ns");
	s->realtime_base_ns = get_u64(c, o, w, "realtime_base_ns");
	s->counters = get_enum(c, o, w, "counters", counters_name);
	str = get_opt_str(c, o, w, "counters_error");
	s->has_counters_error = str != NULL;
	copy_name(s->counters_error, sizeof(s->counters_error), str);
	s->live_tasks = (uint32_t)get_u64(c, o, w, "live_tasks");
	s->procs = get_u64(c, o, w, "processes");
	s->sites = get_u64(c, o, w, "sites");
	s->syscalls = get_u64(c, o, w, "syscalls");
	s->errors = get_u64(c, o, w, "errors");
	s->syscall_ns = get_u64(c, o, w, "syscall_ns");
	for (i = 0; i < st_session_nstats; i++) {
		const struct st_stat_desc *d = &st_session_stats[i];

		/* A counter added after the first schema may be missing. */
		if (d->attr < SYSTRACE_SESSION_A_MEM_BYTES)
			*st_stat_ptr(s, d) = get_u64(c, o, w, d->key);
		else
			get_opt_u64(c, o, w, d->key, st_stat_ptr(s, d));
	}
	s->mem_bytes = get_u64(c, o, w, "mem_bytes");
	s->proc_row_bytes = (uint32_t)get_u64(c, o, w, "proc_row_bytes");
	s->site_row_bytes = (uint32_t)get_u64(c, o, w, "site_row_bytes");
	if (get_opt_u64(c, o, w, "log_buffer", &v))
		s->log_buffer = (uint32_t)v;
	if (st_counters_column(s->counters))
		s->has_counter_value = get_opt_u64(c, o, w, st_counters_column(s->counters),
						   &s->counter_value);
}

/*
 * argv (an array of strings; absent or null: unknown, as in dumps of older
 * versions) and argv_truncated. Returns -ENOMEM, else 0 (c->bad set for a
 * bad value).
 */
static int get_argv(struct ctx *c, const struct row *o, const char *w,
		    struct st_proc_row *p)
{
	const struct field *v = row_get(o, "argv");
	const char *why = NULL;
	int ret;

	if (!v || v->kind == V_NULL)
		return 0;
	if (v->kind == V_STRS) {
		/* parse_string refused \u0000: every NUL ends an argument. */
		if (v->i > SYSTRACE_ARGV_MAX) {
			fail_why(c, w, "argv", "longer than 4096 bytes");
			return 0;
		}
		ret = st_argv_copy(v->s, (size_t)v->i, &p->argv, &p->argv_len,
				   &p->argv_truncated);
	} else if (v->kind == V_OTHER && o->tree) {
		ret = st_argv_from_json(json_object_get(o->tree, "argv"), &p->argv,
					&p->argv_len, &why);
	} else {
		ret = -EINVAL;
		why = "not an array of strings";
	}
	if (ret == -EINVAL) {
		fail_why(c, w, "argv", why);
		return 0;
	}
	if (ret)
		return ret;
	p->argv_truncated = get_true(o, "argv_truncated");
	return 0;
}

static int load_proc(struct ctx *c, const struct row *o, uint32_t counters,
		     struct st_proc_row *p)
{
	const char *w = "processes", *exe;
	uint64_t v;

	p->id = get_u64(c, o, w, "id");
	if (get_opt_u64(c, o, w, "parent_id", &v))
		p->parent_id = v;
	if (get_opt_u64(c, o, w, "prev_id", &v))
		p->prev_id = v;
	p->pid = (uint32_t)get_u64(c, o, w, "pid");
	p->tgid = (uint32_t)get_u64(c, o, w, "tgid");
	p->ppid = (uint32_t)get_u64(c, o, w, "ppid");
	copy_name(p->comm, sizeof(p->comm), get_str(c, o, w, "comm"));
	exe = get_opt_str(c, o, w, "exe");
	if (exe && !(p->exe = strdup(exe)))
		return -ENOMEM;
	if (get_argv(c, o, w, p))
		return -ENOMEM;
	p->start_ns = get_u64(c, o, w, "start_ns");
	p->has_end_ns = get_opt_u64(c, o, w, "end_ns", &p->end_ns);
	p->end = get_enum(c, o, w, "end", st_end_name);
	p->has_exit_code = get_opt_u64(c, o, w, "exit_code", &v);
	p->exit_code = (uint32_t)v;
	p->has_exit_signal = get_opt_u64(c, o, w, "exit_signal", &v);
	p->exit_signal = (uint32_t)v;
	p->core_dumped = get_true(o, "core_dumped");
	/* Absent in dumps of older versions: not attached. */
	p->attached = get_true(o, "attached");
	p->threads = (uint32_t)get_u64(c, o, w, "threads");
	/* A column added after the first schema may be missing. */
#define ST_PROC_LOAD(name, field)					\
	if (SYSTRACE_PROC_A_##name <= SYSTRACE_PROC_A_SYSCALL_NS)	\
		p->field = get_u64(c, o, w, #field);			\
	else								\
		get_opt_u64(c, o, w, #field, &p->field);
	SYSTRACE_PROC_COUNTERS(ST_PROC_LOAD)
#undef ST_PROC_LOAD
	p->sites = (uint32_t)get_u64(c, o, w, "sites");
#define ST_ACCT_LOAD(name, field, column)				\
	if (SYSTRACE_PROC_A_##name <= SYSTRACE_PROC_A_MAJFLT)		\
		p->field = get_u64(c, o, w, #column);			\
	else								\
		get_opt_u64(c, o, w, #column, &p->field);
	SYSTRACE_PROC_ACCT(ST_ACCT_LOAD)
#undef ST_ACCT_LOAD
	if (st_counters_column(counters))
		p->has_counter_value = get_opt_u64(c, o, w, st_counters_column(counters),
						   &p->counter_value);
	return 0;
}

/* The symbolizer's keys, when the dump was symbolized where it was made. */
static int load_sym(struct ctx *c, const struct row *o, struct st_dump *d,
		    struct st_site_row *s)
{
	const char *w = "sites";
	struct st_sym sym = { 0 };

	if (!row_get(o, "symbol"))
		return 0;
	if (s->map != SYSTRACE_MAP_FILE)
		return 0;
	sym.object = get_opt_str(c, o, w, "object");
	sym.symbol = get_opt_str(c, o, w, "symbol");
	sym.symbol_offset = get_hex(c, o, w, "symbol_offset", &sym.has_symbol_offset);
	sym.build_id = get_opt_str(c, o, w, "build_id");
	sym.error = get_opt_str(c, o, w, "symbol_error");
	return st_dump_sym(d, &sym, &s->sym);
}

/*
 * errnos ("ENOENT(2)=37 EACCES(13)=5", st_errnos_format's) and
 * errno_other: absent or null in a dump of a tracer that did not count
 * errnos (and of older versions). The counts and errno_other must add up
 * to the row's errors.
 */
static int load_errnos(struct ctx *c, const struct row *o, struct st_dump *d,
		       struct st_site_row *s)
{
	const char *w = "sites", *text;
	struct st_errnos e;
	uint64_t other;

	text = get_opt_str(c, o, w, "errnos");
	if (!get_opt_u64(c, o, w, "errno_other", &other)) {
		if (text)
			fail_why(c, w, "errno_other", "errnos without errno_other");
		return 0;
	}
	if (!text) {
		fail_why(c, w, "errnos", "errno_other without errnos");
		return 0;
	}
	if (st_errnos_parse(text, &e)) {
		fail_why(c, w, "errnos", "not NAME(ERRNO)=COUNT ..., each errno (1..4095) once, at most 4");
		return 0;
	}
	e.other += other;
	if (st_errnos_total(&e) != s->errors) {
		fail_why(c, w, "errno_other", "the errno counts and errno_other do not add up to errors");
		return 0;
	}
	return st_dump_errnos(d, &e, &s->errnos);
}

static int load_site(struct ctx *c, const struct row *o, struct st_dump *d,
		     struct st_site_row *s)
{
	const char *w = "sites", *path;
	bool has;
	uint64_t v;

	s->proc_id = get_u64(c, o, w, "proc_id");
	s->addr = get_hex(c, o, w, "addr", &has);
	if (!has)
		fail(c, w, "addr");
	s->abi = get_enum(c, o, w, "abi", st_abi_name);
	s->nr = (uint32_t)get_u64(c, o, w, "nr");
	s->map = get_enum(c, o, w, "map", st_map_name);
	path = get_opt_str(c, o, w, "path");
	if (st_dump_str(d, path, &s->path))
		return -ENOMEM;
	s->offset = get_hex(c, o, w, "offset", &has);
	/* A column added after the first schema may be missing. */
#define ST_SITE_LOAD(name, field, merge)				\
	if (SYSTRACE_SITE_A_##name <= SYSTRACE_SITE_A_MAX_NS)		\
		s->field = get_u64(c, o, w, #field);			\
	else								\
		get_opt_u64(c, o, w, #field, &s->field);
	SYSTRACE_SITE_COUNTERS(ST_SITE_LOAD)
#undef ST_SITE_LOAD
	s->first_ns = get_u64(c, o, w, "first_ns");
	s->first_ordinal = get_u64(c, o, w, "first_ordinal");
	s->has_file_id = get_opt_u64(c, o, w, "inode", &s->inode);
	if (get_opt_u64(c, o, w, "dev", &v))
		s->dev = (uint32_t)v;
	get_opt_u64(c, o, w, "mtime_ns", &s->mtime_ns);
	if (load_errnos(c, o, d, s))
		return -ENOMEM;
	return load_sym(c, o, d, s);
}

/*
 * The rows as they are read, from a whole tree or row by row. The rows'
 * count is not known before the end: the arrays double as they fill (a
 * large realloc moves pages, it does not copy them).
 */
struct loader {
	struct ctx c;
	struct st_dump *d;
	size_t proc_cap, site_cap;
	bool has_session;
	json_t *early;		/* process rows read before the session */
	json_t *early_lines;	/* the line each of them starts on */
	int line;		/* the line the row being read starts on */
	struct row row;		/* the row being read */
};

/* An error of a row (a missing key, a wrong type) names the row's line. */
static int at_line(struct ctx *ctx, int line, int ret)
{
	char why[256];

	if (ret == -EINVAL && strncmp(ctx->why, "line ", 5)) {
		snprintf(why, sizeof(why), "line %d: %s", line, ctx->why);
		snprintf(ctx->why, ctx->len, "%s", why);
	}
	return ret;
}

static void *grow(void *rows, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? *cap : 1024;
	void *p;

	while (n >= want) {
		if (want > SIZE_MAX / 2 / size)
			return NULL;
		want *= 2;
	}
	if (rows && want == *cap)
		return rows;
	p = realloc(rows, want * size);
	if (p)
		*cap = want;
	return p;
}

static int convert_proc(struct loader *l, const struct row *row)
{
	struct st_dump *d = l->d;
	struct st_proc_row *p;
	int ret;

	p = grow(d->procs, &l->proc_cap, d->nprocs, sizeof(*d->procs));
	if (!p)
		return -ENOMEM;
	d->procs = p;
	p = &d->procs[d->nprocs++];
	memset(p, 0, sizeof(*p));
	ret = load_proc(&l->c, row, d->session.counters, p);
	return ret ? ret : l->c.bad ? -EINVAL : 0;
}

/* A process row needs the session's counters mode: before it, kept whole. */
static int add_proc(struct loader *l, struct row *row)
{
	json_t *tree;

	if (!row->object) {
		fail(&l->c, "processes", "(row)");
		return -EINVAL;
	}
	if (l->has_session)
		return convert_proc(l, row);
	if (!l->early)
		l->early = json_array();
	if (!l->early_lines)
		l->early_lines = json_array();
	tree = row->tree ? json_incref(row->tree) : row_to_json(row);
	if (!l->early || json_array_append_new(l->early, tree) ||
	    !l->early_lines ||
	    json_array_append_new(l->early_lines, json_integer(l->line)))
		return -ENOMEM;
	return 0;
}

static int add_site(struct loader *l, struct row *row)
{
	struct st_dump *d = l->d;
	struct st_site_row *s;
	int ret;

	if (!row->object) {
		fail(&l->c, "sites", "(row)");
		return -EINVAL;
	}
	s = grow(d->sites, &l->site_cap, d->nsites, sizeof(*d->sites));
	if (!s)
		return -ENOMEM;
	d->sites = s;
	s = &d->sites[d->nsites++];
	memset(s, 0, sizeof(*s));
	ret = load_site(&l->c, row, d, s);
	if (row_get(row, "symbol"))
		d->symbolized = true;
	return ret ? ret : l->c.bad ? -EINVAL : 0;
}

static int add_session(struct loader *l, const struct row *session)
{
	struct row early = { 0 };
	json_t *row;
	size_t i;
	int ret = 0;

	load_session(&l->c, session, &l->d->session);
	if (l->c.bad)
		return -EINVAL;
	l->has_session = true;
	json_array_foreach(l->early, i, row) {
		ret = row_from_json(&early, row) ? convert_proc(l, &early) : -ENOMEM;
		if (ret) {
			at_line(&l->c, (int)json_integer_value(
					json_array_get(l->early_lines, i)), ret);
			break;
		}
	}
	row_free(&early);
	json_decref(l->early);
	json_decref(l->early_lines);
	l->early = NULL;
	l->early_lines = NULL;
	return ret;
}

/*
 * A process image's id is unique in a session, and every lookup of a row
 * by its id counts on that: two rows of one id are refused, not resolved.
 */
static int unique_ids(struct loader *l)
{
	const struct st_dump *d = l->d;
	size_t i;

	for (i = 1; i < d->nprocs; i++)
		if (d->procs[i].id == d->procs[i - 1].id) {
			snprintf(l->c.why, l->c.len, "processes: two rows of id %" PRIu64
				 " (an id is one process image's)", d->procs[i].id);
			l->c.bad = true;
			return -EINVAL;
		}
	return 0;
}

/* Both arrays allocated even when empty, then sorted; ids checked. */
static int finish(struct loader *l, json_t *totals)
{
	struct st_dump *d = l->d;
	void *p;

	p = grow(d->procs, &l->proc_cap, d->nprocs, sizeof(*d->procs));
	if (!p)
		return -ENOMEM;
	d->procs = p;
	p = grow(d->sites, &l->site_cap, d->nsites, sizeof(*d->sites));
	if (!p)
		return -ENOMEM;
	d->sites = p;
	d->interrupted = json_is_true(json_object_get(totals, "interrupted"));
	st_dump_sort(d);
	return unique_ids(l);
}

static void not_a_dump(struct ctx *c)
{
	if (!c->bad)
		snprintf(c->why, c->len, "not a `dump --json` document of schema_version 1 "
			 "(with session, processes, sites)");
	c->bad = true;
}

/* A row of a whole tree handed to add. */
static int add_json(struct loader *l, json_t *o,
		    int (*add)(struct loader *, struct row *))
{
	return row_from_json(&l->row, o) ? add(l, &l->row) : -ENOMEM;
}

int st_dump_load_json(json_t *doc, struct st_dump *d, char *why, size_t len)
{
	struct loader l = { .c = { .why = why, .len = len }, .d = d };
	json_t *session, *procs, *sites, *row;
	size_t i;
	int ret;

	memset(d, 0, sizeof(*d));
	session = json_object_get(doc, "session");
	procs = json_object_get(doc, "processes");
	sites = json_object_get(doc, "sites");
	if (!json_is_object(doc) || !row_from_json(&l.row, doc) ||
	    get_u64(&l.c, &l.row, "document", "schema_version") != 1 ||
	    !json_is_object(session) || !json_is_array(procs) || !json_is_array(sites)) {
		row_free(&l.row);
		not_a_dump(&l.c);
		return -EINVAL;
	}
	ret = row_from_json(&l.row, session) ? add_session(&l, &l.row) : -ENOMEM;
	json_array_foreach(procs, i, row) {
		if (ret)
			break;
		ret = add_json(&l, row, add_proc);
	}
	json_array_foreach(sites, i, row) {
		if (ret)
			break;
		ret = add_json(&l, row, add_site);
	}
	if (!ret)
		ret = finish(&l, json_object_get(doc, "totals"));
	if (!ret && json_is_string(json_object_get(doc, "selection")))
		d->selected = true;
	row_free(&l.row);
	json_decref(l.early);
	json_decref(l.early_lines);
	if (ret)
		st_dump_free(d);
	return ret;
}

/*
 * The document read value by value: the top-level object by a small
 * scanner, each of its values and each row of its arrays cut out of the
 * file as text, then parsed alone by jansson (which checks it and gives
 * the error's line within it). Memory holds one row's tree at a time, not
 * the whole document's.
 */
struct src {
	FILE *f;
	char *buf;		/* buf[pos, end) is read and not yet scanned */
	size_t pos, end, cap;
	size_t mark;		/* where the value being scanned starts, or NO_MARK */
	int line;		/* of buf[pos] */
	int err;		/* errno of a failed read */
	struct loader *l;
};

#define NO_MARK SIZE_MAX
#define SRC_CHUNK (1 << 20)

/* More of the file, keeping the value being scanned; false at its end. */
static bool src_fill(struct src *s)
{
	size_t keep = s->mark != NO_MARK ? s->mark : s->pos, n;
	char *p;

	if (keep)
		memmove(s->buf, s->buf + keep, s->end - keep);
	s->pos -= keep;
	s->end -= keep;
	if (s->mark != NO_MARK)
		s->mark = 0;
	if (s->end == s->cap) {
		p = realloc(s->buf, s->cap ? 2 * s->cap : SRC_CHUNK);
		if (!p) {
			s->err = ENOMEM;
			return false;
		}
		s->buf = p;
		s->cap = s->cap ? 2 * s->cap : SRC_CHUNK;
	}
	n = fread(s->buf + s->end, 1, s->cap - s->end, s->f);
	if (!n && ferror(s->f) && !s->err)
		s->err = errno ? errno : EIO;
	s->end += n;
	return n;
}

static inline int src_get(struct src *s)
{
	int c;

	if (s->pos == s->end && !src_fill(s))
		return EOF;
	c = (unsigned char)s->buf[s->pos++];
	if (c == '\n')
		s->line++;
	return c;
}

static void src_unget(struct src *s, int c)
{
	if (c == EOF)
		return;
	s->pos--;
	if (c == '\n')
		s->line--;
}

static int src_skip_space(struct src *s)
{
	int c;

	do
		c = src_get(s);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	return c;
}

/* A syntax error of the scanner's own, worded as jansson words its. */
static int syntax(struct src *s, int c, const char *what)
{
	struct ctx *ctx = &s->l->c;

	if (c == EOF)
		snprintf(ctx->why, ctx->len, "line %d: %s near end of file", s->line, what);
	else
		snprintf(ctx->why, ctx->len, "line %d: %s near '%c'", s->line, what, c);
	ctx->bad = true;
	return -EINVAL;
}

static bool ends_scalar(int c)
{
	switch (c) {
	case ',': case ':': case '{': case '}': case '[': case ']': case '"':
	case ' ': case '\t': case '\n': case '\r': case EOF:
		return true;
	}
	return false;
}

/* The characters the scanners stop at, in a string and inside brackets. */
static const bool string_stop[256] = { ['"'] = true, ['\\'] = true, ['\n'] = true };
static const bool nested_stop[256] = {
	['"'] = true, ['{'] = true, ['}'] = true, ['['] = true, [']'] = true, ['\n'] = true,
};

/* Past the characters from pos the scanner has nothing to do with. */
static void src_skip(struct src *s, const bool *stop)
{
	const char *p = s->buf + s->pos, *e = s->buf + s->end;

	while (p < e && !stop[(unsigned char)*p])
		p++;
	s->pos = (size_t)(p - s->buf);
}

/* The rest of a string whose opening quote was read. */
static void scan_string(struct src *s)
{
	int c;

	for (;;) {
		src_skip(s, string_stop);
		c = src_get(s);
		if (c == EOF || c == '"')
			return;
		if (c == '\\' && src_get(s) == EOF)
			return;
	}
}

/*
 * One value, from its first character c (just read) to its last: the
 * closing bracket or quote, or the character before a scalar's delimiter;
 * it is then buf[mark, pos). Brackets are only counted; jansson checks
 * that they match.
 */
static void scan_value(struct src *s, int c)
{
	int depth = 0;

	s->mark = s->pos - (c != EOF);
	for (; c != EOF; c = src_get(s)) {
		if (depth == 0 && s->pos - 1 > s->mark && ends_scalar(c)) {
			src_unget(s, c);
			break;
		}
		if (c == '"') {
			scan_string(s);
			if (depth == 0)
				break;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && --depth <= 0) {
			break;
		}
		if (depth > 0)
			src_skip(s, nested_stop);
	}
}

/* The value just scanned, from line, parsed; NULL with why set on an error. */
static json_t *parse_value(struct src *s, int line, size_t flags, int *ret)
{
	struct ctx *ctx = &s->l->c;
	json_error_t jerr;
	json_t *v;

	v = json_loadb(s->buf + s->mark, s->pos - s->mark, flags, &jerr);
	s->mark = NO_MARK;
	*ret = 0;
	if (s->err) {
		*ret = -s->err;
		json_decref(v);
		return NULL;
	}
	if (!v) {
		if (jerr.line > 0)
			line += jerr.line - 1;
		snprintf(ctx->why, ctx->len, "line %d: %s", line, jerr.text);
		ctx->bad = true;
		*ret = -EINVAL;
	}
	return v;
}

/* The value that starts with c, parsed; NULL with why set on an error. */
static json_t *read_value(struct src *s, int c, size_t flags, int *ret)
{
	int line = s->line;

	scan_value(s, c);
	return parse_value(s, line, flags, ret);
}

/*
 * The value that starts with c as the loader's row: a flat object parsed
 * in place, anything else by jansson. false with why set on an error.
 */
static bool read_row(struct src *s, int c, int *ret)
{
	struct row *r = &s->l->row;
	int line = s->line;
	json_t *v;
	bool ok;

	scan_value(s, c);
	if (!s->err && row_parse(r, s->buf + s->mark, s->pos - s->mark)) {
		s->mark = NO_MARK;
		*ret = 0;
		return true;
	}
	v = parse_value(s, line, JSON_DECODE_ANY, ret);
	if (!v)
		return false;
	ok = row_from_json(r, v);
	json_decref(v);
	if (!ok)
		*ret = -ENOMEM;
	return ok;
}

/* A row's error of a missing key or a wrong type, with the row's line. */
static int row_error(struct src *s, int line, int ret)
{
	return at_line(&s->l->c, line, ret);
}

/* The rows of an array whose '[' was read, each handed to add (or dropped). */
static int read_rows(struct src *s, int (*add)(struct loader *, struct row *))
{
	int c, ret, line;

	c = src_skip_space(s);
	if (c == ']')
		return 0;
	for (;;) {
		line = s->line;
		s->l->line = line;
		if (!read_row(s, c, &ret))
			return ret;
		ret = add ? add(s->l, &s->l->row) : 0;
		if (ret)
			return row_error(s, line, ret);
		c = src_skip_space(s);
		if (c == ']')
			return 0;
		if (c != ',')
			return syntax(s, c, "']' expected");
		c = src_skip_space(s);
	}
}

enum top_key {
	K_OTHER, K_SCHEMA, K_SESSION, K_TOTALS, K_PROCS, K_SITES, K_SELECTION, K_N
};

static enum top_key top_key(const char *key)
{
	static const char *const names[K_N] = {
		[K_SCHEMA] = "schema_version", [K_SESSION] = "session",
		[K_TOTALS] = "totals", [K_PROCS] = "processes", [K_SITES] = "sites",
		[K_SELECTION] = "selection",
	};
	int k;

	for (k = K_SCHEMA; k < K_N; k++)
		if (!strcmp(key, names[k]))
			return k;
	return K_OTHER;
}

struct top {
	bool seen[K_N];
	json_t *totals;
};

/* One top-level member whose key was read; c is its value's first character. */
static int read_member(struct src *s, struct top *t, const char *key, int c)
{
	enum top_key k = top_key(key);
	struct loader *l = s->l;
	json_t *v;
	int ret, line = s->line;

	if (t->seen[k] && k != K_OTHER) {
		snprintf(l->c.why, l->c.len, "line %d: key \"%s\" given twice", line, key);
		l->c.bad = true;
		return -EINVAL;
	}
	t->seen[k] = true;
	if (c == '[' && (k == K_PROCS || k == K_SITES || k == K_OTHER))
		return read_rows(s, k == K_PROCS ? add_proc : k == K_SITES ? add_site : NULL);
	if (k == K_SESSION) {
		if (!read_row(s, c, &ret))
			return ret;
		if (l->row.object)
			return row_error(s, line, add_session(l, &l->row));
		not_a_dump(&l->c);
		return -EINVAL;
	}
	v = read_value(s, c, JSON_DECODE_ANY, &ret);
	if (!v)
		return ret;
	ret = 0;
	switch (k) {
	case K_SCHEMA:
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			fail(&l->c, "document", "schema_version");
		else if (json_integer_value(v) != 1)
			not_a_dump(&l->c);
		break;
	case K_TOTALS:
		t->totals = json_incref(v);
		break;
	case K_SELECTION:
		/* What left rows out when it was saved: its totals do not add up. */
		if (json_is_string(v))
			l->d->selected = true;
		else if (!json_is_null(v))
			fail(&l->c, "document", "selection");
		break;
	case K_PROCS:
	case K_SITES:
		not_a_dump(&l->c);
		break;
	default:
		break;
	}
	json_decref(v);
	return ret ? ret : l->c.bad ? -EINVAL : 0;
}

/* The members of the top-level object, in any order, then the end of file. */
static int read_doc(struct src *s, struct top *t)
{
	struct loader *l = s->l;
	json_t *key, *v;
	int c, ret;

	c = src_skip_space(s);
	if (c != '{') {
		/* jansson's own message when not JSON; JSON but no object is no dump */
		v = read_value(s, c, 0, &ret);
		json_decref(v);
		if (v)
			not_a_dump(&l->c);
		return v ? -EINVAL : ret;
	}
	c = src_skip_space(s);
	while (c != '}') {
		if (c != '"')
			return syntax(s, c, "string or '}' expected");
		key = read_value(s, c, JSON_DECODE_ANY, &ret);
		if (!key)
			return ret;
		c = src_skip_space(s);
		if (c != ':') {
			json_decref(key);
			return syntax(s, c, "':' expected");
		}
		ret = read_member(s, t, json_string_value(key), src_skip_space(s));
		json_decref(key);
		if (ret)
			return ret;
		c = src_skip_space(s);
		if (c == ',') {
			c = src_skip_space(s);
			if (c != '"')	/* no member after a comma */
				return syntax(s, c, "string or '}' expected");
		} else if (c != '}') {
			return syntax(s, c, "'}' expected");
		}
	}
	c = src_skip_space(s);
	if (c != EOF)
		return syntax(s, c, "end of file expected");
	if (!t->seen[K_SCHEMA])
		fail(&l->c, "document", "schema_version");
	if (!l->has_session || !t->seen[K_PROCS] || !t->seen[K_SITES])
		not_a_dump(&l->c);
	return l->c.bad ? -EINVAL : finish(l, t->totals);
}

int st_dump_load(const char *path, struct st_dump *d, struct st_err *err)
{
	char why[256];
	struct loader l = { .c = { .why = why, .len = sizeof(why) }, .d = d };
	struct src s = { .line = 1, .mark = NO_MARK, .l = &l };
	struct top t = { 0 };
	int ret;

	s.f = fopen(path, "r");
	if (!s.f) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "--input", "%s", path);
		return ret;
	}
	memset(d, 0, sizeof(*d));
	ret = read_doc(&s, &t);
	if (s.err)
		ret = -s.err;
	fclose(s.f);
	free(s.buf);
	json_decref(l.early);
	json_decref(l.early_lines);
	json_decref(t.totals);
	row_free(&l.row);
	if (ret)
		st_dump_free(d);
	if (ret == -EINVAL)
		st_err_set(err, ST_ERR_LOCAL, 0, "--input", "%s: %s", path, why);
	else if (ret)
		st_err_set(err, ST_ERR_LOCAL, -ret, "--input", "%s", path);
	return ret;
}
