/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_SYMBOLIZE_H
#define SYSTRACE_SYMBOLIZE_H

/*
 * Sites to functions, with libelf. A site of a file mapping is (path, file
 * offset); the offset goes through the object's PT_LOAD program headers to
 * a virtual address, and the symbol that contains that address (.symtab if
 * the file has one, else .dynsym) names the function. Objects are read once
 * and cached per (path, recorded identity).
 *
 * An object without .symtab gets the .symtab of its separate debug file,
 * found by build-id under /usr/lib/debug/.build-id/ (Debian's -dbg and
 * -dbgsym packages), when it is installed and its build-id matches.
 *
 * The file must still be the one that was traced: its inode and mtime_ns
 * must equal what the kernel recorded at the site's first call. Otherwise
 * the site gets no symbol and a reason, never a name from another file.
 * The device is not compared: under overlayfs (containers, our VM) stat
 * gives the overlay's device while the kernel records the underlying
 * file's, with the same inode number.
 */
#include <stdbool.h>
#include <stdint.h>
#include "model/model.h"

struct st_symbolizer;

#define ST_DEBUG_DIR "/usr/lib/debug"

struct st_symbolizer *st_symbolizer_new(void);
/*
 * Where separate debug files are looked up by build-id, for objects
 * without .symtab (default ST_DEBUG_DIR; NULL: not at all).
 */
void st_symbolizer_debug_dir(struct st_symbolizer *sz, const char *dir);
void st_symbolizer_free(struct st_symbolizer *sz);

/*
 * What a site lies in. *out is NULL for sites that are not file mappings
 * ([vdso], anon, unknown: nothing sound to resolve them with). For a file
 * mapping, object is always set; symbol is set, or error says why not.
 * Returns 0 or -ENOMEM.
 */
int st_symbolize_site(struct st_symbolizer *sz, const struct st_site_row *site,
		      struct st_sym **out);

/* Every site of d; sets d->symbolized. Returns 0 or -ENOMEM. */
int st_symbolize_dump(struct st_dump *d);

/*
 * The same a site row at a time, for rows a dump hands to a sink (model.h):
 * sets s->sym (pooled in d) and d->symbolized. Each (path, file id,
 * offset) is resolved once. st_sym_rows_new returns NULL without memory;
 * st_sym_rows_site returns 0 or -ENOMEM.
 */
struct st_sym_rows;
struct st_sym_rows *st_sym_rows_new(void);
int st_sym_rows_site(struct st_sym_rows *r, struct st_dump *d,
		     struct st_site_row *s);
void st_sym_rows_free(struct st_sym_rows *r);

/*
 * The ELF interpreter (PT_INTERP) an executable names, resolved: its
 * canonical path and identity; path is NULL for an executable without
 * PT_INTERP (static). The kernel records no identity for an executable:
 * same_file, a site that lies in it (or NULL), is the only check that it
 * did not change. An executable deleted during the trace is not read.
 * Returns 0, -ENOMEM, or -ENOENT when the file cannot be used, with
 * *error (owned by sz) saying why.
 */
struct st_interp {
	char *path;		/* realpath of PT_INTERP; NULL if it has none */
	bool has_id;		/* ino, mtime_ns of that file (stat) */
	uint64_t ino, mtime_ns;
};

int st_symbolizer_interp(struct st_symbolizer *sz, const char *exe,
			 const struct st_site_row *same_file,
			 const struct st_interp **interp, const char **error);

/* The path a site's file had, without the " (deleted)" the kernel adds. */
char *st_site_object_path(const char *path);

#endif
