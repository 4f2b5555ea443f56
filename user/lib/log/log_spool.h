/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LOG_SPOOL_H
#define SYSTRACE_LOG_SPOOL_H

/*
 * The spool of a recording (log_spool.c): syscall events as the tracer
 * hands them over, in runs, each sorted in log order and written in
 * compressed chunks while the next fills. Memory: two run buffers; a
 * merge reads each run through one chunk.
 *
 * The file: a header (SPOOL_MAGIC, version, record size, session id),
 * then chunks: magic "STCK", run number, records, compressed bytes (u32
 * each, host order), and one zstd frame of that many 64-byte records.
 * A run is its chunks, contiguous. A spool kept after a failure reads
 * back (st_log_src_open) on a machine of the same byte order.
 */
#include <stdbool.h>
#include <stdint.h>
#include "log/log.h"

struct st_spool;

/*
 * One syscall of the spool (version 2). Version 1 had nr a u32, abi a
 * u16, then kind and a byte 0, in the same 64 bytes and no path_id: its
 * records read back converted (st_spool_cursor_next).
 */
struct st_spool_rec {
	uint64_t ts_ns, dur_ns, proc_id, seq, addr;
	int64_t ret;
	uint32_t pid, tid;
	uint16_t nr;
	uint8_t abi, kind;
	uint32_t path_id;	/* st_event.path_id; 0: none (and in a version 1 spool) */
};

_Static_assert(sizeof(struct st_spool_rec) == 64, "a spool record is 64 bytes");

struct st_spool_run {
	uint64_t start, end;		/* bytes of the file */
	uint64_t nrec;
	uint32_t version;		/* of its file's records */
};

int st_spool_open(struct st_spool **sp, const char *log_path,
		  uint32_t session_id, struct st_err *err);
/* The session, once it exists (0 at open). Returns 0 or -errno. */
int st_spool_set_session(struct st_spool *s, uint32_t session_id);
int st_spool_add(struct st_spool *s, const struct st_event *ev);
/* Writes what is buffered as the last run. Returns the spool's error. */
int st_spool_flush(struct st_spool *s);
/*
 * The last run written, then the buffers and the writer's thread let go
 * (64 MB): nothing is added after. Returns what st_spool_flush does.
 */
int st_spool_finish(struct st_spool *s);
int st_spool_error(const struct st_spool *s, uint64_t *lost);
uint64_t st_spool_count(const struct st_spool *s);
int st_spool_keep(struct st_spool *s, const char *path);
void st_spool_close(struct st_spool *s);

/* The runs written (after st_spool_flush), and the file to read them. */
const struct st_spool_run *st_spool_runs(const struct st_spool *s,
					 size_t *n);
int st_spool_fd(const struct st_spool *s);

/*
 * A spool file kept after a failure: its session and runs. A chunk cut
 * short at the end is left out (*cut: its records). Returns 0, or
 * -EINVAL with why set when fd is no spool.
 */
bool st_spool_is_spool(const unsigned char *b, size_t n);
int st_spool_scan(int fd, uint32_t *session_id, struct st_spool_run **runs,
		  size_t *nruns, uint64_t *cut, const char **why);

/*
 * What the cursors of one merge share: the compressed chunk's buffer and
 * the decompressor, used by one cursor at a time (a chunk is read and
 * decompressed whole in st_spool_cursor_next). Each cursor then holds
 * one chunk's records, 128 KiB: a log of 50 million events has about 100
 * runs. st_spool_reader_new returns 0 or -ENOMEM.
 */
struct st_spool_reader;
int st_spool_reader_new(struct st_spool_reader **rp);
void st_spool_reader_free(struct st_spool_reader *r);

/* Reads one run, a chunk at a time, through r (which must outlive it). */
struct st_spool_cursor;

int st_spool_cursor_new(struct st_spool_cursor **cp, struct st_spool_reader *r,
			int fd, const struct st_spool_run *run);
/* 1 with *ev (no site, no proc), 0 at the end, -errno. */
int st_spool_cursor_next(struct st_spool_cursor *c, struct st_event *ev);
void st_spool_cursor_free(struct st_spool_cursor *c);

#endif
