// SPDX-License-Identifier: GPL-2.0
/*
 * The log reader's own state (st_log_src, log.h's API), shared by its
 * three parts and by nothing else: log_read.c (the buffer, the source and
 * the events), log_read_csv.c (CSV records) and log_read_jsonl.c (JSONL
 * objects). A record's fields are split in place in the buffer, which
 * holds whole records followed by RBUF_PAD zeroes: the scans read 16 or 32
 * bytes at a time and stop at the first zero.
 */
#ifndef ST_LOG_READ_PRIV_H
#define ST_LOG_READ_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "base/err.h"
#include "base/hidx.h"
#include "log/log_file.h"
#include "log/log_merge.h"
#include "log/log_read.h"

#define RBUF_INIT (1 << 20)
#define RBUF_MAX (64 << 20)
/* Zeroes after the text: csv_split() reads 16 bytes at a time, jkey_at() 32. */
#define RBUF_PAD ST_RA_PAD

/* Each column's name, as the log writers write it. */
extern const char *const st_src_cols[C_NCOLS];

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

/* An error at @line of the log (its path and reason in @err): -EINVAL. */
__attribute__((format(printf, 4, 5)))
int st_src_bad(struct st_log_src *s, struct st_err *err, size_t line,
	       const char *fmt, ...);

/* Whether s is lit, a short constant: no libc call per field. */
static inline bool streq(const char *s, const char *lit)
{
	while (*lit && *s == *lit) {
		s++;
		lit++;
	}
	return *s == *lit;
}

/* Each byte's value as a hex digit plus one, 0 for none: one load per digit. */
static const uint8_t st_src_hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline int hexval(char c)
{
	return st_src_hex1[(unsigned char)c] - 1;
}

/* More text in the buffer (log_read.c): 0, or -errno with @err set. */
int st_src_refill(struct st_log_src *s, struct st_err *err);

/*
 * The next record's fields, in place: 1, 0 at the end, or -errno.
 * CSV (log_read_csv.c): the header's fields in order, *n of them;
 * JSONL (log_read_jsonl.c): f[column], NULL for a missing value.
 */
int st_src_csv_next(struct st_log_src *s, struct st_err *err, char **fields,
		    size_t max, size_t *n, size_t *line);
int st_src_jsonl_next(struct st_log_src *s, struct st_err *err, char **f,
		      size_t *line);

#endif
