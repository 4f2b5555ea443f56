// SPDX-License-Identifier: GPL-2.0
/*
 * A saved dump's rows (dump_row.h): an object whose values are scalars is
 * parsed in place (the common case); any other goes through jansson, which
 * says why bad JSON is bad. The getters check each value's type and range.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/dump_row.h"
#include "out/argv.h"
#include "model/names.h"
#include "out/json_str.h"

void dr_fail(struct ctx *c, const char *what, const char *key)
{
	if (!c->bad)
		snprintf(c->why, c->len, "%s: key \"%s\" is missing or of the wrong type",
			 what, key);
	c->bad = true;
}

/* A value of the right type that cannot be: why, in words. */
void dr_fail_why(struct ctx *c, const char *what, const char *key,
		 const char *why)
{
	if (!c->bad)
		snprintf(c->why, c->len, "%s: key \"%s\": %s", what, key, why);
	c->bad = true;
}


static uint32_t key_hash(const char *key, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 16777619u;
	return h;
}

const struct field *dr_row_get(const struct row *r, const char *key)
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

void dr_row_free(struct row *r)
{
	row_clear(r);
	free(r->f);
	free(r->slot);
	free(r->buf);
}

/* The row from jansson's tree of it, which the row then holds. */
bool dr_row_from_json(struct row *r, json_t *o)
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
json_t *dr_row_to_json(const struct row *r)
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
bool dr_row_parse(struct row *r, const char *text, size_t len)
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

uint64_t dr_get_u64(struct ctx *c, const struct row *o, const char *what,
		    const char *key)
{
	const struct field *v = dr_row_get(o, key);

	if (!v || v->kind != V_INT || v->i < 0) {
		dr_fail(c, what, key);
		return 0;
	}
	return (uint64_t)v->i;
}

/* false for null or absent; a present non-integer is an error. */
bool dr_get_opt_u64(struct ctx *c, const struct row *o, const char *what,
		    const char *key, uint64_t *out)
{
	const struct field *v = dr_row_get(o, key);

	if (!v || v->kind == V_NULL)
		return false;
	if (v->kind != V_INT || v->i < 0) {
		dr_fail(c, what, key);
		return false;
	}
	*out = (uint64_t)v->i;
	return true;
}

const char *dr_get_opt_str(struct ctx *c, const struct row *o, const char *what,
			   const char *key)
{
	const struct field *v = dr_row_get(o, key);

	if (!v || v->kind == V_NULL)
		return NULL;
	if (v->kind != V_STR) {
		dr_fail(c, what, key);
		return NULL;
	}
	return v->s;
}

bool dr_get_true(const struct row *o, const char *key)
{
	const struct field *v = dr_row_get(o, key);

	return v && v->kind == V_TRUE;
}

const char *dr_get_str(struct ctx *c, const struct row *o, const char *what,
		       const char *key)
{
	const char *s = dr_get_opt_str(c, o, what, key);

	if (!s)
		dr_fail(c, what, key);
	return s ? s : "";
}

uint64_t dr_get_hex(struct ctx *c, const struct row *o, const char *what,
		    const char *key, bool *has)
{
	const char *s = dr_get_opt_str(c, o, what, key);
	char *end;
	uint64_t v;

	*has = false;
	if (!s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 16);
	if (strncmp(s, "0x", 2) || errno || *end) {
		dr_fail(c, what, key);
		return 0;
	}
	*has = true;
	return v;
}

/* An enum from its name; a number stands for a value newer than this tool. */
uint32_t dr_get_enum(struct ctx *c, const struct row *o, const char *what,
		     const char *key, const char *(*name)(uint32_t))
{
	const char *s = dr_get_str(c, o, what, key);
	uint32_t i;
	char *end;
	unsigned long v;

	for (i = 0; i < 64; i++)
		if (name(i) && !strcmp(name(i), s))
			return i;
	v = strtoul(s, &end, 10);
	if (!*s || *end || v > UINT32_MAX)
		dr_fail(c, what, key);
	return (uint32_t)v;
}
