// SPDX-License-Identifier: GPL-2.0
/*
 * The log reader's JSONL objects: one flat object per line, its strings
 * unescaped in place. The common line (the writer's own: the keys of the
 * line before, in their order, values without escapes) is read by
 * matching the keys it expects (jsonl_fast()); any other by a general
 * parser (json_fields()), which learns the line's keys for the next.
 */
#include <errno.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "log/log_read_priv.h"
#include "out/json_str.h"

/* ---- JSONL: one flat object per line ---- */

static char *skip_ws(char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* A JSON string at p (after its '"'), unescaped in place; NULL: bad. */
static char *read_jstring(char *p, char **end, const char **why)
{
	char *o, *start = p;
	const char *u;

	/* The common string, without an escape: its end found, nothing moved. */
	while (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	if (*p == '"') {
		*p = '\0';
		*end = p + 1;
		return start;
	}
	o = p;
	for (;;) {
		if (*p == '"') {
			*o = '\0';
			*end = p + 1;
			return start;
		}
		if (!*p) {
			*why = "a string does not end";
			return NULL;
		}
		if ((unsigned char)*p < 0x20) {
			*why = "a control character in a string";
			return NULL;
		}
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		p++;
		switch (*p) {
		case '"': case '\\': case '/':
			*o++ = *p;
			break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			u = st_json_unescape_u(p, NULL, &o, why);
			if (!u)
				return NULL;
			p = (char *)u;
			continue;
		default:
			*why = "a bad escape in a string";
			return NULL;
		}
		p++;
	}
}

/*
 * An array of strings at p (after its '['), decoded in place one after the
 * other, each with its NUL: argv's bytes at the start, *len of them.
 */
static char *json_strings(char *p, char **end, uint32_t *len, const char **why)
{
	char *start = p, *o = p, *str;
	size_t n;

	p = skip_ws(p);
	if (*p == ']')
		goto close;
	for (;;) {
		if (*p != '"') {
			*why = "not an array of strings";
			return NULL;
		}
		str = read_jstring(p + 1, &p, why);
		if (!str)
			return NULL;
		/* The text of a string is never shorter than its value. */
		n = strlen(str) + 1;
		memmove(o, str, n);
		o += n;
		p = skip_ws(p);
		if (*p == ']')
			break;
		if (*p != ',') {
			*why = "',' or ']' expected";
			return NULL;
		}
		p = skip_ws(p + 1);
	}
close:
	if ((size_t)(o - start) > SYSTRACE_ARGV_MAX) {
		*why = "longer than 4096 bytes";
		return NULL;
	}
	*end = p + 1;
	*len = (uint32_t)(o - start);
	/* An empty argv: its one byte is '\0' (the ']' is behind it). */
	*o = '\0';
	return start;
}

static int json_key_col(struct st_log_src *s, const char *key)
{
	int c;

	if (s->next_key < C_NCOLS && streq(key, st_src_cols[s->next_key]))
		return (int)s->next_key;
	for (c = 0; c < C_NCOLS; c++)
		if (key[0] == st_src_cols[c][0] && streq(key, st_src_cols[c]))
			return c;
	return -1;
}

/* One line's object into f[] (NULL: missing); the line is NUL-ended. */
static int json_fields(struct st_log_src *s, struct st_err *err, char *p,
		       char **f, size_t line)
{
	const char *why = NULL;
	char *key, *v, *end;
	unsigned int nk = 0;
	bool learn = true;
	size_t raw;
	int c;

	s->njkeys = 0;
	memset(f, 0, C_NCOLS * sizeof(*f));
	p = skip_ws(p);
	if (*p != '{')
		return st_src_bad(s, err, line, "not a JSON object");
	p = skip_ws(p + 1);
	if (*p == '}')
		goto close;
	for (;;) {
		bool argv_array = false;

		if (*p != '"')
			return st_src_bad(s, err, line, "a key (a string) or '}' expected");
		key = read_jstring(p + 1, &end, &why);
		if (!key)
			return st_src_bad(s, err, line, "%s", why);
		raw = (size_t)(end - 1 - key);
		p = skip_ws(end);
		if (*p != ':')
			return st_src_bad(s, err, line, "':' expected after \"%s\"", key);
		p = skip_ws(p + 1);
		c = json_key_col(s, key);
		/* The key for jsonl_fast(): one without escapes (its text is its value). */
		if (learn && nk < JKEY_MAX && raw + 3 <= sizeof(s->jkeys[0].pat) &&
		    strlen(key) == raw) {
			struct jkey *k = &s->jkeys[nk++];

			memset(k->pat, 0, sizeof(k->pat));
			k->pat[0] = '"';
			memcpy(k->pat + 1, key, raw);
			k->pat[raw + 1] = '"';
			k->pat[raw + 2] = ':';
			k->len = (uint8_t)(raw + 3);
			k->mask = k->len == 32 ? UINT32_MAX : (1u << k->len) - 1;
			k->col = (int8_t)c;
		} else {
			learn = false;
		}
		if (c >= 0)
			s->next_key = (enum st_log_col)(c + 1);
		if (*p == '"') {
			v = read_jstring(p + 1, &end, &why);
			if (!v)
				return st_src_bad(s, err, line, "%s", why);
			p = end;
		} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
			size_t n;

			v = p;
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
			if (*p == '.' || *p == 'e' || *p == 'E')
				return st_src_bad(s, err, line, "%s: not a string or an integer", key);
			n = (size_t)(p - v);
			if (c >= 0 && n < sizeof(s->numbuf[0])) {
				memcpy(s->numbuf[c], v, n);
				s->numbuf[c][n] = '\0';
				v = s->numbuf[c];
			} else if (c >= 0) {
				return st_src_bad(s, err, line, "%s: a number too long", key);
			}
		} else if (p[0] == 'n' && p[1] == 'u' && p[2] == 'l' && p[3] == 'l') {
			v = NULL;	/* the most common: first, and no strncmp() */
			p += 4;
		} else if (p[0] == 't' && p[1] == 'r' && p[2] == 'u' && p[3] == 'e') {
			v = "1";
			p += 4;
		} else if (!strncmp(p, "false", 5)) {
			v = "0";
			p += 5;
		} else if (*p == '[' && c == C_ARGV) {
			v = json_strings(p + 1, &end, &s->argv_len, &why);
			if (!v)
				return st_src_bad(s, err, line, "argv: %s", why);
			p = end;
			argv_array = true;
		} else if (*p == '{' || *p == '[') {
			return st_src_bad(s, err, line, "%s: not a string or an integer", key);
		} else {
			return st_src_bad(s, err, line, "a value expected after \"%s\"", key);
		}
		if (c == C_ARGV && v && !argv_array)
			return st_src_bad(s, err, line, "argv: not an array of strings");
		if (c >= 0)
			f[c] = v && (v[0] || c == C_COMM || c == C_ARGV || c == C_ARG_PATH) ?
			       v : NULL;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p != '}')
			return st_src_bad(s, err, line, "',' or '}' expected");
		break;
	}
close:
	p = skip_ws(p + 1);
	if (*p && *p != '\n')
		return st_src_bad(s, err, line, "text after the object");
	s->njkeys = learn ? nk : 0;
	return 0;
}

#ifdef __SSE2__
/* Whether p[0..len) is the key k's text: two 16-byte compares. */
static inline bool jkey_at(const char *p, const struct jkey *k)
{
	__m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p),
				   _mm_load_si128((const __m128i *)k->pat));
	uint32_t m = (uint32_t)_mm_movemask_epi8(a);

	if (k->len > 16) {
		__m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 16)),
					   _mm_load_si128((const __m128i *)(k->pat + 16)));

		m |= (uint32_t)_mm_movemask_epi8(b) << 16;
	}
	return (m & k->mask) == k->mask;
}

/* The first '"', '\\' or control character at or after p. */
static inline const char *jstr_stop(const char *p)
{
	for (;; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
						      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
					 _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v));
		uint32_t b = (uint32_t)_mm_movemask_epi8(m);

		if (b)
			return p + __builtin_ctz(b);
	}
}
#else
static inline bool jkey_at(const char *p, const struct jkey *k)
{
	return !memcmp(p, k->pat, k->len);
}

static inline const char *jstr_stop(const char *p)
{
	while (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
}
#endif

/*
 * The common line, fast: as the log's writer writes it. No blank; its
 * keys those of the line read last, in their order (or the first of
 * them); each value null, an integer, a string without an escape, true
 * or false; '}' and '\n' at its end. Fills f[] as json_fields() would and
 * returns the line's end (after its '\n'), or NULL with the text as it
 * was: json_fields() then reads the line (an argv, an escape, a blank, an
 * error, a line not in the buffer whole). The text ends in zeroes
 * (RBUF_PAD), which stop every scan below.
 */
static char *jsonl_fast(struct st_log_src *s, char **f)
{
	char *p = s->buf + s->pos, *cut[JKEY_MAX];
	const struct jkey *k = s->jkeys, *last = s->jkeys + s->njkeys - 1;
	unsigned int ncut = 0, i, d;
	uint32_t valid = 0, got;
	uint64_t x;
	char *v;
	int c, h;

	_Static_assert(C_NCOLS <= 32, "a bit of jvalid per column");
	if (*p != '{')
		return NULL;
	memset(f, 0, C_NCOLS * sizeof(*f));
	for (p++;; k++) {
		if (!jkey_at(p, k))
			return NULL;
		p += k->len;
		c = k->col;
		v = NULL;
		got = 0;
		if (*p == 'n') {
			if (memcmp(p, "null", 4))
				return NULL;
			p += 4;
		} else if (c == C_ARGV) {
			return NULL;	/* an array, or an error */
		} else if (*p == '"') {
			v = p + 1;
			p = (char *)jstr_stop(v);
			if (*p != '"')
				return NULL;
			if (p == v && c != C_COMM && c != C_ARG_PATH) {
				v = NULL;	/* "": missing */
			} else {
				cut[ncut++] = p;
				/* An address, an offset: 0x and 1 to 16 hex digits. */
				if (v[0] == '0' && v[1] == 'x' && p - v > 2 && p - v <= 18) {
					for (x = 0, i = 2; (h = hexval(v[i])) >= 0; i++)
						x = x << 4 | (uint64_t)h;
					if (v + i == p) {
						s->jval[c & 31] = x;
						got = 1;
					}
				}
			}
			p++;
		} else if ((d = (unsigned int)(*p - '0')) < 10) {
			v = p;
			for (x = d, p++; (d = (unsigned int)(*p - '0')) < 10; p++)
				x = x * 10 + d;
			/* Up to 19 digits: no overflow. */
			if (p - v <= 19) {
				s->jval[c & 31] = x;
				got = 1;
			} else if (p - v >= (ptrdiff_t)sizeof(s->numbuf[0]) && c >= 0) {
				return NULL;
			}
			cut[ncut++] = p;
		} else if (*p == '-') {
			v = p++;
			if ((unsigned int)(*p - '0') >= 10)
				return NULL;
			for (p++; (unsigned int)(*p - '0') < 10; p++)
				;
			if (p - v >= (ptrdiff_t)sizeof(s->numbuf[0]) && c >= 0)
				return NULL;
			cut[ncut++] = p;
		} else if (*p == 't' && !memcmp(p, "true", 4)) {
			v = (char *)"1";
			p += 4;
		} else if (*p == 'f' && !memcmp(p, "false", 5)) {
			v = (char *)"0";
			p += 5;
		} else {
			return NULL;
		}
		if (c >= 0) {
			f[c] = v;
			valid = (valid & ~(1u << c)) | got << c;
		}
		if (*p == ',' && k < last) {
			p++;
			continue;
		}
		if (*p == '}' && p[1] == '\n')
			break;
		return NULL;
	}
	for (i = 0; i < ncut; i++)
		*cut[i] = '\0';
	s->jvalid = valid;
	return p + 2;
}

/* The next JSONL line's fields: 1, 0 at the end, -errno. */
int st_src_jsonl_next(struct st_log_src *s, struct st_err *err, char **f,
		      size_t *line)
{
	char *nl;
	int ret;

	for (;;) {
		if (s->njkeys && (nl = jsonl_fast(s, f))) {
			*line = s->line++;
			s->pos = (size_t)(nl - s->buf);
			return 1;
		}
		while (!(nl = memchr(s->buf + s->pos, '\n', s->len - s->pos)) && !s->eof)
			if ((ret = st_src_refill(s, err)))
				return ret;
		if (s->pos == s->len)
			return 0;
		if (nl)
			*nl = '\0';
		*line = s->line++;
		ret = 0;
		s->jvalid = 0;
		if (*skip_ws(s->buf + s->pos))
			ret = json_fields(s, err, s->buf + s->pos, f, *line) ? -EINVAL : 1;
		s->pos = nl ? (size_t)(nl + 1 - s->buf) : s->len;
		if (ret)
			return ret;
	}
}
