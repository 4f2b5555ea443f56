// SPDX-License-Identifier: GPL-2.0
/*
 * The log reader's CSV records (RFC 4180): the common record, without a
 * quote and whole in the buffer, split in place 16 bytes at a time; any
 * other (quotes, a record that spans refills, an empty line) field by
 * field. Fields are cut in place: a quoted one is unquoted where it lies.
 */
#include <errno.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "log/log_read_priv.h"

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
				return st_src_bad(s, err, s->line, "more than %zu fields", max);
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
			return st_src_bad(s, err, s->line, "more than %zu fields", max);
		fields[(*n)++] = o = p;
		if (*p == '"') {
			for (p++;; p++) {
				if (p == stop)
					return st_src_bad(s, err, s->line, "a quoted field does not end");
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
				return st_src_bad(s, err, s->line, "text after a quoted field");
		} else {
			while (p < stop && *p != ',') {
				if (*p == '"')
					return st_src_bad(s, err, s->line, "a quote inside an unquoted field");
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
 * NUL after the text (nothing of a log is NUL: st_src_refill() refuses it).
 */
#ifdef __SSE2__
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
 * after its '\n'), or 0 with the buffer as it was: st_src_csv_next() then takes
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
int st_src_csv_next(struct st_log_src *s, struct st_err *err, char **fields,
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
			if ((ret = st_src_refill(s, err)))
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
