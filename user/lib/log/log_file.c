// SPDX-License-Identifier: GPL-2.0
/*
 * Log files: which format and compression a name asks for, zstd streams
 * as stdio streams (fopencookie: every writer and reader of a log works on
 * a FILE, compressed or not), and the file being written as FILE.partial,
 * renamed to FILE once whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "log/log.h"
#include "log/log_file.h"

static const char *const format_names[] = {
	[ST_LOG_CSV] = "csv",
	[ST_LOG_JSONL] = "jsonl",
	[ST_LOG_CHROME] = "chrome",
	[ST_LOG_PERFETTO] = "perfetto",
};

int st_log_format_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(name, format_names[i]))
			return (int)i;
	return -1;
}

const char *st_log_format_name(enum st_log_format fmt)
{
	return format_names[fmt];
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !strncmp(s + n - k, suffix, k);
}

int st_log_kind_of(const char *path, int fmt, struct st_log_kind *k,
		   struct st_err *err)
{
	size_t n = strlen(path);

	k->zstd = ends_with(path, n, ".zst");
	if (k->zstd)
		n -= 4;
	if (fmt >= 0)
		k->fmt = (enum st_log_format)fmt;
	else if (ends_with(path, n, ".jsonl"))
		k->fmt = ST_LOG_JSONL;
	else if (ends_with(path, n, ".json"))
		k->fmt = ST_LOG_CHROME;
	else if (ends_with(path, n, ".pftrace") || ends_with(path, n, ".perfetto-trace"))
		k->fmt = ST_LOG_PERFETTO;
	else
		k->fmt = ST_LOG_CSV;
	if (k->zstd && k->fmt != ST_LOG_CSV && k->fmt != ST_LOG_JSONL) {
		st_err_set(err, ST_ERR_LOCAL, EINVAL, "log",
			   "%s: only csv and jsonl logs are compressed (.zst); Perfetto opens a %s trace as it is",
			   path, format_names[k->fmt]);
		return -EINVAL;
	}
	return 0;
}

/* ---- zstd as a stdio stream ---- */

#define ZBUF (1 << 17)

struct zw {
	FILE *raw;
	ZSTD_CCtx *c;
	char out[ZBUF];
};

static int zw_push(struct zw *z, ZSTD_inBuffer *in, ZSTD_EndDirective end)
{
	size_t left;

	do {
		ZSTD_outBuffer out = { z->out, sizeof(z->out), 0 };

		left = ZSTD_compressStream2(z->c, &out, in, end);
		if (ZSTD_isError(left)) {
			errno = EIO;
			return -1;
		}
		if (out.pos && fwrite(z->out, 1, out.pos, z->raw) != out.pos)
			return -1;
	} while (end == ZSTD_e_end ? left != 0 : in->pos < in->size);
	return 0;
}

static ssize_t zw_write(void *cookie, const char *buf, size_t len)
{
	ZSTD_inBuffer in = { buf, len, 0 };

	return zw_push(cookie, &in, ZSTD_e_continue) ? -1 : (ssize_t)len;
}

/* Ends the frame; the raw stream stays open, its owner's. */
static int zw_close(void *cookie)
{
	struct zw *z = cookie;
	ZSTD_inBuffer in = { NULL, 0, 0 };
	int ret = zw_push(z, &in, ZSTD_e_end);

	ZSTD_freeCCtx(z->c);
	free(z);
	return ret;
}

FILE *st_zstd_writer(FILE *raw, int level)
{
	cookie_io_functions_t io = { .write = zw_write, .close = zw_close };
	struct zw *z = malloc(sizeof(*z));
	FILE *f;

	if (!z)
		return NULL;
	z->raw = raw;
	z->c = ZSTD_createCCtx();
	if (!z->c || ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_checksumFlag, 1))) {
		ZSTD_freeCCtx(z->c);
		free(z);
		return NULL;
	}
	/* A second thread compresses when the library has them: 2 CPUs here. */
	ZSTD_CCtx_setParameter(z->c, ZSTD_c_nbWorkers, 1);
	f = fopencookie(z, "w", io);
	if (!f) {
		ZSTD_freeCCtx(z->c);
		free(z);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, ZBUF);
	return f;
}

struct zr {
	FILE *raw;
	ZSTD_DCtx *d;
	ZSTD_inBuffer in;
	size_t last;		/* ZSTD_decompressStream's: 0 at a frame's end */
	char buf[ZBUF];
};

static ssize_t zr_read(void *cookie, char *buf, size_t len)
{
	struct zr *z = cookie;
	ZSTD_outBuffer out = { buf, len, 0 };

	while (out.pos == 0) {
		if (z->in.pos == z->in.size) {
			size_t n = fread(z->buf, 1, sizeof(z->buf), z->raw);

			if (!n) {
				if (ferror(z->raw))
					return -1;
				if (z->last) {
					errno = EPROTO;	/* cut short */
					return -1;
				}
				return 0;
			}
			z->in = (ZSTD_inBuffer){ z->buf, n, 0 };
		}
		z->last = ZSTD_decompressStream(z->d, &out, &z->in);
		if (ZSTD_isError(z->last)) {
			errno = EBADMSG;
			return -1;
		}
	}
	return (ssize_t)out.pos;
}

static int zr_close(void *cookie)
{
	struct zr *z = cookie;
	int ret = fclose(z->raw);

	ZSTD_freeDCtx(z->d);
	free(z);
	return ret;
}

FILE *st_zstd_reader(FILE *raw)
{
	cookie_io_functions_t io = { .read = zr_read, .close = zr_close };
	struct zr *z = calloc(1, sizeof(*z));
	FILE *f;

	if (!z)
		return NULL;
	z->raw = raw;
	z->d = ZSTD_createDCtx();
	f = z->d ? fopencookie(z, "r", io) : NULL;
	if (!f) {
		ZSTD_freeDCtx(z->d);
		free(z);
		return NULL;
	}
	return f;
}

bool st_zstd_magic(const unsigned char *b, size_t n)
{
	return n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd;
}

/* ---- the file being written ---- */

/* The file's writes: few and large (a pipe's reader wakes once a MiB). */
#define OUT_BUF (1 << 20)

struct st_log_out {
	char *path, *partial;
	FILE *raw, *f;
	char *buf;		/* raw's: glibc's setvbuf() ignores a size without one */
	bool in_place;		/* path is written as it is, not renamed */
};

/*
 * How path is written: 1 in place (it exists and is no regular file: a
 * device, a FIFO, a link, as /dev/null or /dev/stdout are; renaming over
 * it would replace it), 0 as FILE.partial renamed at the end, or -errno
 * with err (a directory; a directory that does not exist).
 */
int st_log_path_in_place(const char *path, struct st_err *err)
{
	char *dir = strdup(path), *slash;
	struct stat st;
	int ret = 0;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	if (!lstat(path, &st)) {
		if (S_ISDIR(st.st_mode)) {
			st_err_set(err, ST_ERR_LOCAL, EISDIR, path, NULL);
			ret = -EISDIR;
		} else {
			ret = !S_ISREG(st.st_mode);
		}
	} else if (errno != ENOENT) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, errno, "log", "%s", path);
	} else if (slash && stat(dir, &st)) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, errno, "log directory", "%s", dir);
	} else if (slash && !S_ISDIR(st.st_mode)) {
		st_err_set(err, ST_ERR_LOCAL, ENOTDIR, "log directory", "%s", dir);
		ret = -ENOTDIR;
	}
	free(dir);
	return ret;
}

int st_pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const char *c = p;

	while (n) {
		ssize_t k = pwrite(fd, c, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

int st_pread_all(int fd, void *p, size_t n, uint64_t off)
{
	char *c = p;

	while (n) {
		ssize_t k = pread(fd, c, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENODATA;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/*
 * Beside the log, where there is room for it; for a log that is no file
 * of a directory (/dev/stdout, a FIFO), in TMPDIR (/var/tmp by default).
 * Nameless (O_TMPFILE) where the file system allows it, else
 * "LOG.PID.SUFFIX", new, named in *named (the caller's to remove or keep).
 */
int st_log_tmpfile(const char *log_path, const char *suffix, char **named)
{
	char *dir, *slash, *base = NULL;
	const char *tmp = getenv("TMPDIR");
	struct st_err err;
	int in_place = st_log_path_in_place(log_path, &err), fd;

	*named = NULL;
	if (in_place < 0)
		return in_place;
	if (in_place) {
		if (asprintf(&base, "%s/systracectl-log", tmp && *tmp ? tmp : "/var/tmp") < 0)
			return -ENOMEM;
		log_path = base;
	}
	dir = strdup(log_path);
	if (!dir) {
		free(base);
		return -ENOMEM;
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	fd = open(slash ? dir : ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	free(dir);
	if (fd >= 0) {
		free(base);
		return fd;
	}
	if (asprintf(named, "%s.%d.%s", log_path, (int)getpid(), suffix) < 0) {
		free(base);
		*named = NULL;
		return -ENOMEM;
	}
	free(base);
	fd = open(*named, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		fd = -errno;
		free(*named);
		*named = NULL;
	}
	return fd;
}

/*
 * FILE.partial, new: a stale one of ours (a killed run's) goes first;
 * one that is not ours, or no regular file, stays and is an error.
 */
static int open_partial(const char *partial, struct st_err *err)
{
	struct stat st;
	int fd;

	if (!lstat(partial, &st)) {
		if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
			st_err_set(err, ST_ERR_LOCAL, EEXIST, "open log",
				   "%s exists and is not a file of yours: remove it", partial);
			return -EEXIST;
		}
		unlink(partial);
	}
	fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0) {
		st_err_set(err, ST_ERR_LOCAL, errno, "open log", "%s", partial);
		return -errno;
	}
	return fd;
}

int st_log_out_open(struct st_log_out **op, const char *path,
		    const struct st_log_kind *k, struct st_err *err)
{
	struct st_log_out *o = calloc(1, sizeof(*o));
	struct stat st;
	int fd, ret;

	*op = NULL;
	if (!o || !(o->path = strdup(path)) ||
	    asprintf(&o->partial, "%s.partial", path) < 0) {
		if (o)
			free(o->path);
		free(o);
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "log", "%s", path);
		return -ENOMEM;
	}
	ret = st_log_path_in_place(path, err);
	if (ret < 0)
		goto fail;
	o->in_place = ret;
	if (o->in_place) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0) {
			ret = -errno;
			st_err_set(err, ST_ERR_LOCAL, errno, "open log", "%s", path);
			goto fail;
		}
	} else {
		fd = open_partial(o->partial, err);
		if (fd < 0) {
			ret = fd;
			goto fail;
		}
	}
	/* A pipe as big as it may be: the writer and its reader switch less. */
	if (o->in_place && !fstat(fd, &st) && S_ISFIFO(st.st_mode))
		fcntl(fd, F_SETPIPE_SZ, OUT_BUF);
	o->raw = fdopen(fd, "w");
	o->buf = malloc(OUT_BUF);
	if (!o->raw || !o->buf) {
		if (!o->raw)
			close(fd);
		ret = -ENOMEM;
		goto nomem;
	}
	setvbuf(o->raw, o->buf, _IOFBF, OUT_BUF);
	o->f = o->raw;
	if (k->zstd) {
		o->f = st_zstd_writer(o->raw, 1);
		if (!o->f) {
			ret = -ENOMEM;
			goto nomem;
		}
	}
	*op = o;
	return 0;
nomem:
	st_err_set(err, ST_ERR_LOCAL, ENOMEM, "open log", "%s", o->partial);
fail:
	st_log_out_abort(o);
	return ret;
}

FILE *st_log_out_file(struct st_log_out *o)
{
	return o->f;
}

const char *st_log_out_partial(const struct st_log_out *o)
{
	return o->in_place ? o->path : o->partial;
}

static void out_free(struct st_log_out *o)
{
	free(o->buf);
	free(o->path);
	free(o->partial);
	free(o);
}

int st_log_out_commit(struct st_log_out *o, struct st_err *err)
{
	int ret = 0;

	if (o->f != o->raw && fclose(o->f))
		ret = -(errno ? errno : EIO);
	o->f = o->raw;
	if (fflush(o->raw) || ferror(o->raw))
		ret = ret ? ret : -(errno ? errno : EIO);
	if (fclose(o->raw) && !ret)
		ret = -(errno ? errno : EIO);
	o->raw = o->f = NULL;
	if (!ret && !o->in_place && rename(o->partial, o->path))
		ret = -errno;
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "writing the log", "%s",
			   st_log_out_partial(o));
		if (!o->in_place)
			unlink(o->partial);
	}
	out_free(o);
	return ret;
}

void st_log_out_abort(struct st_log_out *o)
{
	if (!o)
		return;
	if (o->f && o->f != o->raw)
		fclose(o->f);
	if (o->raw) {
		fclose(o->raw);
		if (!o->in_place)
			unlink(o->partial);
	}
	out_free(o);
}

/* ---- reading ahead on a second thread ---- */

#define RA_CHUNK (1 << 20)
#define RA_CHUNKS 4

struct ra_chunk {
	char *b;		/* ST_RA_ROOM, then the text, then ST_RA_PAD zeroes */
	size_t n;		/* bytes of text */
	int err;		/* errno of a failed read; n is 0 */
	bool full;		/* read into, not given back yet */
};

struct st_readahead {
	FILE *f;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ra_chunk c[RA_CHUNKS];
	/* the next to take, the next to give back, the next to fill */
	unsigned int head, given, tail;
	bool stop, done;
};

static void *ra_main(void *arg)
{
	struct st_readahead *r = arg;
	struct ra_chunk *c;
	size_t n;
	int e;

	for (;;) {
		pthread_mutex_lock(&r->lock);
		while (!r->stop && r->c[r->tail].full)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		c = &r->c[r->tail];
		pthread_mutex_unlock(&r->lock);
		errno = 0;
		n = fread(c->b + ST_RA_ROOM, 1, RA_CHUNK, r->f);
		e = !n && ferror(r->f) ? (errno ? errno : EIO) : 0;
		memset(c->b + ST_RA_ROOM + n, 0, ST_RA_PAD);
		pthread_mutex_lock(&r->lock);
		c->n = n;
		c->err = e;
		c->full = true;
		r->tail = (r->tail + 1) % RA_CHUNKS;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		if (!n)
			return NULL;	/* the end, or an error: said by the last chunk */
	}
}

int st_readahead_start(struct st_readahead **rp, FILE *f)
{
	struct st_readahead *r = calloc(1, sizeof(*r));
	unsigned int i;

	*rp = NULL;
	if (!r)
		return -ENOMEM;
	r->f = f;
	for (i = 0; i < RA_CHUNKS; i++)
		if (!(r->c[i].b = malloc(ST_RA_ROOM + RA_CHUNK + ST_RA_PAD)))
			goto fail;
	if (pthread_mutex_init(&r->lock, NULL))
		goto fail;
	if (pthread_cond_init(&r->cond, NULL)) {
		pthread_mutex_destroy(&r->lock);
		goto fail;
	}
	if (pthread_create(&r->thread, NULL, ra_main, r)) {
		pthread_cond_destroy(&r->cond);
		pthread_mutex_destroy(&r->lock);
		goto fail;
	}
	*rp = r;
	return 0;
fail:
	for (i = 0; i < RA_CHUNKS; i++)
		free(r->c[i].b);
	free(r);
	return -ENOMEM;
}

ssize_t st_readahead_take(struct st_readahead *r, char **p)
{
	struct ra_chunk *c = &r->c[r->head];

	if (r->done)
		return 0;
	pthread_mutex_lock(&r->lock);
	while (!c->full)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	if (!c->n) {
		/* The last chunk: never given back (the thread has ended). */
		r->done = true;
		if (c->err) {
			errno = c->err;
			return -1;
		}
		return 0;
	}
	r->head = (r->head + 1) % RA_CHUNKS;
	*p = c->b + ST_RA_ROOM;
	return (ssize_t)c->n;
}

void st_readahead_give(struct st_readahead *r)
{
	pthread_mutex_lock(&r->lock);
	r->c[r->given].full = false;
	r->given = (r->given + 1) % RA_CHUNKS;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

void st_readahead_stop(struct st_readahead *r)
{
	unsigned int i;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	for (i = 0; i < RA_CHUNKS; i++)
		free(r->c[i].b);
	free(r);
}
