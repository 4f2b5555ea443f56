// SPDX-License-Identifier: GPL-2.0
/* The ELF interpreter of each image (see interp.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sym/interp.h"

bool st_site_in_object(const struct st_site_row *s, const char *path)
{
	size_t n;

	if (s->map != SYSTRACE_MAP_FILE || !s->path || !path)
		return false;
	n = strlen(path);
	return !strncmp(s->path, path, n) &&
	       (!s->path[n] || !strcmp(s->path + n, " (deleted)"));
}

bool st_interp_holds(const struct st_image_interp *ii,
		     const struct st_site_row *s)
{
	if (!ii->interp || s->map != SYSTRACE_MAP_FILE || !s->path)
		return false;
	if (st_site_in_object(s, ii->interp))
		return true;
	return ii->id && ii->id->has_id && s->has_file_id &&
	       s->inode == ii->id->ino && s->mtime_ns == ii->id->mtime_ns;
}

void st_dump_proc_sites(const struct st_dump *d, uint64_t id, size_t *lo,
			size_t *hi)
{
	size_t a = 0, b = d->nsites;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (d->sites[m].proc_id < id)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	for (b = a; b < d->nsites && d->sites[b].proc_id == id; b++)
		;
	*hi = b;
}

const struct st_site_row *st_dump_rows_of(void *ctx, const struct st_proc_row *p,
					   size_t *n)
{
	const struct st_dump *d = ctx;
	size_t lo, hi;

	st_dump_proc_sites(d, p->id, &lo, &hi);
	*n = hi - lo;
	return d->sites + lo;
}

/* A row of the image that lies in its executable, to check the file. */
static const struct st_site_row *exe_site(const struct st_site_row *rows,
					  size_t n, const char *exe)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].map == SYSTRACE_MAP_FILE && rows[i].path &&
		    !strcmp(rows[i].path, exe))
			return &rows[i];
	return NULL;
}

/*
 * An image begins with an exec (prev_id set, or the root of a session
 * that starts counting at the exec), or with a fork: then it runs code its
 * parent had loaded and has no loader phase.
 */
static bool began_by_exec(const struct st_dump *d, const struct st_proc_row *p)
{
	return p->prev_id ||
	       (!p->parent_id && (d->session.flags & SYSTRACE_SESSION_F_ON_EXEC));
}

/* Pass 1: read PT_INTERP from each image's executable. */
static int read_interps(const struct st_dump *d, st_rows_of_fn rows_of, void *ctx,
			struct st_symbolizer *sz, struct st_image_interp *out)
{
	const struct st_site_row *rows;
	size_t i, n;

	for (i = 0; i < d->nprocs; i++) {
		struct st_image_interp *ii = &out[i];
		const struct st_interp *in;
		int ret;

		memset(ii, 0, sizeof(*ii));
		ii->proc = &d->procs[i];
		ii->source = "unknown";
		if (!began_by_exec(d, ii->proc)) {
			ii->known = true;
			ii->source = "fork";
			continue;
		}
		if (!ii->proc->exe) {
			ii->error = "the kernel could not tell the executable";
			continue;
		}
		rows = rows_of(ctx, ii->proc, &n);
		if (!rows && n)
			return -ENOMEM;
		ret = st_symbolizer_interp(sz, ii->proc->exe,
					   exe_site(rows, n, ii->proc->exe),
					   &in, &ii->error);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			continue;
		ii->known = true;
		ii->interp = in->path;
		ii->id = in->path ? in : NULL;
		ii->source = in->path ? "exe" : "static";
	}
	return 0;
}

/*
 * Pass 2: an image whose executable cannot be read runs under an
 * interpreter that others named if exactly one such object holds some of
 * its sites.
 */
static int infer_interps(const struct st_dump *d, st_rows_of_fn rows_of, void *ctx,
			 struct st_image_interp *out)
{
	const struct st_site_row *rows;
	const char **known = NULL;
	size_t i, j, k, n, nknown = 0;

	for (i = 0; i < d->nprocs; i++) {
		const char *path = out[i].interp;

		if (!path)
			continue;
		for (k = 0; k < nknown && strcmp(known[k], path); k++)
			;
		if (k < nknown)
			continue;
		if (!(nknown & (nknown + 1))) {
			const char **n = realloc(known, (nknown * 2 + 2) * sizeof(*n));

			if (!n) {
				free(known);
				return -ENOMEM;
			}
			known = n;
		}
		known[nknown++] = path;
	}
	for (i = 0; i < d->nprocs; i++) {
		struct st_image_interp *ii = &out[i];
		const char *found = NULL;
		bool many = false;

		if (ii->known)
			continue;
		rows = rows_of(ctx, ii->proc, &n);
		if (!rows && n) {
			free(known);
			return -ENOMEM;
		}
		for (j = 0; j < n; j++) {
			for (k = 0; k < nknown; k++) {
				if (!st_site_in_object(&rows[j], known[k]))
					continue;
				many |= found && found != known[k];
				found = known[k];
			}
		}
		if (found && !many) {
			ii->known = true;
			ii->interp = found;
			ii->source = "inferred";
		}
	}
	free(known);
	return 0;
}

int st_interps_find_by(const struct st_dump *d, st_rows_of_fn rows_of, void *ctx,
		       struct st_symbolizer *sz, struct st_image_interp *out)
{
	int ret = read_interps(d, rows_of, ctx, sz, out);

	return ret ? ret : infer_interps(d, rows_of, ctx, out);
}

int st_interps_find(const struct st_dump *d, struct st_symbolizer *sz,
		    struct st_image_interp *out)
{
	return st_interps_find_by(d, st_dump_rows_of, (void *)d, sz, out);
}
