// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a log, one event at a time: CSV and JSONL here (the columns of
 * log.h), Chrome trace-event JSON in log_chrome.c, Perfetto's protobuf
 * trace in log_perfetto.c. Output is formatted into a buffer that a second
 * thread writes (st_obuf with a worker) while the next events are formatted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "out/argv.h"
#include "log/log_writer.h"
#include "model/names.h"
#include "out/json_str.h"
#include "base/worker.h"

/* Large: each is one fwrite(), and so one write(2) at most. */
#define WBUF_SIZE (1 << 20)
#define WBUF_QUEUE 4

static const char *const kind_names[] = {
	[ST_EV_SYSCALL] = "syscall",
	[ST_EV_FORK] = "fork",
	[ST_EV_EXEC] = "exec",
	[ST_EV_EXIT] = "exit",
};

static const char *const log_cols[] = {
	"session_id", "proc_id", "pid", "tid", "comm", "seq", "ts_ns", "dur_ns",
	"event", "abi", "nr", "syscall", "ret", "errno", "addr", "map", "path",
	"offset", "symbol", "phase", "early", "child_proc_id", "child_pid",
	"exit_code", "exit_signal", "argv", "argv_truncated", "arg_path",
};

enum {
	C_SESSION_ID, C_PROC_ID, C_PID, C_TID, C_COMM, C_SEQ, C_TS_NS, C_DUR_NS,
	C_EVENT, C_ABI, C_NR, C_SYSCALL, C_RET, C_ERRNO, C_ADDR, C_MAP, C_PATH,
	C_OFFSET, C_SYMBOL, C_PHASE, C_EARLY, C_CHILD_PROC_ID, C_CHILD_PID,
	C_EXIT_CODE, C_EXIT_SIGNAL, C_ARGV, C_ARGV_TRUNCATED, C_ARG_PATH, C_N
};

/* A cell: ST_NULL (missing) unless set. */
static void c_u64(struct st_cell *c, uint64_t u)
{
	c->kind = ST_U64;
	c->u = u;
}

static void c_str(struct st_cell *c, const char *s)
{
	c->kind = s ? ST_STR : ST_NULL;
	c->s = s;
}

static void c_hex(struct st_cell *c, uint64_t u)
{
	c->kind = ST_HEX;
	c->u = u;
}

static const char *phase_name(enum st_phase ph)
{
	return ph == ST_PHASE_LOADER ? "loader" :
	       ph == ST_PHASE_PROGRAM ? "program" : NULL;
}

/* The row of one event: cells left zeroed are missing. */
static void event_cells(const struct st_log_writer *w, const struct st_event *ev,
			struct st_cell *v)
{
	const struct st_ev_site *s = ev->site;
	const struct st_proc_row *p = ev->proc;

	/* Each cell's kind only: a memset of them all cost 5% of a writer. */
	for (size_t c = 0; c < C_N; c++)
		v[c].kind = ST_NULL;
	c_u64(&v[C_SESSION_ID], w->meta.session_id);
	c_u64(&v[C_PROC_ID], ev->proc_id);
	c_u64(&v[C_PID], ev->pid);
	c_u64(&v[C_TID], ev->tid);
	c_str(&v[C_COMM], p ? p->comm : NULL);
	c_u64(&v[C_TS_NS], ev->ts_ns);
	c_str(&v[C_EVENT], kind_names[ev->kind]);
	switch (ev->kind) {
	case ST_EV_SYSCALL:
		c_u64(&v[C_SEQ], ev->seq);
		c_u64(&v[C_DUR_NS], ev->dur_ns);
		c_str(&v[C_ABI], st_abi_name(ev->abi));
		c_u64(&v[C_NR], ev->nr);
		c_str(&v[C_SYSCALL], st_syscall_name(ev->abi, ev->nr));
		v[C_RET].kind = ST_S64;
		v[C_RET].u = (uint64_t)ev->ret;
		if (st_ret_is_error(ev->ret))
			c_u64(&v[C_ERRNO], (uint64_t)-ev->ret);
		c_hex(&v[C_ADDR], ev->addr);
		if (s) {
			c_str(&v[C_MAP], st_map_name(s->map));
			c_str(&v[C_PATH], s->path);
			if (s->map != SYSTRACE_MAP_UNKNOWN)
				c_hex(&v[C_OFFSET], s->offset);
			c_str(&v[C_SYMBOL], s->sym ? s->sym->symbol : NULL);
		}
		if (ev->phase != ST_PHASE_NONE) {
			c_str(&v[C_PHASE], phase_name(ev->phase));
			v[C_EARLY].kind = ST_BOOL;
			v[C_EARLY].u = ev->early;
		}
		c_str(&v[C_ARG_PATH], ev->arg_path);
		break;
	case ST_EV_FORK:
		c_u64(&v[C_CHILD_PROC_ID], ev->child_proc_id);
		c_u64(&v[C_CHILD_PID], ev->child_pid);
		break;
	case ST_EV_EXIT:
		if (p && p->has_exit_code)
			c_u64(&v[C_EXIT_CODE], p->exit_code);
		if (p && p->has_exit_signal)
			c_u64(&v[C_EXIT_SIGNAL], p->exit_signal);
		break;
	case ST_EV_EXEC:
		c_str(&v[C_PATH], st_event_exe(ev));
		if (p && p->argv) {
			v[C_ARGV].kind = ST_ARGV;
			v[C_ARGV].s = p->argv;
			v[C_ARGV].u = p->argv_len;
			v[C_ARGV_TRUNCATED].kind = ST_BOOL;
			v[C_ARGV_TRUNCATED].u = p->argv_truncated;
		}
		break;
	}
}

/*
 * A syscall's line, nearly every line of a log, is written straight into
 * the buffer (csv_syscall, jsonl_syscall): room for it is made first
 * (LINE_ROOM), so no piece checks it. The bytes are the ones event_cells()
 * and the loops over its cells give.
 */
#define LINE_ROOM 4096
/* Longer strings take the general functions, which make their own room. */
#define LINE_SHORT 256

/* "0x..." with its quotes (as st_obuf_hex, quoted). */
static inline char *put_qhex(char *d, uint64_t v)
{
	*d = '"';
	d = st_put_hex(d + 1, v);
	*d = '"';
	return d + 1;
}

#define PUT_LIT(d, lit) (memcpy((d), (lit), sizeof(lit) - 1), (d) + sizeof(lit) - 1)

/* Whether s's n bytes are all ASCII from ' ', but " and \\: JSON as they are. */
static inline bool json_plain(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t x, acc = 0;
	unsigned char c;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&x, s, 8);
		acc |= (x - ones * 0x20) | ((x ^ ones * '"') - ones) |
		       ((x ^ ones * '\\') - ones) | x;
	}
	if (acc & high)
		return false;
	for (; n; s++, n--) {
		c = (unsigned char)*s;
		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/* s (NULL: null) as a JSON string at d, in w->o's buffer; returns the end. */
static inline char *put_jstr(struct st_obuf *o, char *d, const char *s)
{
	size_t n;

	if (!s)
		return PUT_LIT(d, "null");
	n = strlen(s);
	if (n <= LINE_SHORT && json_plain(s, n)) {
		*d++ = '"';
		memcpy(d, s, n);
		d[n] = '"';
		return d + n + 1;
	}
	o->len = (size_t)(d - o->b);
	st_json_put_string(o, s);
	if (o->cap - o->len < LINE_ROOM)
		st_obuf_spill(o);
	return o->b + o->len;
}

/* Whether s's n bytes hold none that makes a CSV field quoted (st_csv_field). */
static inline bool csv_plain(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t x, a, b, c, e, acc = 0;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&x, s, 8);
		a = x ^ ones * ',';
		b = x ^ ones * '"';
		c = x ^ ones * '\r';
		e = x ^ ones * '\n';
		acc |= ((a - ones) & ~a) | ((b - ones) & ~b) | ((c - ones) & ~c) |
		       ((e - ones) & ~e);
	}
	if (acc & high)
		return false;
	for (; n; s++, n--)
		if (*s == ',' || *s == '"' || *s == '\r' || *s == '\n')
			return false;
	return true;
}

/* s (NULL: nothing) as a CSV field at d, in o's buffer; returns the end. */
static inline char *put_csv(struct st_obuf *o, char *d, const char *s)
{
	size_t n;

	if (!s)
		return d;
	n = strlen(s);
	if (n <= LINE_SHORT && csv_plain(s, n)) {
		memcpy(d, s, n);
		return d + n;
	}
	o->len = (size_t)(d - o->b);
	st_csv_field(o, s);
	if (o->cap - o->len < LINE_ROOM)
		st_obuf_spill(o);
	return o->b + o->len;
}

/* ---- CSV ---- */

static int csv_begin(struct st_log_writer *w)
{
	size_t c;

	for (c = 0; c < C_N; c++) {
		if (c)
			st_obuf_putc(&w->o, ',');
		st_obuf_puts(&w->o, log_cols[c]);
	}
	st_obuf_putc(&w->o, '\n');
	return 0;
}

/* An exec's argv: its command line (argv.h) as one field. */
static int csv_argv(struct st_log_writer *w, const struct st_cell *c)
{
	char *s = st_argv_shell_str(c->s, (size_t)c->u);

	if (!s)
		return -ENOMEM;
	st_csv_field(&w->o, s);
	free(s);
	return 0;
}

static void csv_syscall(struct st_log_writer *w, const struct st_event *ev)
{
	struct st_obuf *o = &w->o;
	const struct st_ev_site *s = ev->site;
	const struct st_proc_row *p = ev->proc;
	char *d;

	if (o->cap - o->len < LINE_ROOM)
		st_obuf_spill(o);
	d = o->b + o->len;
	d = st_put_dec(d, w->meta.session_id);
	*d++ = ',';
	d = st_put_dec(d, ev->proc_id);
	*d++ = ',';
	d = st_put_dec(d, ev->pid);
	*d++ = ',';
	d = st_put_dec(d, ev->tid);
	*d++ = ',';
	d = put_csv(o, d, p ? p->comm : NULL);
	*d++ = ',';
	d = st_put_dec(d, ev->seq);
	*d++ = ',';
	d = st_put_dec(d, ev->ts_ns);
	*d++ = ',';
	d = st_put_dec(d, ev->dur_ns);
	d = PUT_LIT(d, ",syscall,");
	d = put_csv(o, d, st_abi_name(ev->abi));
	*d++ = ',';
	d = st_put_dec(d, ev->nr);
	*d++ = ',';
	d = put_csv(o, d, st_syscall_name(ev->abi, ev->nr));
	*d++ = ',';
	d = st_put_sdec(d, (uint64_t)ev->ret);
	*d++ = ',';
	if (st_ret_is_error(ev->ret))
		d = st_put_dec(d, (uint64_t)-ev->ret);
	*d++ = ',';
	d = st_put_hex(d, ev->addr);
	*d++ = ',';
	if (s) {
		d = put_csv(o, d, st_map_name(s->map));
		*d++ = ',';
		d = put_csv(o, d, s->path);
		*d++ = ',';
		if (s->map != SYSTRACE_MAP_UNKNOWN)
			d = st_put_hex(d, s->offset);
		*d++ = ',';
		d = put_csv(o, d, s->sym ? s->sym->symbol : NULL);
	} else {
		d = PUT_LIT(d, ",,,");
	}
	*d++ = ',';
	if (ev->phase != ST_PHASE_NONE) {
		d = put_csv(o, d, phase_name(ev->phase));
		*d++ = ',';
		*d++ = ev->early ? '1' : '0';
	} else {
		*d++ = ',';
	}
	/* child_proc_id, child_pid, exit_code, exit_signal, argv, argv_truncated, then arg_path */
	d = PUT_LIT(d, ",,,,,,,");
	d = put_csv(o, d, ev->arg_path);
	*d++ = '\n';
	o->len = (size_t)(d - o->b);
}

static int csv_event(struct st_log_writer *w, const struct st_event *ev)
{
	struct st_cell v[C_N];
	size_t c;

	if (ev->kind == ST_EV_SYSCALL) {
		csv_syscall(w, ev);
		return 0;
	}
	event_cells(w, ev, v);
	for (c = 0; c < C_N; c++) {
		if (c)
			st_obuf_putc(&w->o, ',');
		switch (v[c].kind) {
		case ST_U64:
			st_obuf_u64(&w->o, v[c].u);
			break;
		case ST_S64:
			st_obuf_s64(&w->o, v[c].u);
			break;
		case ST_HEX:
			st_obuf_hex(&w->o, v[c].u);
			break;
		case ST_BOOL:
			st_obuf_putc(&w->o, v[c].u ? '1' : '0');
			break;
		case ST_STR:
			st_csv_field(&w->o, v[c].s);
			break;
		case ST_ARGV:
			if (csv_argv(w, &v[c]))
				return -ENOMEM;
			break;
		default:
			break;
		}
	}
	st_obuf_putc(&w->o, '\n');
	return 0;
}

static const struct st_log_writer_ops csv_ops = {
	.begin = csv_begin, .event = csv_event,
};

/* ---- JSONL: every key, null when missing ---- */

/* What comes before each value: {"key": or ,"key": (made once). */
#define JKEY(name, first) { (first) ? "{\"" name "\":" : ",\"" name "\":", \
			    sizeof(name) + 3 }
static const struct {
	const char *s;
	size_t n;
} jsonl_keys[] = {
	JKEY("session_id", 1), JKEY("proc_id", 0), JKEY("pid", 0), JKEY("tid", 0),
	JKEY("comm", 0), JKEY("seq", 0), JKEY("ts_ns", 0), JKEY("dur_ns", 0),
	JKEY("event", 0), JKEY("abi", 0), JKEY("nr", 0), JKEY("syscall", 0),
	JKEY("ret", 0), JKEY("errno", 0), JKEY("addr", 0), JKEY("map", 0),
	JKEY("path", 0), JKEY("offset", 0), JKEY("symbol", 0), JKEY("phase", 0),
	JKEY("early", 0), JKEY("child_proc_id", 0), JKEY("child_pid", 0),
	JKEY("exit_code", 0), JKEY("exit_signal", 0), JKEY("argv", 0),
	JKEY("argv_truncated", 0), JKEY("arg_path", 0),
};
_Static_assert(sizeof(jsonl_keys) / sizeof(jsonl_keys[0]) == C_N, "a key per column");

static void jsonl_syscall(struct st_log_writer *w, const struct st_event *ev)
{
	struct st_obuf *o = &w->o;
	const struct st_ev_site *s = ev->site;
	const struct st_proc_row *p = ev->proc;
	char *d;

	if (o->cap - o->len < LINE_ROOM)
		st_obuf_spill(o);
	d = o->b + o->len;
	d = PUT_LIT(d, "{\"session_id\":");
	d = st_put_dec(d, w->meta.session_id);
	d = PUT_LIT(d, ",\"proc_id\":");
	d = st_put_dec(d, ev->proc_id);
	d = PUT_LIT(d, ",\"pid\":");
	d = st_put_dec(d, ev->pid);
	d = PUT_LIT(d, ",\"tid\":");
	d = st_put_dec(d, ev->tid);
	d = PUT_LIT(d, ",\"comm\":");
	d = put_jstr(o, d, p ? p->comm : NULL);
	d = PUT_LIT(d, ",\"seq\":");
	d = st_put_dec(d, ev->seq);
	d = PUT_LIT(d, ",\"ts_ns\":");
	d = st_put_dec(d, ev->ts_ns);
	d = PUT_LIT(d, ",\"dur_ns\":");
	d = st_put_dec(d, ev->dur_ns);
	d = PUT_LIT(d, ",\"event\":\"syscall\",\"abi\":");
	d = put_jstr(o, d, st_abi_name(ev->abi));
	d = PUT_LIT(d, ",\"nr\":");
	d = st_put_dec(d, ev->nr);
	d = PUT_LIT(d, ",\"syscall\":");
	d = put_jstr(o, d, st_syscall_name(ev->abi, ev->nr));
	d = PUT_LIT(d, ",\"ret\":");
	d = st_put_sdec(d, (uint64_t)ev->ret);
	d = PUT_LIT(d, ",\"errno\":");
	if (st_ret_is_error(ev->ret))
		d = st_put_dec(d, (uint64_t)-ev->ret);
	else
		d = PUT_LIT(d, "null");
	d = PUT_LIT(d, ",\"addr\":");
	d = put_qhex(d, ev->addr);
	if (s) {
		d = PUT_LIT(d, ",\"map\":");
		d = put_jstr(o, d, st_map_name(s->map));
		d = PUT_LIT(d, ",\"path\":");
		d = put_jstr(o, d, s->path);
		d = PUT_LIT(d, ",\"offset\":");
		if (s->map != SYSTRACE_MAP_UNKNOWN)
			d = put_qhex(d, s->offset);
		else
			d = PUT_LIT(d, "null");
		d = PUT_LIT(d, ",\"symbol\":");
		d = put_jstr(o, d, s->sym ? s->sym->symbol : NULL);
	} else {
		d = PUT_LIT(d, ",\"map\":null,\"path\":null,\"offset\":null,\"symbol\":null");
	}
	if (ev->phase != ST_PHASE_NONE) {
		d = PUT_LIT(d, ",\"phase\":");
		d = put_jstr(o, d, phase_name(ev->phase));
		if (ev->early)
			d = PUT_LIT(d, ",\"early\":true");
		else
			d = PUT_LIT(d, ",\"early\":false");
	} else {
		d = PUT_LIT(d, ",\"phase\":null,\"early\":null");
	}
	d = PUT_LIT(d, ",\"child_proc_id\":null,\"child_pid\":null,\"exit_code\":null,"
		    "\"exit_signal\":null,\"argv\":null,\"argv_truncated\":null,\"arg_path\":");
	d = put_jstr(o, d, ev->arg_path);
	d = PUT_LIT(d, "}\n");
	o->len = (size_t)(d - o->b);
}

static int jsonl_event(struct st_log_writer *w, const struct st_event *ev)
{
	struct st_cell v[C_N];
	size_t c;

	if (ev->kind == ST_EV_SYSCALL) {
		jsonl_syscall(w, ev);
		return 0;
	}
	event_cells(w, ev, v);
	for (c = 0; c < C_N; c++) {
		st_obuf_put(&w->o, jsonl_keys[c].s, jsonl_keys[c].n);
		switch (v[c].kind) {
		case ST_U64:
			st_obuf_u64(&w->o, v[c].u);
			break;
		case ST_S64:
			st_obuf_s64(&w->o, v[c].u);
			break;
		case ST_HEX:
			st_obuf_putc(&w->o, '"');
			st_obuf_hex(&w->o, v[c].u);
			st_obuf_putc(&w->o, '"');
			break;
		case ST_BOOL:
			st_obuf_puts(&w->o, v[c].u ? "true" : "false");
			break;
		case ST_STR:
			st_json_put_string(&w->o, v[c].s);
			break;
		case ST_ARGV:
			st_argv_put_json(&w->o, v[c].s, (size_t)v[c].u);
			break;
		default:
			st_obuf_put(&w->o, "null", 4);
			break;
		}
	}
	st_obuf_put(&w->o, "}\n", 2);
	return 0;
}

static const struct st_log_writer_ops jsonl_ops = {
	.event = jsonl_event,
};

/* ---- the writer ---- */

static void write_failed(struct st_log_writer *w, int e)
{
	if (!__atomic_load_n(&w->werr, __ATOMIC_RELAXED))
		__atomic_store_n(&w->werr, e ? e : EIO, __ATOMIC_RELAXED);
}

/*
 * On the worker's thread: its errno is its own, so it is kept here. A
 * file's chunk goes to write(2) as it is: through stdio it was copied once
 * more (a MiB chunk does not fit what is left of a MiB buffer); a zstd
 * stream (no fd) takes it through stdio.
 */
static void write_out(void *arg, char *b, size_t len)
{
	struct st_log_writer *w = arg;
	ssize_t k;

	if (w->fd < 0) {
		if (fwrite(b, 1, len, w->f) != len)
			write_failed(w, errno);
		return;
	}
	while (len) {
		k = write(w->fd, b, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			write_failed(w, k < 0 ? errno : EIO);
			return;
		}
		b += k;
		len -= (size_t)k;
	}
}

int st_log_writer_new(struct st_log_writer **wp, FILE *f,
		      enum st_log_format fmt, const struct st_log_meta *m)
{
	static const struct st_log_writer_ops *const ops[] = {
		[ST_LOG_CSV] = &csv_ops,
		[ST_LOG_JSONL] = &jsonl_ops,
		[ST_LOG_CHROME] = &st_log_chrome_ops,
		[ST_LOG_PERFETTO] = &st_log_perfetto_ops,
	};
	struct st_log_writer *w = calloc(1, sizeof(*w));
	struct st_worker *wk;

	*wp = NULL;
	if (!w)
		return -ENOMEM;
	w->ops = ops[fmt];
	w->f = f;
	w->meta = *m;
	/* What f holds goes first: the worker writes to its fd. */
	w->fd = fflush(f) ? -1 : fileno(f);
	if (!st_worker_start(&wk, WBUF_SIZE, WBUF_QUEUE, write_out, w)) {
		st_obuf_init(&w->o, f, st_worker_buf(wk), WBUF_SIZE);
		w->o.w = wk;
	} else {
		st_obuf_init(&w->o, f, malloc(WBUF_SIZE), WBUF_SIZE);
		if (!w->o.b) {
			free(w);
			return -ENOMEM;
		}
	}
	*wp = w;
	return 0;
}

static int stream_error(struct st_log_writer *w)
{
	int e = __atomic_load_n(&w->werr, __ATOMIC_RELAXED);

	if (e)
		return -e;
	return ferror(w->f) ? -EIO : 0;
}

static int begin(struct st_log_writer *w)
{
	w->begun = true;
	return w->ops->begin ? w->ops->begin(w) : 0;
}

int st_log_writer_event(struct st_log_writer *w, const struct st_event *ev)
{
	int ret;

	if (!w->begun && (ret = begin(w)))
		return ret;
	ret = w->ops->event(w, ev);
	if (ret)
		return ret;
	/* A full disk stops the writing soon, not at the end. */
	if (!(++w->events & 0xffff))
		return stream_error(w);
	return 0;
}

int st_log_writer_end(struct st_log_writer *w)
{
	int ret = 0;

	if (!w->begun)
		ret = begin(w);
	if (!ret && w->ops->end)
		ret = w->ops->end(w);
	st_obuf_flush(&w->o);
	if (fflush(w->f) && !ret)
		ret = -(errno ? errno : EIO);
	if (!ret)
		ret = stream_error(w);
	return ret;
}

uint64_t st_log_writer_events(const struct st_log_writer *w)
{
	return w->events;
}

void st_log_writer_free(struct st_log_writer *w)
{
	if (!w)
		return;
	st_obuf_flush(&w->o);
	if (w->o.w)
		st_worker_stop(w->o.w);
	else
		free(w->o.b);
	if (w->ops->free)
		w->ops->free(w);
	free(w);
}
