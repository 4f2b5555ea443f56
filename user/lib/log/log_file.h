/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LOG_FILE_H
#define SYSTRACE_LOG_FILE_H

/* zstd streams as stdio streams (log_file.c), for the log's own files. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Compresses into raw, which stays open: fclose() ends the frame. */
FILE *st_zstd_writer(FILE *raw, int level);
/* Decompresses raw (one frame or more); fclose() closes raw too. */
FILE *st_zstd_reader(FILE *raw);
struct st_err;
/*
 * 1 when path is written in place (it is no regular file: /dev/null, a
 * FIFO, a link), 0 when as FILE.partial renamed, or -errno with err.
 */
int st_log_path_in_place(const char *path, struct st_err *err);
/*
 * A temporary file for the log at log_path: in its directory, or in
 * TMPDIR (/var/tmp) for a log that is no file of one (/dev/stdout).
 * Nameless (O_TMPFILE) where it can be; else LOG.PID.SUFFIX, new, its
 * name in *named (malloc'd: the caller removes the file). Returns the fd
 * (O_RDWR, O_CLOEXEC) or -errno.
 */
int st_log_tmpfile(const char *log_path, const char *suffix, char **named);
/*
 * All n bytes at off, through EINTR and short transfers: 0, or -errno
 * (-EIO: pwrite wrote nothing; -ENODATA: the file ends first).
 */
int st_pwrite_all(int fd, const void *p, size_t n, uint64_t off);
int st_pread_all(int fd, void *p, size_t n, uint64_t off);
/* Whether b starts with a zstd frame's magic number. */
bool st_zstd_magic(const unsigned char *b, size_t n);

/*
 * f read on a second thread, 1 MiB at a time, 4 MiB ahead at most: a log's
 * reader parses while the next text is read (and decompressed). f must not
 * block for ever (a regular file, not a pipe): stop() waits for the read
 * under way. Only the thread touches f until stop() returns.
 */
struct st_readahead;
/* Free bytes before each chunk's text; zero bytes after it. */
#define ST_RA_ROOM (64 << 10)
#define ST_RA_PAD 64
/* 0, or -ENOMEM (no memory, no thread): the caller then reads f itself. */
int st_readahead_start(struct st_readahead **rp, FILE *f);
/*
 * The next chunk, in place (no copy): *p its text, its bytes returned; 0
 * at the end, -1 with errno (f's error). The caller may write into it,
 * and into the ST_RA_ROOM bytes before it (a record carried over from the
 * chunk before); ST_RA_PAD zero bytes follow it. It is the caller's until
 * given back: give() gives back the oldest chunk taken, which the thread
 * then reads into again. At most RA_CHUNKS - 1 taken and not given back.
 */
ssize_t st_readahead_take(struct st_readahead *r, char **p);
void st_readahead_give(struct st_readahead *r);
void st_readahead_stop(struct st_readahead *r);

#endif
