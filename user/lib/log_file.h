/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LOG_FILE_H
#define SYSTRACE_LOG_FILE_H

/* zstd streams as stdio streams (log_file.c), for the log's own files. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
/* Whether b starts with a zstd frame's magic number. */
bool st_zstd_magic(const unsigned char *b, size_t n);

#endif
