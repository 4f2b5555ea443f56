// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a saved log one event at a time (st_log_src, log.h): CSV with a
 * header row (RFC 4180) or JSONL, zstd-compressed or not, or a spool kept
 * after a failed recording. Columns may come in any order; unknown ones
 * are ignored. Numbers are decimal, or hex with 0x; abi and map are names
 * or numbers; an empty CSV field or a JSON null is a missing value.
 *
 * Each event comes with the rows it names as the log says them: its image
 * (pid, comm; an exec's path as the executable; an exit's status; prev_id,
 * the last earlier image of the same pid, for an exec; parent_id, the
 * image that forked it), and for a syscall with a map its site (map, path,
 * offset, symbol). What is kept across events is one entry per image.
 *
 * The text is parsed in place in a buffer of whole records, refilled as
 * it is used up: a record may be as long as 64 MiB.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "out/argv.h"
#include "log/log_file.h"
#include "base/hidx.h"
#include "log/log_merge.h"
#include "log/log_read.h"
#include "model/names.h"
#include "out/json_str.h"

#define RBUF_INIT (1 << 20)
#define RBUF_MAX (64 << 20)
/* Zeroes after the text: csv_split() reads 16 bytes at a time, jkey_at() 32. */
#define RBUF_PAD ST_RA_PAD

static const char *const col_names[C_NCOLS] = {
	"session_id", "proc_id", "pid", "tid", "comm", "seq", "ts_ns", "dur_ns",
	"event", "abi", "nr", "syscall", "ret", "errno", "addr", "map", "path",
	"offset", "symbol", "phase", "early", "child_proc_id", "child_pid",
	"exit_code", "exit_signal", "argv", "argv_truncated",
};

const char *st_log_col_name(enum st_log_col c)
{
	return col_names[c];
}

/*
 * JSONL's fast way: the keys of the line read last, in their order, each
 * as its text "key": (at most 32 bytes) and its column (-1: unknown).
 */
#define JKEY_MAX 64
struct jkey {
	char pat[32];
	uint32_t mask;		/* the bits of pat's bytes */
	uint8_t len;
	int8_t col;
} __attribute__((aligned(16)));

/* An image as far as the log has told: for prev_id and parent_id. */
struct image {
	uint64_t id, parent_id;
	uint32_t pid;
};

enum src_kind { SRC_CSV, SRC_JSONL, SRC_SPOOL };

struct st_log_src {
	const char *path;
	enum src_kind kind;
	FILE *f, *raw;		/* raw: the file's own stream (progress) */
	struct st_readahead *ra;	/* reads f, when a regular file */
	uint64_t size;
	struct st_log_meta meta;
	bool meta_known;
	/*
	 * text: buf[pos..len), zeroes after it; buf is own (cap bytes) or,
	 * read ahead (in_chunk), a chunk of the thread's
	 */
	char *buf, *own;
	size_t cap, pos, len;
	bool in_chunk;
	bool eof;
	size_t line;		/* of the next record */
	int map[64];		/* CSV: column of each header field */
	size_t nhdr;
	/* CSV: the header field of each column, or 64 (none); dup: one twice */
	uint8_t field_of[C_NCOLS];
	bool dup;
	enum st_log_col next_key;	/* JSONL: the key expected next */
	struct jkey jkeys[JKEY_MAX];	/* JSONL: the keys of the line read last */
	unsigned int njkeys;		/* 0: none known (jsonl_fast() waits) */
	uint32_t jvalid;		/* the columns whose number is in jval */
	uint64_t jval[32];		/* [31]: an unknown key's, unused */
	uint32_t last_abi, last_map;	/* the names matched last */
	const char *last_abi_name, *last_map_name;	/* their names, or NULL */
	char numbuf[C_NCOLS][24];
	/* images */
	struct image *img;
	size_t nimg, imgcap;
	struct st_hidx by_id, by_pid;	/* by_pid: the latest image of a pid */
	struct st_hcache img_c;		/* the images in use */
	/* the current event's rows */
	struct st_proc_row proc;
	struct st_ev_site site;
	struct st_sym sym;
	/*
	 * The record's argv: JSONL's array decoded in place (argv_len its
	 * bytes), or CSV's command line parsed into argv_buf.
	 */
	uint32_t argv_len;
	char *argv_buf;
	/* a spool */
	int fd;
	struct st_spool_run *runs;
	size_t nruns;
	struct st_merge *merge;
	bool merge_started;
	uint64_t cut;
};

__attribute__((format(printf, 4, 5)))
static int bad(struct st_log_src *s, struct st_err *err, size_t line,
	       const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* No errno: the line and the reason say it all. */
	st_err_set(err, ST_ERR_LOCAL, 0, "read log", "%s:%zu: %s", s->path, line, msg);
	return -EINVAL;
}

/* Whether s is lit, a short constant: no libc call per field. */
static inline bool streq(const char *s, const char *lit)
{
	while (*lit && *s == *lit) {
		s++;
		lit++;
	}
	return *s == *lit;
}

/* ---- the buffer ---- */

/* The own buffer, with room for need bytes of text, its pad after them. */
static int own_room(struct st_log_src *s, struct st_err *err, size_t need)
{
	size_t cap = s->cap;
	char *b;

	while (need + 1 > cap) {
		cap *= 2;
		if (cap > RBUF_MAX + 1)
			return bad(s, err, s->line, "a record longer than %d MiB", RBUF_MAX >> 20);
	}
	if (cap == s->cap)
		return 0;
	b = realloc(s->own, cap + RBUF_PAD);
	if (!b) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "read log", "%s", s->path);
		return -ENOMEM;
	}
	if (s->buf == s->own)
		s->buf = b;
	s->own = b;
	s->cap = cap;
	return 0;
}

static int read_failed(struct st_log_src *s, struct st_err *err, int e)
{
	if (e == EPROTO || e == EBADMSG)
		st_err_set(err, ST_ERR_LOCAL, 0, "read log", "%s: the zstd stream is %s",
			   s->path, e == EPROTO ? "cut short" : "damaged");
	else
		st_err_set(err, ST_ERR_LOCAL, e, "read log", "%s", s->path);
	return -e;
}

/*
 * The next chunk of the read-ahead thread as the text, in place: the
 * record not read yet (buf[pos..len)) copied into the room before it, or
 * when longer than that room, both into the own buffer.
 */
static int refill_ra(struct st_log_src *s, struct st_err *err)
{
	size_t left = s->len - s->pos, n;
	ssize_t k;
	char *d;
	int ret;

	if (left + 1 >= RBUF_MAX)
		return bad(s, err, s->line, "a record longer than %d MiB", RBUF_MAX >> 20);
	k = st_readahead_take(s->ra, &d);
	if (k < 0)
		return read_failed(s, err, errno ? errno : EIO);
	n = (size_t)k;
	if (!n) {
		s->eof = true;	/* the text stays, its zeroes after it */
		return 0;
	}
	if (memchr(d, '\0', n))
		return bad(s, err, s->line, "a NUL byte: not a log");
	if (left <= ST_RA_ROOM) {
		memcpy(d - left, s->buf + s->pos, left);
		if (s->in_chunk)
			st_readahead_give(s->ra);
		s->buf = d - left;
		s->in_chunk = true;
	} else {
		if (s->buf == s->own) {
			memmove(s->own, s->own + s->pos, left);
			s->pos = 0;
		}
		ret = own_room(s, err, left + n);
		if (ret)
			return ret;
		if (s->buf != s->own)
			memcpy(s->own, s->buf + s->pos, left);
		memcpy(s->own + left, d, n);
		if (s->in_chunk)
			st_readahead_give(s->ra);
		st_readahead_give(s->ra);
		s->buf = s->own;
		s->in_chunk = false;
		memset(s->buf + left + n, 0, RBUF_PAD);
	}
	s->pos = 0;
	s->len = left + n;
	return 0;
}

/* More text after buf[len]; returns 0 (eof set at the end) or -errno. */
static int refill(struct st_log_src *s, struct st_err *err)
{
	size_t n;
	int e, ret;

	if (s->ra)
		return refill_ra(s, err);
	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->len -= s->pos;
		s->pos = 0;
	}
	if (s->len + 1 >= s->cap && (ret = own_room(s, err, s->cap)))
		return ret;
	n = fread(s->buf + s->len, 1, s->cap - 1 - s->len, s->f);
	e = !n && ferror(s->f) ? (errno ? errno : EIO) : 0;
	if (e)
		return read_failed(s, err, e);
	if (memchr(s->buf + s->len, '\0', n))
		return bad(s, err, s->line, "a NUL byte: not a log");
	s->len += n;
	memset(s->buf + s->len, 0, RBUF_PAD);
	s->eof = n == 0;
	return 0;
}

/*
 * The end of the record at buf[pos] (the byte after its line end, or the
 * end of the text): 0 with *end set, 1 if the buffer holds no whole record
 * yet. *lines: the newlines inside quoted fields.
 */
static int csv_record_end(struct st_log_src *s, size_t *end, size_t *lines,
			  bool *quotes)
{
	char *p = s->buf + s->pos, *stop = s->buf + s->len;
	char *nl = memchr(p, '\n', (size_t)(stop - p));
	bool quoted = false;

	*lines = 0;
	*quotes = memchr(p, '"', (nl ? nl : stop) - p) != NULL;
	if (!*quotes) {
		if (!nl && !s->eof)
			return 1;
		*end = nl ? (size_t)(nl + 1 - s->buf) : s->len;
		return 0;
	}
	for (; p < stop; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '\n' && !quoted)
			break;
		else if (*p == '\n')
			(*lines)++;
	}
	if (p == stop && !s->eof)
		return 1;
	*end = p < stop ? (size_t)(p + 1 - s->buf) : s->len;
	return 0;
}

/* Fields of the CSV record buf[pos .. end), in place. */
static int csv_fields(struct st_log_src *s, struct st_err *err, size_t end,
		      char **fields, size_t max, size_t *n, bool quotes)
{
	char *p = s->buf + s->pos, *stop = s->buf + end, *o, *comma;

	*n = 0;
	if (stop > p && stop[-1] == '\n')
		*--stop = '\0';
	if (stop > p && stop[-1] == '\r')
		*--stop = '\0';
	*stop = '\0';
	if (!quotes) {
		/* No quote in the record: its fields end at its commas (short: no memchr). */
		for (;;) {
			if (*n == max)
				return bad(s, err, s->line, "more than %zu fields", max);
			fields[(*n)++] = p;
			for (comma = p; *comma && *comma != ','; comma++)
				;
			if (!*comma)
				return 0;
			*comma = '\0';
			p = comma + 1;
		}
	}
	for (;;) {
		if (*n == max)
			return bad(s, err, s->line, "more than %zu fields", max);
		fields[(*n)++] = o = p;
		if (*p == '"') {
			for (p++;; p++) {
				if (p == stop)
					return bad(s, err, s->line, "a quoted field does not end");
				if (*p == '"' && p[1] == '"') {
					*o++ = '"';
					p++;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*o++ = *p;
				}
			}
			if (p < stop && *p != ',')
				return bad(s, err, s->line, "text after a quoted field");
		} else {
			while (p < stop && *p != ',') {
				if (*p == '"')
					return bad(s, err, s->line, "a quote inside an unquoted field");
				*o++ = *p++;
			}
		}
		if (p < stop) {
			*o = '\0';
			p++;
			continue;
		}
		*o = '\0';
		return 0;
	}
}

/*
 * The bytes of p[0..16) that stop a plain field: ',', '\n', '"', and the
 * NUL after the text (nothing of a log is NUL: refill() refuses it).
 */
#ifdef __SSE2__
#include <emmintrin.h>

static inline uint32_t csv_stops(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')),
					      _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
				 _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
					      _mm_cmpeq_epi8(v, _mm_setzero_si128())));

	return (uint32_t)_mm_movemask_epi8(m);
}
#else
static inline uint32_t csv_stops(const char *p)
{
	uint32_t m = 0;
	int i;

	for (i = 0; i < 16; i++)
		m |= (uint32_t)(p[i] == ',' || p[i] == '\n' || p[i] == '"' || !p[i]) << i;
	return m;
}
#endif

/*
 * The common record, fast: no quote, and its line end in the buffer.
 * Splits it in place as csv_fields() would and returns its end (the byte
 * after its '\n'), or 0 with the buffer as it was: csv_next() then takes
 * the general way (a quote, a record not read whole yet, the end of the
 * text, too many fields).
 */
static size_t csv_split(struct st_log_src *s, char **fields, size_t max, size_t *n)
{
	char *start = s->buf + s->pos, *p = start, *q;
	size_t k = 0, i;
	uint32_t m;

	fields[k++] = start;
	for (;; p += 16) {
		for (m = csv_stops(p); m; m &= m - 1) {
			q = p + __builtin_ctz(m);
			if (*q == ',' && k < max) {
				*q = '\0';
				fields[k++] = q + 1;
				continue;
			}
			if (*q == '\n') {
				*q = '\0';
				if (q > start && q[-1] == '\r')
					q[-1] = '\0';
				*n = k;
				return (size_t)(q + 1 - s->buf);
			}
			/* Undone: the commas cut so far. */
			for (i = 1; i < k; i++)
				fields[i][-1] = ',';
			return 0;
		}
	}
}

/* The next CSV record's fields: 1, 0 at the end, -errno. */
static int csv_next(struct st_log_src *s, struct st_err *err, char **fields,
		    size_t max, size_t *n, size_t *line)
{
	size_t end, lines;
	bool quotes;
	int ret;

	for (;;) {
		end = csv_split(s, fields, max, n);
		if (end) {
			*line = s->line++;
			s->pos = end;
			if (*n == 1 && !fields[0][0])
				continue;	/* an empty line */
			return 1;
		}
		while ((ret = csv_record_end(s, &end, &lines, &quotes)) == 1)
			if ((ret = refill(s, err)))
				return ret;
		if (s->pos == s->len)
			return 0;
		*line = s->line;
		ret = csv_fields(s, err, end, fields, max, n, quotes);
		s->line += 1 + lines;
		s->pos = end;
		if (ret)
			return ret;
		if (*n == 1 && !fields[0][0])
			continue;	/* an empty line */
		return 1;
	}
}

/* ---- JSONL: one flat object per line ---- */

static char *skip_ws(char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* Each byte's value as a hex digit plus one, 0 for none: one load per digit. */
static const uint8_t hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline int hexval(char c)
{
	return hex1[(unsigned char)c] - 1;
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

	if (s->next_key < C_NCOLS && streq(key, col_names[s->next_key]))
		return (int)s->next_key;
	for (c = 0; c < C_NCOLS; c++)
		if (key[0] == col_names[c][0] && streq(key, col_names[c]))
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
		return bad(s, err, line, "not a JSON object");
	p = skip_ws(p + 1);
	if (*p == '}')
		goto close;
	for (;;) {
		bool argv_array = false;

		if (*p != '"')
			return bad(s, err, line, "a key (a string) or '}' expected");
		key = read_jstring(p + 1, &end, &why);
		if (!key)
			return bad(s, err, line, "%s", why);
		raw = (size_t)(end - 1 - key);
		p = skip_ws(end);
		if (*p != ':')
			return bad(s, err, line, "':' expected after \"%s\"", key);
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
				return bad(s, err, line, "%s", why);
			p = end;
		} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
			size_t n;

			v = p;
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
			if (*p == '.' || *p == 'e' || *p == 'E')
				return bad(s, err, line, "%s: not a string or an integer", key);
			n = (size_t)(p - v);
			if (c >= 0 && n < sizeof(s->numbuf[0])) {
				memcpy(s->numbuf[c], v, n);
				s->numbuf[c][n] = '\0';
				v = s->numbuf[c];
			} else if (c >= 0) {
				return bad(s, err, line, "%s: a number too long", key);
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
				return bad(s, err, line, "argv: %s", why);
			p = end;
			argv_array = true;
		} else if (*p == '{' || *p == '[') {
			return bad(s, err, line, "%s: not a string or an integer", key);
		} else {
			return bad(s, err, line, "a value expected after \"%s\"", key);
		}
		if (c == C_ARGV && v && !argv_array)
			return bad(s, err, line, "argv: not an array of strings");
		if (c >= 0)
			f[c] = v && (v[0] || c == C_COMM || c == C_ARGV) ? v : NULL;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p != '}')
			return bad(s, err, line, "',' or '}' expected");
		break;
	}
close:
	p = skip_ws(p + 1);
	if (*p && *p != '\n')
		return bad(s, err, line, "text after the object");
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
			if (p == v && c != C_COMM) {
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
static int jsonl_next(struct st_log_src *s, struct st_err *err, char **f,
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
			if ((ret = refill(s, err)))
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

/* ---- fields to an event ---- */

static bool parse_u64_slow(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int h;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (!*s)
			return false;
		for (; *s; s++) {
			h = hexval(*s);
			if (h < 0 || x >> 60)
				return false;
			x = x << 4 | (uint64_t)h;
		}
		*v = x;
		return true;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

/* Decimal, or hex with 0x; inline for the common: up to 19 digits. */
static inline bool parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = (uint64_t)(unsigned char)s[0] - '0';
	unsigned int d, i;

	if (x < 10 && (x || (s[1] != 'x' && s[1] != 'X'))) {
		for (i = 1; i < 19; i++) {
			d = (unsigned int)(unsigned char)s[i] - '0';
			if (d >= 10)
				break;
			x = x * 10 + d;
		}
		if (!s[i]) {
			*v = x;
			return true;
		}
	} else if (!x && s[2]) {
		/* 0x and up to 16 hex digits: an address, an offset. */
		int h;

		x = 0;
		for (i = 2; i < 18 && (h = hexval(s[i])) >= 0; i++)
			x = x << 4 | (uint64_t)h;
		if (!s[i]) {
			*v = x;
			return true;
		}
	}
	return parse_u64_slow(s, v);
}

static bool parse_s64(const char *s, int64_t *v)
{
	uint64_t u;

	if (*s == '-') {
		if (s[1] == '0' && (s[2] == 'x' || s[2] == 'X'))
			return false;
		if (!parse_u64(s + 1, &u) || u > (uint64_t)INT64_MAX + 1)
			return false;
		*v = (int64_t)(0 - u);
		return true;
	}
	if (!parse_u64(s, &u) || u > INT64_MAX)
		return false;
	*v = (int64_t)u;
	return true;
}

/*
 * A name of names(i) for i < max, or a number below max; *last: a guess,
 * *last_name its name once matched (no call of names() for the common).
 */
static bool parse_enum(const char *s, const char *(*names)(uint32_t),
		       uint32_t max, uint32_t *v, uint32_t *last, const char **last_name)
{
	uint64_t n;
	uint32_t i;

	if (*last_name && streq(s, *last_name)) {
		*v = *last;
		return true;
	}
	for (i = 0; i < max; i++) {
		if (names(i) && streq(s, names(i))) {
			*v = *last = i;
			*last_name = names(i);
			return true;
		}
	}
	if (!parse_u64(s, &n) || n >= max)
		return false;
	*v = (uint32_t)n;
	return true;
}

__attribute__((cold, noinline))
static int not_num(struct st_log_src *s, struct st_err *err, size_t line,
		   char **f, enum st_log_col c)
{
	return bad(s, err, line, "%s: not a number: \"%s\"", col_names[c], f[c]);
}

/*
 * Column c's number into *v, 0 when missing. jv: the columns whose number
 * jsonl_fast() took already, in s->jval (0 for CSV: a constant, so that
 * the CSV reader's copy of this has no test of it).
 */
static inline __attribute__((always_inline)) int num(struct st_log_src *s, struct st_err *err, size_t line,
		      char **f, uint32_t jv, enum st_log_col c, uint64_t *v, uint64_t max)
{
	*v = 0;
	if (!f[c])
		return 0;
	if (jv >> c & 1)
		*v = s->jval[c];
	else if (!parse_u64(f[c], v))
		return not_num(s, err, line, f, c);
	if (*v > max)
		return not_num(s, err, line, f, c);
	return 0;
}

static inline __attribute__((always_inline)) int num32(struct st_log_src *s, struct st_err *err, size_t line,
			char **f, uint32_t jv, enum st_log_col c, uint32_t *v)
{
	uint64_t x;
	int ret = num(s, err, line, f, jv, c, &x, UINT32_MAX);

	*v = (uint32_t)x;
	return ret;
}

static bool image_eq(const void *ctx, uint32_t pos, const void *key)
{
	return ((const struct st_log_src *)ctx)->img[pos].id == *(const uint64_t *)key;
}

static uint64_t image_hash(const void *ctx, uint32_t pos)
{
	return st_hash_mix(((const struct st_log_src *)ctx)->img[pos].id);
}

static uint64_t pid_hash(const void *ctx, uint32_t pos)
{
	return st_hash_mix(((const struct st_log_src *)ctx)->img[pos].pid + 1);
}

static struct image *image_find(struct st_log_src *s, uint64_t id)
{
	int64_t i = st_hidx_find_c(&s->by_id, &s->img_c, st_hash_mix(id), image_eq, s, &id);

	return i >= 0 ? &s->img[i] : NULL;
}

/* The latest image of pid: the slot of by_pid is rewritten in place. */
static uint32_t *pid_slot(struct st_log_src *s, uint32_t pid)
{
	size_t i;

	if (!s->by_pid.slot)
		return NULL;
	for (i = st_hash_mix(pid + 1) & s->by_pid.mask; s->by_pid.slot[i];
	     i = (i + 1) & s->by_pid.mask)
		if (s->img[s->by_pid.slot[i] - 1].pid == pid)
			return &s->by_pid.slot[i];
	return NULL;
}

/* The image of id, made if new, with pid its pid from now on. */
static struct image *image_of(struct st_log_src *s, uint64_t id, uint32_t pid)
{
	struct image *im = image_find(s, id);
	uint32_t *slot;

	if (im)
		return im;
	if (s->nimg == s->imgcap) {
		size_t cap = s->imgcap ? 2 * s->imgcap : 1024;
		struct image *p = realloc(s->img, cap * sizeof(*p));

		if (!p)
			return NULL;
		s->img = p;
		s->imgcap = cap;
	}
	s->img[s->nimg] = (struct image){ .id = id, .pid = pid };
	if (st_hidx_add(&s->by_id, st_hash_mix(id), (uint32_t)s->nimg, image_hash, s))
		return NULL;
	slot = pid_slot(s, pid);
	if (slot)
		*slot = (uint32_t)s->nimg + 1;
	else if (st_hidx_add(&s->by_pid, st_hash_mix(pid + 1), (uint32_t)s->nimg,
			     pid_hash, s))
		return NULL;
	return &s->img[s->nimg++];
}

static const char *const kinds[] = {
	[ST_EV_SYSCALL] = "syscall", [ST_EV_FORK] = "fork",
	[ST_EV_EXEC] = "exec", [ST_EV_EXIT] = "exit",
};

static int need(struct st_log_src *s, struct st_err *err, size_t line,
		char **f, enum st_log_col c)
{
	return f[c] ? 0 : bad(s, err, line, "%s is missing", col_names[c]);
}

/*
 * An exec's argv: known when argv or argv_truncated is there (an empty
 * CSV field is an empty argv when argv_truncated is not).
 */
static int exec_argv(struct st_log_src *s, struct st_err *err, size_t line,
		     char **f, struct st_proc_row *p)
{
	const char *why;
	int ret;

	if (!f[C_ARGV] && !f[C_ARGV_TRUNCATED])
		return 0;
	if (f[C_ARGV_TRUNCATED]) {
		if (strcmp(f[C_ARGV_TRUNCATED], "0") && strcmp(f[C_ARGV_TRUNCATED], "1"))
			return bad(s, err, line, "argv_truncated: \"%s\" is not 0 or 1",
				   f[C_ARGV_TRUNCATED]);
		p->argv_truncated = f[C_ARGV_TRUNCATED][0] == '1';
	}
	if (s->kind == SRC_JSONL) {
		p->argv = f[C_ARGV] ? f[C_ARGV] : (char *)"";
		p->argv_len = f[C_ARGV] ? s->argv_len : 0;
		return 0;
	}
	free(s->argv_buf);
	s->argv_buf = NULL;
	ret = st_argv_parse_shell(f[C_ARGV] ? f[C_ARGV] : "", &s->argv_buf,
				  &p->argv_len, &why);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return bad(s, err, line, "argv: %s", why);
	p->argv = s->argv_buf;
	return 0;
}

/* The rows of the event: what the log says of its image and its site. */
static inline __attribute__((always_inline))
int event_rows(struct st_log_src *s, struct st_err *err, size_t line,
	       char **f, uint32_t jv, struct st_event *e)
{
	struct st_proc_row *p = &s->proc;
	struct image *im;
	uint64_t prev_id = 0, parent = 0;
	uint32_t *slot;
	int ret;

	/*
	 * What this function sets of the row, reset (not a memset of the
	 * whole row per event: its fields it never sets stay 0 from calloc);
	 * a field added to the row and set here must be reset here too.
	 */
#if __SIZEOF_POINTER__ == 8
	_Static_assert(sizeof(struct st_proc_row) == 240, "event_rows() resets what it sets");
#endif
	memset(p->comm, 0, sizeof(p->comm));
	p->exe = NULL;
	p->argv = NULL;
	p->argv_len = 0;
	p->argv_truncated = false;
	p->start_ns = p->end_ns = 0;
	p->has_end_ns = p->has_exit_code = p->has_exit_signal = false;
	p->exit_code = p->exit_signal = 0;
	p->end = 0;
	p->id = e->proc_id;
	p->pid = p->tgid = e->pid;
	if (f[C_COMM]) {
		size_t n = strnlen(f[C_COMM], sizeof(p->comm) - 1);

		memcpy(p->comm, f[C_COMM], n);
	}
	if (e->kind == ST_EV_EXEC) {
		/* The image it replaces: the latest one of its pid so far. */
		slot = pid_slot(s, e->pid);
		if (slot && s->img[*slot - 1].id != e->proc_id) {
			prev_id = s->img[*slot - 1].id;
			parent = s->img[*slot - 1].parent_id;
		}
		p->exe = f[C_PATH];
		p->start_ns = e->ts_ns;
		ret = exec_argv(s, err, line, f, p);
		if (ret)
			return ret;
	}
	im = image_find(s, e->proc_id);
	if (!im) {
		im = image_of(s, e->proc_id, e->pid);
		if (!im)
			return -ENOMEM;
		im->parent_id = parent;	/* an exec keeps its parent */
	}
	p->prev_id = prev_id;
	p->parent_id = im->parent_id;
	if (e->kind == ST_EV_FORK) {
		struct image *child = image_find(s, e->child_proc_id);

		if (!child) {
			child = image_of(s, e->child_proc_id, e->child_pid);
			im = image_find(s, e->proc_id);
			if (!child || !im)
				return -ENOMEM;
		}
		child->parent_id = e->proc_id;
	}
	if (e->kind == ST_EV_EXIT) {
		p->has_end_ns = true;
		p->end_ns = e->ts_ns;
		if (f[C_EXIT_CODE]) {
			ret = num32(s, err, line, f, jv, C_EXIT_CODE, &p->exit_code);
			if (ret)
				return ret;
			p->has_exit_code = true;
		}
		if (f[C_EXIT_SIGNAL]) {
			ret = num32(s, err, line, f, jv, C_EXIT_SIGNAL, &p->exit_signal);
			if (ret)
				return ret;
			p->has_exit_signal = true;
		}
		p->end = p->has_exit_signal ? SYSTRACE_END_SIGNALED :
			 p->has_exit_code ? SYSTRACE_END_EXITED : SYSTRACE_END_DETACHED;
	}
	e->proc = p;
	e->site = NULL;
	if (f[C_MAP]) {
		struct st_ev_site *st = &s->site;

		/* As the row above: what is set here, every time. */
		st->sym = NULL;
		if (!parse_enum(f[C_MAP], st_map_name, __SYSTRACE_MAP_MAX, &st->map,
				&s->last_map, &s->last_map_name))
			return bad(s, err, line, "map: unknown \"%s\"", f[C_MAP]);
		ret = num(s, err, line, f, jv, C_OFFSET, &st->offset, UINT64_MAX);
		if (ret)
			return ret;
		if (e->kind != ST_EV_SYSCALL)
			return 0;
		st->path = f[C_PATH];
		if (f[C_SYMBOL]) {
			s->sym.symbol = f[C_SYMBOL];	/* the rest stays 0 */
			st->sym = &s->sym;
		}
		e->site = st;
	}
	return 0;
}

/* One record's fields (NULL: missing) to *e and its rows. */
static inline __attribute__((always_inline))
int to_event(struct st_log_src *s, struct st_err *err, size_t line,
	     char **f, uint32_t jv, struct st_event *e)
{
	uint64_t v = 0;
	size_t k;
	int ret;

	/*
	 * Every field of *e is set below (a memset per event cost 5% of a
	 * reader); a field added to st_event must be too, then this size.
	 */
#if __SIZEOF_POINTER__ == 8
	_Static_assert(sizeof(struct st_event) == 112, "to_event() sets every field of st_event");
#endif
	e->ret = 0;
	e->abi = 0;
	e->phase = ST_PHASE_NONE;
	e->early = false;
	e->site = NULL;
	e->proc = NULL;
	if ((ret = need(s, err, line, f, C_EVENT)) || (ret = need(s, err, line, f, C_PROC_ID)) ||
	    (ret = need(s, err, line, f, C_TS_NS)))
		return ret;
	/* syscall, fork, exec, exit: the first two letters tell. */
	k = f[C_EVENT][0] == 's' ? ST_EV_SYSCALL : f[C_EVENT][0] == 'f' ? ST_EV_FORK :
	    f[C_EVENT][1] == 'x' && f[C_EVENT][2] == 'e' ? ST_EV_EXEC : ST_EV_EXIT;
	if (!streq(f[C_EVENT], kinds[k]))
		k = 4;
	if (k == 4)
		return bad(s, err, line, "event: \"%s\" is none of syscall, fork, exec, exit",
			   f[C_EVENT]);
	e->kind = (enum st_ev_kind)k;
	if ((ret = num(s, err, line, f, jv, C_SESSION_ID, &v, UINT32_MAX)))
		return ret;
	if (f[C_SESSION_ID] && !s->meta_known) {
		s->meta.session_id = (uint32_t)v;
		s->meta_known = true;
	}
	if ((ret = num(s, err, line, f, jv, C_PROC_ID, &e->proc_id, UINT64_MAX)) ||
	    (ret = num(s, err, line, f, jv, C_SEQ, &e->seq, UINT64_MAX)) ||
	    (ret = num(s, err, line, f, jv, C_TS_NS, &e->ts_ns, UINT64_MAX)) ||
	    (ret = num(s, err, line, f, jv, C_DUR_NS, &e->dur_ns, UINT64_MAX)) ||
	    (ret = num(s, err, line, f, jv, C_ADDR, &e->addr, UINT64_MAX)) ||
	    (ret = num(s, err, line, f, jv, C_CHILD_PROC_ID, &e->child_proc_id, UINT64_MAX)) ||
	    (ret = num32(s, err, line, f, jv, C_PID, &e->pid)) ||
	    (ret = num32(s, err, line, f, jv, C_TID, &e->tid)) ||
	    (ret = num32(s, err, line, f, jv, C_NR, &e->nr)) ||
	    (ret = num32(s, err, line, f, jv, C_CHILD_PID, &e->child_pid)))
		return ret;
	if (jv >> C_RET & 1 && s->jval[C_RET] <= INT64_MAX)
		e->ret = (int64_t)s->jval[C_RET];
	else if (f[C_RET] && !parse_s64(f[C_RET], &e->ret))
		return bad(s, err, line, "ret: not a number: \"%s\"", f[C_RET]);
	if (f[C_ABI] && !parse_enum(f[C_ABI], st_abi_name, __SYSTRACE_ABI_MAX, &e->abi,
				    &s->last_abi, &s->last_abi_name))
		return bad(s, err, line, "abi: unknown \"%s\"", f[C_ABI]);
	if (f[C_PHASE]) {
		if (streq(f[C_PHASE], "loader"))
			e->phase = ST_PHASE_LOADER;
		else if (streq(f[C_PHASE], "program"))
			e->phase = ST_PHASE_PROGRAM;
		else
			return bad(s, err, line, "phase: \"%s\" is neither loader nor program",
				   f[C_PHASE]);
	}
	if (f[C_EARLY]) {
		if ((f[C_EARLY][0] != '0' && f[C_EARLY][0] != '1') || f[C_EARLY][1])
			return bad(s, err, line, "early: \"%s\" is not 0 or 1", f[C_EARLY]);
		e->early = f[C_EARLY][0] == '1';
	}
	return event_rows(s, err, line, f, jv, e);
}

/* ---- the source ---- */

static int open_csv(struct st_log_src *s, struct st_err *err)
{
	char *hdr[64];
	size_t n, i, line = 1;
	bool have[C_NCOLS] = { false };
	int ret;

	ret = csv_next(s, err, hdr, 64, &n, &line);
	if (ret < 0)
		return ret;
	if (!ret)
		return bad(s, err, 1, "not a log: the file is empty");
	memset(s->field_of, 64, sizeof(s->field_of));
	for (i = 0; i < n; i++) {
		int c;

		for (c = 0; c < C_NCOLS && strcmp(hdr[i], col_names[c]); c++)
			;
		s->map[i] = c;
		if (c < C_NCOLS) {
			s->dup |= have[c];
			have[c] = true;
			s->field_of[c] = (uint8_t)i;
		}
	}
	s->nhdr = n;
	if (!have[C_EVENT] || !have[C_PROC_ID] || !have[C_TS_NS])
		return bad(s, err, line, "not a log: its first line is no log header (a log's names the columns event, proc_id and ts_ns, at least)");
	return 0;
}

static int open_spool(struct st_log_src *s, struct st_err *err)
{
	const char *why = NULL;
	int ret;

	s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		st_err_set(err, ST_ERR_LOCAL, errno, "open log", "%s", s->path);
		return -errno;
	}
	ret = st_spool_scan(s->fd, &s->meta.session_id, &s->runs, &s->nruns, &s->cut, &why);
	if (ret == -EINVAL)
		return bad(s, err, 1, "%s", why);
	if (!ret)
		ret = st_merge_new(&s->merge);
	if (!ret)
		ret = st_merge_add_runs(s->merge, s->fd, s->runs, s->nruns);
	if (!ret)
		ret = st_merge_start(s->merge);
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "read log", "%s", s->path);
		return ret;
	}
	s->meta_known = true;
	return 0;
}

/* What the first bytes say the file is; the stream reads from its start. */
static int sniff(struct st_log_src *s, struct st_err *err)
{
	unsigned char b[16];
	size_t n = fread(b, 1, sizeof(b), s->raw);
	char *p;
	int ret;

	if (ferror(s->raw) || fseeko(s->raw, 0, SEEK_SET)) {
		st_err_set(err, ST_ERR_LOCAL, errno ? errno : EIO, "read log", "%s", s->path);
		return -EIO;
	}
	if (st_spool_is_spool(b, n)) {
		s->kind = SRC_SPOOL;
		return open_spool(s, err);
	}
	s->f = s->raw;
	if (st_zstd_magic(b, n)) {
		s->f = st_zstd_reader(s->raw);
		if (!s->f) {
			s->f = s->raw;
			st_err_set(err, ST_ERR_LOCAL, ENOMEM, "read log", "%s", s->path);
			return -ENOMEM;
		}
	}
	/* A regular file is read ahead on a second thread (a pipe could block it). */
	if (s->size && st_readahead_start(&s->ra, s->f))
		s->ra = NULL;
	s->buf = s->own = calloc(1, RBUF_INIT + RBUF_PAD);
	if (!s->buf) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "read log", "%s", s->path);
		return -ENOMEM;
	}
	s->cap = RBUF_INIT;
	s->buf[0] = '\0';
	/* The first record's first character decides: '{' is JSONL. */
	while (!s->eof && !*(p = s->buf + s->pos + strspn(s->buf + s->pos, " \t\r\n")))
		if ((ret = refill(s, err)))
			return ret;
	p = s->buf + strspn(s->buf, " \t\r\n");
	if (!*p)
		return bad(s, err, 1, "not a log: the file is empty");
	if (*p == '{') {
		s->kind = SRC_JSONL;
		return 0;
	}
	if (*p == '[')
		return bad(s, err, 1, "not a log: a JSON array (a log is CSV with a header row, or JSONL: one object per line)");
	s->kind = SRC_CSV;
	return open_csv(s, err);
}

int st_log_src_open(struct st_log_src **sp, const char *path,
		    struct st_err *err)
{
	struct st_log_src *s = calloc(1, sizeof(*s));
	struct stat st;
	int ret;

	*sp = NULL;
	if (!s) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "read log", "%s", path);
		return -ENOMEM;
	}
	s->path = path;
	s->fd = -1;
	s->line = 1;
	s->raw = fopen(path, "re");
	if (!s->raw) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, errno, "open log", "%s", path);
		free(s);
		return ret;
	}
	if (!fstat(fileno(s->raw), &st) && S_ISREG(st.st_mode))
		s->size = (uint64_t)st.st_size;
	ret = sniff(s, err);
	if (ret) {
		st_log_src_close(s);
		return ret;
	}
	*sp = s;
	return 0;
}

int st_log_src_next(struct st_log_src *s, struct st_event *ev,
		    struct st_err *err)
{
	char *fld[65], *f[C_NCOLS];
	size_t n, i, line = 0;
	int c;
	int ret;

	if (s->kind == SRC_SPOOL) {
		const struct st_event *e = st_merge_peek(s->merge);

		if (!e)
			return 0;
		*ev = *e;
		ret = st_merge_pop(s->merge);
		if (ret) {
			st_err_set(err, ST_ERR_LOCAL, -ret, "read log", "%s: a damaged chunk", s->path);
			return ret;
		}
		return 1;
	}
	if (s->kind == SRC_JSONL) {
		ret = jsonl_next(s, err, f, &line);
	} else {
		ret = csv_next(s, err, fld, 64, &n, &line);
		if (ret == 1) {
			if (n != s->nhdr)
				return bad(s, err, line, "%zu fields, the header has %zu", n, s->nhdr);
			/* Each column from its field: no memset per record. */
			fld[64] = (char *)"";
			for (c = 0; c < C_NCOLS && !s->dup; c++)
				f[c] = fld[s->field_of[c]][0] ? fld[s->field_of[c]] : NULL;
			if (s->dup) {
				memset(f, 0, sizeof(f));
				for (i = 0; i < n; i++)
					if (s->map[i] < C_NCOLS && fld[i][0])
						f[s->map[i]] = fld[i];
			}
		}
	}
	if (ret != 1)
		return ret;
	/* Two copies of to_event(): CSV's without a test of jv. */
	ret = s->kind == SRC_JSONL ? to_event(s, err, line, f, s->jvalid, ev) :
				     to_event(s, err, line, f, 0, ev);
	if (ret == -ENOMEM)
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "read log", "%s", s->path);
	return ret ? ret : 1;
}

void st_log_src_progress(const struct st_log_src *s, uint64_t *done,
			 uint64_t *size)
{
	off_t at = s->kind == SRC_SPOOL ? 0 : ftello(s->raw);

	*done = at > 0 ? (uint64_t)at : 0;
	*size = s->size;
}

const struct st_log_meta *st_log_src_meta(const struct st_log_src *s)
{
	return &s->meta;
}

uint64_t st_log_src_cut(const struct st_log_src *s)
{
	return s->cut;
}

void st_log_src_close(struct st_log_src *s)
{
	if (!s)
		return;
	st_readahead_stop(s->ra);
	/* A zstd stream closes the file under it. */
	if (s->f)
		fclose(s->f);
	else if (s->raw)
		fclose(s->raw);
	if (s->fd >= 0)
		close(s->fd);
	st_merge_free(s->merge);
	free(s->runs);
	free(s->own);
	free(s->argv_buf);
	free(s->img);
	st_hidx_free(&s->by_id);
	st_hidx_free(&s->by_pid);
	free(s);
}

/* Whether a CSV header line names event, proc_id and ts_ns. */
static bool log_header(char *line)
{
	bool ev = false, id = false, ts = false;
	char *tok, *save = NULL;

	line[strcspn(line, "\r\n")] = '\0';
	for (tok = strtok_r(line, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ev |= !strcmp(tok, "event");
		id |= !strcmp(tok, "proc_id");
		ts |= !strcmp(tok, "ts_ns");
	}
	return ev && id && ts;
}

/*
 * A log, not a dump: a dump is one JSON document whose first line opens
 * it; a JSONL log's first line is an event. CSV starts with its header.
 */
bool st_log_is_log(const char *path)
{
	unsigned char b[16];
	char line[512] = "";
	FILE *raw = fopen(path, "re"), *f;
	size_t n;

	if (!raw)
		return false;
	n = fread(b, 1, sizeof(b), raw);
	if (st_spool_is_spool(b, n)) {
		fclose(raw);
		return true;
	}
	rewind(raw);
	f = st_zstd_magic(b, n) ? st_zstd_reader(raw) : raw;
	if (!f) {
		fclose(raw);
		return false;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	if (line[0] == '{')
		return strstr(line, "\"event\"") != NULL;
	return log_header(line);
}
