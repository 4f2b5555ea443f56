/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_INTERP_H
#define SYSTRACE_INTERP_H

/*
 * The ELF interpreter (PT_INTERP, ld.so) each image of a dump ran under,
 * as far as it can be told, and whether a site lies in it: what the loader
 * phase of an image is measured against (report phases, the log's phase
 * column).
 *
 * An image begun by exec reads PT_INTERP from its executable (source
 * "exe", or "static" without one). An image begun by fork runs code its
 * parent loaded: no loader phase ("fork"). An image whose executable
 * cannot be read (deleted, changed) runs under an interpreter others named
 * if exactly one such object holds some of its sites ("inferred"): ld.so
 * is mapped by no one else. Otherwise "unknown", with an error.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"
#include "sym/symbolize.h"

struct st_image_interp {
	const struct st_proc_row *proc;
	const char *interp;		/* NULL: static, fork, or unknown */
	const struct st_interp *id;	/* identity; NULL unless source "exe" */
	const char *source;		/* exe, inferred, static, fork, unknown */
	const char *error;		/* why unknown; owned by the symbolizer */
	bool known;
};

/*
 * Fills out[i] for d->procs[i] (d sorted); strings are owned by sz.
 * Returns 0 or -ENOMEM.
 */
int st_interps_find(const struct st_dump *d, struct st_symbolizer *sz,
		    struct st_image_interp *out);

/*
 * The site rows of image p, in the order of their first calls (*n of
 * them; valid until the next call): d->sites' own (st_dump_rows_of, ctx
 * the dump), or rows made for the call from another store of them (the
 * log's, log.h). NULL with *n nonzero: out of memory.
 */
typedef const struct st_site_row *(*st_rows_of_fn)(void *ctx,
						   const struct st_proc_row *p,
						   size_t *n);
const struct st_site_row *st_dump_rows_of(void *ctx, const struct st_proc_row *p,
					  size_t *n);
/* st_interps_find, the rows of each image from rows_of(ctx, ...). */
int st_interps_find_by(const struct st_dump *d, st_rows_of_fn rows_of, void *ctx,
		       struct st_symbolizer *sz, struct st_image_interp *out);

/* Whether site s lies in the interpreter of ii (path, or file identity). */
bool st_interp_holds(const struct st_image_interp *ii,
		     const struct st_site_row *s);

/* Whether site s lies in the file path (with " (deleted)" or not). */
bool st_site_in_object(const struct st_site_row *s, const char *path);

/* The rows of image id: [*lo, *hi) of d->sites, d sorted. */
void st_dump_proc_sites(const struct st_dump *d, uint64_t id, size_t *lo,
			size_t *hi);

#endif
