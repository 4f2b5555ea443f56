// SPDX-License-Identifier: GPL-2.0
/* An image's argv as JSON and as a shell command line (argv.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "out/argv.h"
#include "out/json_str.h"
#include <linux/systrace.h>

/*
 * Every argument of the model's argv ends in NUL (st_argv_copy makes it
 * so); the next one starts after it. A last one without its NUL (never in
 * the model) ends at len.
 */
static size_t arg_len(const char *p, const char *end)
{
	const char *nul = memchr(p, '\0', (size_t)(end - p));

	return nul ? (size_t)(nul - p) : (size_t)(end - p);
}

size_t st_argv_count(const char *argv, size_t len)
{
	const char *p = argv, *end = argv + len;
	size_t n = 0;

	while (p < end) {
		p += arg_len(p, end) + 1;
		n++;
	}
	return n;
}

static bool plain_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("_@%+=:,./-", c));
}

enum quoting { Q_PLAIN, Q_SINGLE, Q_ANSI };

static enum quoting quoting_of(const char *s, size_t n)
{
	enum quoting q = n ? Q_PLAIN : Q_SINGLE;
	size_t i = 0, k;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80) {
			k = st_utf8_len(s + i, n - i);
			if (!k)
				return Q_ANSI;
			q = Q_SINGLE;
			i += k;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			return Q_ANSI;
		if (!plain_byte(c))
			q = Q_SINGLE;
		i++;
	}
	return q;
}

static void put_ansi(struct st_obuf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, k;
	char x[4] = "\\x";

	st_obuf_put(o, "$'", 2);
	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80 && (k = st_utf8_len(s + i, n - i))) {
			st_obuf_put(o, s + i, k);
			i += k;
			continue;
		}
		i++;
		if (c == '\\' || c == '\'') {
			st_obuf_putc(o, '\\');
			st_obuf_putc(o, (char)c);
		} else if (c == '\n') {
			st_obuf_put(o, "\\n", 2);
		} else if (c == '\t') {
			st_obuf_put(o, "\\t", 2);
		} else if (c == '\r') {
			st_obuf_put(o, "\\r", 2);
		} else if (c < 0x20 || c >= 0x7f) {
			x[2] = hex[c >> 4];
			x[3] = hex[c & 0xf];
			st_obuf_put(o, x, 4);
		} else {
			st_obuf_putc(o, (char)c);
		}
	}
	st_obuf_putc(o, '\'');
}

static void put_arg(struct st_obuf *o, const char *s, size_t n)
{
	const char *q;

	switch (quoting_of(s, n)) {
	case Q_PLAIN:
		st_obuf_put(o, s, n);
		return;
	case Q_SINGLE:
		st_obuf_putc(o, '\'');
		while ((q = memchr(s, '\'', n))) {
			st_obuf_put(o, s, (size_t)(q - s));
			st_obuf_put(o, "'\\''", 4);
			n -= (size_t)(q - s) + 1;
			s = q + 1;
		}
		st_obuf_put(o, s, n);
		st_obuf_putc(o, '\'');
		return;
	case Q_ANSI:
		put_ansi(o, s, n);
		return;
	}
}

void st_argv_shell(struct st_obuf *o, const char *argv, size_t len)
{
	const char *p = argv, *end = argv + len;
	size_t n;

	while (p < end) {
		n = arg_len(p, end);
		if (p != argv)
			st_obuf_putc(o, ' ');
		put_arg(o, p, n);
		p += n + 1;
	}
}

char *st_argv_shell_str(const char *argv, size_t len)
{
	char *buf = NULL, b[512];
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct st_obuf o;

	if (!f)
		return NULL;
	st_obuf_init(&o, f, b, sizeof(b));
	st_argv_shell(&o, argv, len);
	st_obuf_flush(&o);
	if (fclose(f) || !buf) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One $'...' body at *sp (after the quote) into out; false: bad. */
static bool parse_ansi(const char **sp, char **op, const char **why)
{
	const char *s = *sp;
	char *o = *op;
	int h, v;

	for (;;) {
		if (!*s) {
			*why = "a $'...' quote does not end";
			return false;
		}
		if (*s == '\'')
			break;
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case '\\': case '\'': case '"': case '?':
			*o++ = *s;
			break;
		case 'a': *o++ = '\a'; break;
		case 'b': *o++ = '\b'; break;
		case 'e': case 'E': *o++ = '\033'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'v': *o++ = '\v'; break;
		case 'x':
			v = hexval(s[1]);
			if (v < 0) {
				*why = "\\x without a hex digit in a $'...' quote";
				return false;
			}
			s++;
			h = hexval(s[1]);
			if (h >= 0) {
				v = v << 4 | h;
				s++;
			}
			if (!v) {
				*why = "a NUL (\\x00) in an argument";
				return false;
			}
			*o++ = (char)v;
			break;
		default:
			*why = "an unknown escape in a $'...' quote";
			return false;
		}
		s++;
	}
	*sp = s + 1;
	*op = o;
	return true;
}

int st_argv_parse_shell(const char *s, char **argv, uint32_t *len,
			const char **why)
{
	/* Unquoting never makes an argument longer: the text's length is room. */
	size_t cap = strlen(s) + 1;
	char *buf = malloc(cap), *o = buf;
	bool in_arg = false;

	if (!buf)
		return -ENOMEM;
	*why = NULL;
	while (*s) {
		if (*s == ' ') {
			if (in_arg)
				*o++ = '\0';
			in_arg = false;
			s++;
			continue;
		}
		in_arg = true;
		if (*s == '\'') {
			const char *q = strchr(s + 1, '\'');

			if (!q) {
				*why = "a '...' quote does not end";
				break;
			}
			memcpy(o, s + 1, (size_t)(q - s - 1));
			o += q - s - 1;
			s = q + 1;
		} else if (s[0] == '$' && s[1] == '\'') {
			s += 2;
			if (!parse_ansi(&s, &o, why))
				break;
		} else if (*s == '"') {
			for (s++; *s && *s != '"'; s++) {
				if (*s == '\\' && s[1] && strchr("\"\\$`", s[1]))
					s++;
				*o++ = *s;
			}
			if (!*s) {
				*why = "a \"...\" quote does not end";
				break;
			}
			s++;
		} else if (*s == '\\') {
			if (!s[1]) {
				*why = "a \\ at the end";
				break;
			}
			*o++ = s[1];
			s += 2;
		} else {
			*o++ = *s++;
		}
	}
	if (!*why && in_arg)
		*o++ = '\0';
	if (!*why && (size_t)(o - buf) > SYSTRACE_ARGV_MAX)
		*why = "longer than 4096 bytes";
	if (*why) {
		free(buf);
		return -EINVAL;
	}
	*argv = buf;
	*len = (uint32_t)(o - buf);
	return 0;
}

void st_argv_put_json(struct st_obuf *o, const char *argv, size_t len)
{
	const char *p = argv, *end = argv + len;

	st_obuf_putc(o, '[');
	while (p < end) {
		if (p != argv)
			st_obuf_putc(o, ',');
		st_json_put_string(o, p);
		p += arg_len(p, end) + 1;
	}
	st_obuf_putc(o, ']');
}

json_t *st_argv_json(const char *argv, size_t len)
{
	const char *p = argv, *end = argv + len;
	json_t *a = json_array();

	while (a && p < end) {
		if (json_array_append_new(a, st_json_string(p))) {
			json_decref(a);
			return NULL;
		}
		p += arg_len(p, end) + 1;
	}
	return a;
}

int st_argv_from_json(const json_t *a, char **argv, uint32_t *len,
		      const char **why)
{
	size_t i, n = 0, k;
	json_t *v;
	char *buf;

	if (!json_is_array(a)) {
		*why = "not an array of strings";
		return -EINVAL;
	}
	json_array_foreach(a, i, v) {
		if (!json_is_string(v)) {
			*why = "not an array of strings";
			return -EINVAL;
		}
		k = json_string_length(v);
		if (memchr(json_string_value(v), '\0', k)) {
			*why = "a NUL in an argument";
			return -EINVAL;
		}
		n += k + 1;
	}
	if (n > SYSTRACE_ARGV_MAX) {
		*why = "longer than 4096 bytes";
		return -EINVAL;
	}
	buf = malloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	n = 0;
	json_array_foreach(a, i, v) {
		k = json_string_length(v) + 1;
		memcpy(buf + n, json_string_value(v), k);
		n += k;
	}
	*argv = buf;
	*len = (uint32_t)n;
	return 0;
}

int st_argv_copy(const void *src, size_t n, char **argv, uint32_t *len,
		 bool *truncated)
{
	const char *s = src;
	size_t keep = n;
	bool nul = true;
	char *buf;

	if (n > SYSTRACE_ARGV_MAX)
		keep = SYSTRACE_ARGV_MAX;
	if (keep && s[keep - 1]) {
		if (keep == n && n < SYSTRACE_ARGV_MAX) {
			nul = false;	/* room for the missing NUL */
		} else {
			while (keep && s[keep - 1])
				keep--;
			*truncated = true;
		}
	} else if (keep < n) {
		*truncated = true;
	}
	buf = malloc(keep + !nul + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, s, keep);
	if (!nul)
		buf[keep++] = '\0';
	buf[keep] = '\0';
	*argv = buf;
	*len = (uint32_t)keep;
	return 0;
}
