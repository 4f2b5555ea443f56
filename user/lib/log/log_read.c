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
#include "log/log_read_priv.h"

const char *const st_src_cols[C_NCOLS] = {
	"session_id", "proc_id", "pid", "tid", "comm", "seq", "ts_ns", "dur_ns",
	"event", "abi", "nr", "syscall", "ret", "errno", "addr", "map", "path",
	"offset", "symbol", "phase", "early", "child_proc_id", "child_pid",
	"exit_code", "exit_signal", "argv", "argv_truncated", "arg_path",
};

const char *st_log_col_name(enum st_log_col c)
{
	return st_src_cols[c];
}

__attribute__((format(printf, 4, 5)))
int st_src_bad(struct st_log_src *s, struct st_err *err, size_t line,
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

/* ---- the buffer ---- */

/* The own buffer, with room for need bytes of text, its pad after them. */
static int own_room(struct st_log_src *s, struct st_err *err, size_t need)
{
	size_t cap = s->cap;
	char *b;

	while (need + 1 > cap) {
		cap *= 2;
		if (cap > RBUF_MAX + 1)
			return st_src_bad(s, err, s->line, "a record longer than %d MiB", RBUF_MAX >> 20);
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
		return st_src_bad(s, err, s->line, "a record longer than %d MiB", RBUF_MAX >> 20);
	k = st_readahead_take(s->ra, &d);
	if (k < 0)
		return read_failed(s, err, errno ? errno : EIO);
	n = (size_t)k;
	if (!n) {
		s->eof = true;	/* the text stays, its zeroes after it */
		return 0;
	}
	if (memchr(d, '\0', n))
		return st_src_bad(s, err, s->line, "a NUL byte: not a log");
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
int st_src_refill(struct st_log_src *s, struct st_err *err)
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
		return st_src_bad(s, err, s->line, "a NUL byte: not a log");
	s->len += n;
	memset(s->buf + s->len, 0, RBUF_PAD);
	s->eof = n == 0;
	return 0;
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
	return st_src_bad(s, err, line, "%s: not a number: \"%s\"", st_src_cols[c], f[c]);
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
	return f[c] ? 0 : st_src_bad(s, err, line, "%s is missing", st_src_cols[c]);
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
			return st_src_bad(s, err, line, "argv_truncated: \"%s\" is not 0 or 1",
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
		return st_src_bad(s, err, line, "argv: %s", why);
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
			return st_src_bad(s, err, line, "map: unknown \"%s\"", f[C_MAP]);
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
	_Static_assert(sizeof(struct st_event) == 128, "to_event() sets every field of st_event");
#endif
	e->ret = 0;
	/* A log keeps the path, not its row's id. */
	e->path_id = 0;
	e->arg_path = f[C_ARG_PATH];
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
		return st_src_bad(s, err, line, "event: \"%s\" is none of syscall, fork, exec, exit",
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
		return st_src_bad(s, err, line, "ret: not a number: \"%s\"", f[C_RET]);
	if (f[C_ABI] && !parse_enum(f[C_ABI], st_abi_name, __SYSTRACE_ABI_MAX, &e->abi,
				    &s->last_abi, &s->last_abi_name))
		return st_src_bad(s, err, line, "abi: unknown \"%s\"", f[C_ABI]);
	if (f[C_PHASE]) {
		if (streq(f[C_PHASE], "loader"))
			e->phase = ST_PHASE_LOADER;
		else if (streq(f[C_PHASE], "program"))
			e->phase = ST_PHASE_PROGRAM;
		else
			return st_src_bad(s, err, line, "phase: \"%s\" is neither loader nor program",
				   f[C_PHASE]);
	}
	if (f[C_EARLY]) {
		if ((f[C_EARLY][0] != '0' && f[C_EARLY][0] != '1') || f[C_EARLY][1])
			return st_src_bad(s, err, line, "early: \"%s\" is not 0 or 1", f[C_EARLY]);
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

	ret = st_src_csv_next(s, err, hdr, 64, &n, &line);
	if (ret < 0)
		return ret;
	if (!ret)
		return st_src_bad(s, err, 1, "not a log: the file is empty");
	memset(s->field_of, 64, sizeof(s->field_of));
	for (i = 0; i < n; i++) {
		int c;

		for (c = 0; c < C_NCOLS && strcmp(hdr[i], st_src_cols[c]); c++)
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
		return st_src_bad(s, err, line, "not a log: its first line is no log header (a log's names the columns event, proc_id and ts_ns, at least)");
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
		return st_src_bad(s, err, 1, "%s", why);
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
		if ((ret = st_src_refill(s, err)))
			return ret;
	p = s->buf + strspn(s->buf, " \t\r\n");
	if (!*p)
		return st_src_bad(s, err, 1, "not a log: the file is empty");
	if (*p == '{') {
		s->kind = SRC_JSONL;
		return 0;
	}
	if (*p == '[')
		return st_src_bad(s, err, 1, "not a log: a JSON array (a log is CSV with a header row, or JSONL: one object per line)");
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
		ret = st_src_jsonl_next(s, err, f, &line);
	} else {
		ret = st_src_csv_next(s, err, fld, 64, &n, &line);
		if (ret == 1) {
			if (n != s->nhdr)
				return st_src_bad(s, err, line, "%zu fields, the header has %zu", n, s->nhdr);
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
