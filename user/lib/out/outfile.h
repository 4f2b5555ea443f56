/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_OUTFILE_H
#define SYSTRACE_OUTFILE_H

#include <stdio.h>

struct st_err;

/*
 * An output file that is whole or absent: written under a temporary name
 * in the target's directory, renamed over the target by st_output_close()
 * when every byte is written and flushed. A failure, st_output_abort() or
 * a SIGINT, SIGTERM, SIGHUP or SIGPIPE meanwhile leaves the target as it
 * was. stdout, and a target that exists but is no regular file, are
 * written in place. One at a time.
 */
struct st_outfile {
	FILE *f;
	const char *path;		/* as given; NULL: stdout */
	char target[4096];		/* path, its links resolved */
	char tmp[4096];			/* "" when written in place */
};

int st_output_open(struct st_outfile *o, const char *path, struct st_err *err);
/* 0, or -errno with the temporary file removed. */
int st_output_close(struct st_outfile *o);
void st_output_abort(struct st_outfile *o);

/*
 * write(f, ctx) to path (NULL: stdout), through st_output_open(). Returns
 * 0 or -errno, with err set: the path when it does not open, else
 * "writing WHAT" and the path.
 */
int st_output_write(const char *path, const char *what,
		    int (*write)(FILE *f, const void *ctx), const void *ctx,
		    struct st_err *err);

#endif
