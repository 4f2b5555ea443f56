// SPDX-License-Identifier: GPL-2.0
/* The spool of a recording: sorted runs of compressed records (log_spool.h). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "log/log_file.h"
#include "log/log_spool.h"
#include "base/worker.h"

#define SPOOL_MAGIC "STSPOOL1"
#define SPOOL_VERSION 2		/* 1: no path_id (st_spool_rec) */
#define CHUNK_MAGIC 0x4b435453u		/* "STCK" */
#define CHUNK_RECS 2048			/* 128 KiB of records a chunk */
/* Records a run buffer holds: 32 MiB each, RUN_BUFS of them (the drain
 * fills one while the others wait to be sorted and written). */
#define RUN_RECS (512 * 1024)
#define RUN_BUFS 2

struct spool_hdr {
	char magic[8];
	uint32_t version, rec_size, session_id, reserved;
};

struct chunk_hdr {
	uint32_t magic, run, nrec, csize;
};

struct st_spool {
	int fd;
	char *path;		/* a named spool, removed at the end; NULL: O_TMPFILE */
	struct st_worker *w;
	struct st_spool_rec *buf;	/* the buffer being filled */
	size_t n;
	uint64_t count;		/* records taken */
	/* The worker's (read by the caller once drained): */
	ZSTD_CCtx *cctx;
	char *cbuf;
	size_t ccap;
	uint64_t off;
	struct st_spool_run *runs;
	size_t nruns, runs_cap;
	int err;		/* the first write error, atomic */
	uint64_t lost;		/* records not written since, atomic */
};

static int rec_cmp(const void *a, const void *b)
{
	const struct st_spool_rec *x = a, *y = b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->proc_id != y->proc_id)
		return x->proc_id < y->proc_id ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int write_chunk(struct st_spool *s, uint32_t run,
		       const struct st_spool_rec *r, size_t n)
{
	struct chunk_hdr h = { CHUNK_MAGIC, run, (uint32_t)n, 0 };
	size_t c = ZSTD_compressCCtx(s->cctx, s->cbuf, s->ccap, r, n * sizeof(*r), 1);
	int ret;

	if (ZSTD_isError(c))
		return -EIO;
	h.csize = (uint32_t)c;
	ret = st_pwrite_all(s->fd, &h, sizeof(h), s->off);
	if (!ret)
		ret = st_pwrite_all(s->fd, s->cbuf, c, s->off + sizeof(h));
	if (!ret)
		s->off += sizeof(h) + c;
	return ret;
}

/* On the worker's thread: one run, sorted and written, or lost whole. */
static void write_run(void *arg, char *chunk, size_t len)
{
	struct st_spool *s = arg;
	struct st_spool_rec *r = (struct st_spool_rec *)chunk;
	size_t n = len / sizeof(*r), i;
	struct st_spool_run run = { .start = s->off, .nrec = n, .version = SPOOL_VERSION };
	int ret = 0;

	if (!n)
		return;
	if (__atomic_load_n(&s->err, __ATOMIC_RELAXED)) {
		__atomic_add_fetch(&s->lost, n, __ATOMIC_RELAXED);
		return;
	}
	qsort(r, n, sizeof(*r), rec_cmp);
	if (s->nruns == s->runs_cap) {
		size_t cap = s->runs_cap ? 2 * s->runs_cap : 64;
		struct st_spool_run *p = realloc(s->runs, cap * sizeof(*p));

		if (!p)
			ret = -ENOMEM;
		else
			s->runs = p, s->runs_cap = cap;
	}
	for (i = 0; !ret && i < n; i += CHUNK_RECS)
		ret = write_chunk(s, (uint32_t)s->nruns, r + i,
				  n - i < CHUNK_RECS ? n - i : CHUNK_RECS);
	if (ret) {
		/* A cut run would read back as a short one: take it out whole. */
		if (ftruncate(s->fd, (off_t)run.start) == 0)
			s->off = run.start;
		__atomic_add_fetch(&s->lost, n, __ATOMIC_RELAXED);
		__atomic_store_n(&s->err, -ret, __ATOMIC_RELAXED);
		return;
	}
	run.end = s->off;
	s->runs[s->nruns++] = run;
}

int st_spool_open(struct st_spool **sp, const char *log_path,
		  uint32_t session_id, struct st_err *err)
{
	struct spool_hdr h = { .version = SPOOL_VERSION,
			       .rec_size = sizeof(struct st_spool_rec),
			       .session_id = session_id };
	struct st_spool *s = calloc(1, sizeof(*s));
	int ret = -ENOMEM;

	*sp = NULL;
	if (!s)
		goto fail;
	s->fd = -1;
	s->ccap = ZSTD_compressBound(CHUNK_RECS * sizeof(struct st_spool_rec));
	s->cbuf = malloc(s->ccap);
	s->cctx = ZSTD_createCCtx();
	if (!s->cbuf || !s->cctx)
		goto fail;
	s->fd = st_log_tmpfile(log_path, "spool", &s->path);
	if (s->fd < 0) {
		ret = s->fd;
		goto fail;
	}
	memcpy(h.magic, SPOOL_MAGIC, sizeof(h.magic));
	ret = st_pwrite_all(s->fd, &h, sizeof(h), 0);
	if (ret)
		goto fail;
	s->off = sizeof(h);
	if (st_worker_start(&s->w, RUN_RECS * sizeof(struct st_spool_rec), RUN_BUFS,
			    write_run, s) == 0) {
		s->buf = (struct st_spool_rec *)st_worker_buf(s->w);
	} else {
		s->buf = malloc(RUN_RECS * sizeof(struct st_spool_rec));
		if (!s->buf) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	*sp = s;
	return 0;
fail:
	st_err_set(err, ST_ERR_LOCAL, -ret, "log spool", "beside %s", log_path);
	st_spool_close(s);
	return ret;
}

static void hand_over(struct st_spool *s)
{
	if (s->w) {
		s->buf = (struct st_spool_rec *)st_worker_submit(s->w, s->n * sizeof(*s->buf));
	} else {
		write_run(s, (char *)s->buf, s->n * sizeof(*s->buf));
	}
	s->n = 0;
}

int st_spool_set_session(struct st_spool *s, uint32_t session_id)
{
	uint32_t id = session_id;

	return st_pwrite_all(s->fd, &id, sizeof(id), offsetof(struct spool_hdr, session_id));
}

int st_spool_add(struct st_spool *s, const struct st_event *ev)
{
	struct st_spool_rec *r = &s->buf[s->n++];

	r->ts_ns = ev->ts_ns;
	r->dur_ns = ev->dur_ns;
	r->proc_id = ev->proc_id;
	r->seq = ev->seq;
	r->addr = ev->addr;
	r->ret = ev->ret;
	r->pid = ev->pid;
	r->tid = ev->tid;
	r->nr = (uint16_t)ev->nr;
	r->abi = (uint8_t)ev->abi;
	r->kind = (uint8_t)ev->kind;
	/* A session's path rows are far fewer than 2^32 (max_mem). */
	r->path_id = ev->path_id <= UINT32_MAX ? (uint32_t)ev->path_id : 0;
	s->count++;
	if (s->n == RUN_RECS)
		hand_over(s);
	return 0;
}

int st_spool_flush(struct st_spool *s)
{
	if (s->n)
		hand_over(s);
	if (s->w)
		st_worker_drain(s->w);
	return -__atomic_load_n(&s->err, __ATOMIC_RELAXED);
}

int st_spool_finish(struct st_spool *s)
{
	int ret = st_spool_flush(s);

	if (s->w)
		st_worker_stop(s->w);
	else
		free(s->buf);
	s->w = NULL;
	s->buf = NULL;
	free(s->cbuf);
	s->cbuf = NULL;
	ZSTD_freeCCtx(s->cctx);
	s->cctx = NULL;
	return ret;
}

int st_spool_error(const struct st_spool *s, uint64_t *lost)
{
	*lost = __atomic_load_n(&s->lost, __ATOMIC_RELAXED);
	return -__atomic_load_n(&s->err, __ATOMIC_RELAXED);
}

uint64_t st_spool_count(const struct st_spool *s)
{
	return s->count;
}

const struct st_spool_run *st_spool_runs(const struct st_spool *s, size_t *n)
{
	*n = s->nruns;
	return s->runs;
}

int st_spool_fd(const struct st_spool *s)
{
	return s->fd;
}

int st_spool_keep(struct st_spool *s, const char *path)
{
	char proc[64];

	if (s->path) {
		if (rename(s->path, path))
			return -errno;
		free(s->path);
		s->path = NULL;
		return 0;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", s->fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

void st_spool_close(struct st_spool *s)
{
	if (!s)
		return;
	if (s->w)
		st_worker_stop(s->w);
	else
		free(s->buf);
	if (s->fd >= 0)
		close(s->fd);
	if (s->path)
		unlink(s->path);
	free(s->path);
	free(s->runs);
	free(s->cbuf);
	ZSTD_freeCCtx(s->cctx);
	free(s);
}

/* ---- reading ---- */

bool st_spool_is_spool(const unsigned char *b, size_t n)
{
	return n >= 8 && !memcmp(b, SPOOL_MAGIC, 8);
}

int st_spool_scan(int fd, uint32_t *session_id, struct st_spool_run **runs,
		  size_t *nruns, uint64_t *cut, const char **why)
{
	struct spool_hdr h;
	struct chunk_hdr c;
	struct st_spool_run *r = NULL;
	size_t n = 0, cap = 0;
	uint64_t off = sizeof(h), size;
	off_t end = lseek(fd, 0, SEEK_END);
	int ret;

	*runs = NULL;
	*nruns = 0;
	*cut = 0;
	if (end < 0)
		return -errno;
	size = (uint64_t)end;
	ret = st_pread_all(fd, &h, sizeof(h), 0);
	if (ret || memcmp(h.magic, SPOOL_MAGIC, 8) || !h.version || h.version > SPOOL_VERSION ||
	    h.rec_size != sizeof(struct st_spool_rec)) {
		*why = "not a spool of this version and byte order";
		return -EINVAL;
	}
	*session_id = h.session_id;
	while (off + sizeof(c) <= size) {
		if (st_pread_all(fd, &c, sizeof(c), off))
			break;
		if (c.magic != CHUNK_MAGIC || c.nrec > CHUNK_RECS) {
			free(r);
			*why = "a chunk header is damaged";
			return -EINVAL;
		}
		if (off + sizeof(c) + c.csize > size) {
			*cut = c.nrec;
			break;
		}
		if (!n || c.run != n - 1) {
			if (n == cap) {
				struct st_spool_run *p;

				cap = cap ? 2 * cap : 64;
				p = realloc(r, cap * sizeof(*p));
				if (!p) {
					free(r);
					return -ENOMEM;
				}
				r = p;
			}
			r[n++] = (struct st_spool_run){ .start = off, .version = h.version };
		}
		off += sizeof(c) + c.csize;
		r[n - 1].end = off;
		r[n - 1].nrec += c.nrec;
	}
	*runs = r;
	*nruns = n;
	return 0;
}

struct st_spool_reader {
	ZSTD_DCtx *d;
	char *cbuf;
	size_t ccap;
};

struct st_spool_cursor {
	struct st_spool_reader *r;
	int fd;
	uint64_t off, end;
	uint32_t version;
	struct st_spool_rec rec[CHUNK_RECS];
	size_t n, i;
};

int st_spool_reader_new(struct st_spool_reader **rp)
{
	struct st_spool_reader *r = calloc(1, sizeof(*r));

	*rp = NULL;
	if (!r)
		return -ENOMEM;
	r->ccap = ZSTD_compressBound(CHUNK_RECS * sizeof(struct st_spool_rec));
	r->cbuf = malloc(r->ccap);
	r->d = ZSTD_createDCtx();
	if (!r->cbuf || !r->d) {
		st_spool_reader_free(r);
		return -ENOMEM;
	}
	*rp = r;
	return 0;
}

void st_spool_reader_free(struct st_spool_reader *r)
{
	if (!r)
		return;
	ZSTD_freeDCtx(r->d);
	free(r->cbuf);
	free(r);
}

int st_spool_cursor_new(struct st_spool_cursor **cp, struct st_spool_reader *r,
			int fd, const struct st_spool_run *run)
{
	struct st_spool_cursor *c = malloc(sizeof(*c));

	*cp = NULL;
	if (!c)
		return -ENOMEM;
	c->r = r;
	c->fd = fd;
	c->off = run->start;
	c->end = run->end;
	c->version = run->version;
	c->n = c->i = 0;
	*cp = c;
	return 0;
}

static int read_chunk(struct st_spool_cursor *c)
{
	struct st_spool_reader *r = c->r;
	struct chunk_hdr h;
	size_t got;
	int ret;

	ret = st_pread_all(c->fd, &h, sizeof(h), c->off);
	if (ret)
		return ret;
	if (h.magic != CHUNK_MAGIC || h.nrec > CHUNK_RECS || h.csize > r->ccap ||
	    c->off + sizeof(h) + h.csize > c->end)
		return -EBADMSG;
	ret = st_pread_all(c->fd, r->cbuf, h.csize, c->off + sizeof(h));
	if (ret)
		return ret;
	got = ZSTD_decompressDCtx(r->d, c->rec, sizeof(c->rec), r->cbuf, h.csize);
	if (ZSTD_isError(got) || got != h.nrec * sizeof(c->rec[0]))
		return -EBADMSG;
	c->off += sizeof(h) + h.csize;
	c->n = h.nrec;
	c->i = 0;
	return 0;
}

int st_spool_cursor_next(struct st_spool_cursor *c, struct st_event *ev)
{
	const struct st_spool_rec *r;
	int ret;

	while (c->i == c->n) {
		if (c->off >= c->end)
			return 0;
		ret = read_chunk(c);
		if (ret)
			return ret;
	}
	r = &c->rec[c->i++];
	memset(ev, 0, sizeof(*ev));
	if (c->version == 1) {
		/* nr u32, abi u16, kind u8 at the offsets of nr, abi and path_id. */
		const unsigned char *b = (const unsigned char *)r;
		uint32_t nr;
		uint16_t abi;

		memcpy(&nr, b + offsetof(struct st_spool_rec, nr), sizeof(nr));
		memcpy(&abi, b + offsetof(struct st_spool_rec, path_id), sizeof(abi));
		ev->nr = nr;
		ev->abi = abi;
		ev->kind = (enum st_ev_kind)b[offsetof(struct st_spool_rec, path_id) + 2];
	} else {
		ev->nr = r->nr;
		ev->abi = r->abi;
		ev->kind = (enum st_ev_kind)r->kind;
		ev->path_id = r->path_id;
	}
	ev->ts_ns = r->ts_ns;
	ev->dur_ns = r->dur_ns;
	ev->proc_id = r->proc_id;
	ev->seq = r->seq;
	ev->addr = r->addr;
	ev->ret = r->ret;
	ev->pid = r->pid;
	ev->tid = r->tid;
	return 1;
}

void st_spool_cursor_free(struct st_spool_cursor *c)
{
	free(c);
}
