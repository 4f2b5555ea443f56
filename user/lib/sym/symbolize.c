// SPDX-License-Identifier: GPL-2.0
/* Sites to functions with libelf; see symbolize.h for the rules. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sym/symbolize.h"

#define DELETED_SUFFIX " (deleted)"

struct seg {
	uint64_t offset, filesz, vaddr;
};

struct esym {
	uint64_t value, size;
	size_t name;		/* offset in obj->names */
	uint8_t bind;
};

/* The symbols of one kind (functions, or other sized symbols), by value. */
struct symset {
	struct esym *syms;
	size_t n;
	uint64_t max_size;
};

/* One ELF file, read once: what lookups need, with the file closed. */
struct elf_obj {
	struct seg *segs;
	size_t nsegs;
	struct symset funcs, others;
	char *names;		/* a copy of the symbol table's strings */
	size_t names_len;
	char *build_id;
	const char *table;	/* where the symbols came from; NULL: none */
	char *interp;		/* PT_INTERP, as written in the file */
};

/* A cache entry: an object as a site recorded it, and what became of it. */
struct entry {
	struct entry *next;
	uint64_t hash;
	char *path;		/* as recorded */
	bool has_id;
	uint64_t ino, mtime_ns;
	char *object;		/* path without " (deleted)" */
	char *error;		/* the file could not be used */
	struct elf_obj *elf;
	struct st_interp interp;	/* for exe entries */
};

struct table {
	struct entry **buckets;
	size_t nbuckets, n;
};

struct st_symbolizer {
	const char *debug_dir;
	struct table sites;	/* key: path + recorded identity */
	struct table exes;	/* key: path */
};

char *st_site_object_path(const char *path)
{
	size_t len = strlen(path), sl = strlen(DELETED_SUFFIX);

	if (len > sl && !strcmp(path + len - sl, DELETED_SUFFIX))
		return strndup(path, len - sl);
	return strdup(path);
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static void elf_obj_free(struct elf_obj *o)
{
	if (!o)
		return;
	free(o->segs);
	free(o->funcs.syms);
	free(o->others.syms);
	free(o->names);
	free(o->build_id);
	free(o->interp);
	free(o);
}

/* The NT_GNU_BUILD_ID note among the notes of d, in lowercase hex. */
static void note_build_id(Elf_Data *d, char **build_id)
{
	size_t off = 0, name_off, desc_off, i;
	GElf_Nhdr nh;

	if (!d || !d->d_buf)
		return;
	while (!*build_id &&
	       (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *desc = (const unsigned char *)d->d_buf + desc_off;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) ||
		    !nh.n_descsz)
			continue;
		*build_id = malloc(nh.n_descsz * 2 + 1);
		if (!*build_id)
			return;
		for (i = 0; i < nh.n_descsz; i++)
			sprintf(*build_id + 2 * i, "%02x", desc[i]);
	}
}

static void read_build_id(Elf *e, const GElf_Phdr *ph, struct elf_obj *o)
{
	note_build_id(elf_getdata_rawchunk(e, ph->p_offset, ph->p_filesz,
					   ELF_T_NHDR), &o->build_id);
}

/* A separate debug file keeps its notes as sections, not segments. */
static char *section_build_id(Elf *e)
{
	Elf_Scn *scn = NULL;
	char *id = NULL;
	GElf_Shdr sh;

	while (!id && (scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE)
			note_build_id(elf_getdata(scn, NULL), &id);
	return id;
}

static int read_segments(Elf *e, struct elf_obj *o)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	o->segs = calloc(n ? n : 1, sizeof(*o->segs));
	if (!o->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_LOAD) {
			o->segs[o->nsegs++] = (struct seg){
				.offset = ph.p_offset, .filesz = ph.p_filesz,
				.vaddr = ph.p_vaddr,
			};
		} else if (ph.p_type == PT_NOTE && !o->build_id) {
			read_build_id(e, &ph, o);
		} else if (ph.p_type == PT_INTERP && !o->interp) {
			Elf_Data *d = elf_getdata_rawchunk(e, ph.p_offset,
							   ph.p_filesz, ELF_T_BYTE);

			if (d && d->d_size)
				o->interp = strndup(d->d_buf, d->d_size);
		}
	}
	return 0;
}

static int esym_cmp(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

static int symset_add(struct symset *set, size_t *cap, const GElf_Sym *sym,
		      size_t name)
{
	if (set->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct esym *s = realloc(set->syms, ncap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		set->syms = s;
		*cap = ncap;
	}
	set->syms[set->n++] = (struct esym){
		.value = sym->st_value, .size = sym->st_size, .name = name,
		.bind = GELF_ST_BIND(sym->st_info),
	};
	if (sym->st_size > set->max_size)
		set->max_size = sym->st_size;
	return 0;
}

/* .symtab when the file has one, else .dynsym (unless symtab_only). */
static Elf_Scn *symbol_section(Elf *e, GElf_Shdr *shdr, bool symtab_only)
{
	Elf_Scn *scn = NULL, *dynsym = NULL;
	GElf_Shdr sh, dynsh;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			*shdr = sh;
			return scn;
		}
		if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsh = sh;
		}
	}
	if (!dynsym || symtab_only)
		return NULL;
	*shdr = dynsh;
	return dynsym;
}

/*
 * Functions (STT_FUNC, STT_GNU_IFUNC) go to funcs; any other sized, defined
 * symbol that names code or data goes to others, used only where no
 * function contains the address.
 */
static int read_symbols(Elf *e, struct elf_obj *o, bool symtab_only)
{
	size_t i, n, fcap = 0, ocap = 0;
	Elf_Data *data, *strs;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	GElf_Sym sym;
	int ret;

	scn = symbol_section(e, &shdr, symtab_only);
	if (!scn)
		return 0;
	data = elf_getdata(scn, NULL);
	strs = elf_getdata(elf_getscn(e, shdr.sh_link), NULL);
	if (!data || !data->d_buf || !strs || !strs->d_buf || !strs->d_size)
		return -ENOEXEC;
	o->names = malloc(strs->d_size + 1);
	if (!o->names)
		return -ENOMEM;
	memcpy(o->names, strs->d_buf, strs->d_size);
	o->names[strs->d_size] = '\0';
	o->names_len = strs->d_size;
	o->table = shdr.sh_type == SHT_SYMTAB ? ".symtab" : ".dynsym";

	n = shdr.sh_size / shdr.sh_entsize;
	for (i = 1; i < n; i++) {
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			return -ENOEXEC;
		type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    !sym.st_name || sym.st_name >= o->names_len)
			continue;
		if (type == STT_FUNC || type == STT_GNU_IFUNC)
			ret = symset_add(&o->funcs, &fcap, &sym, sym.st_name);
		else if (sym.st_size && (type == STT_NOTYPE || type == STT_OBJECT))
			ret = symset_add(&o->others, &ocap, &sym, sym.st_name);
		else
			ret = 0;
		if (ret)
			return ret;
	}
	if (o->funcs.n)
		qsort(o->funcs.syms, o->funcs.n, sizeof(struct esym), esym_cmp);
	if (o->others.n)
		qsort(o->others.syms, o->others.n, sizeof(struct esym), esym_cmp);
	return 0;
}

/*
 * Without a .symtab, the separate debug file that has the object's
 * build-id (Debian's *-dbg and *-dbgsym packages) may have one: same
 * addresses, every function. Its build-id is checked, not assumed.
 */
static int read_debuginfo(struct elf_obj *o, const char *dir)
{
	struct elf_obj dbg = { 0 };
	char path[PATH_MAX], *id;
	int fd, ret = 0;
	Elf *e;

	if (!dir || !o->build_id || strlen(o->build_id) < 3 ||
	    (o->table && !strcmp(o->table, ".symtab")))
		return 0;
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir,
		 o->build_id, o->build_id + 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	id = e && elf_kind(e) == ELF_K_ELF ? section_build_id(e) : NULL;
	if (id && !strcmp(id, o->build_id)) {
		ret = read_symbols(e, &dbg, true);
		if (!ret && dbg.table) {
			free(o->funcs.syms);
			free(o->others.syms);
			free(o->names);
			o->funcs = dbg.funcs;
			o->others = dbg.others;
			o->names = dbg.names;
			o->names_len = dbg.names_len;
			o->table = "debuginfo .symtab";
			memset(&dbg, 0, sizeof(dbg));
		}
	}
	free(dbg.funcs.syms);
	free(dbg.others.syms);
	free(dbg.names);
	free(id);
	if (e)
		elf_end(e);
	close(fd);
	/* A broken debug file only means fewer names. */
	return ret == -ENOMEM ? ret : 0;
}

/* Reads the file open at fd; on failure *error says why. */
static int elf_obj_read(int fd, const char *debug_dir, struct elf_obj **out,
			char **error)
{
	struct elf_obj *o;
	Elf *e;
	int ret;

	*out = NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		*error = xasprintf("not an ELF file");
		ret = -ENOEXEC;
		goto out;
	}
	ret = read_segments(e, o);
	if (!ret)
		ret = read_symbols(e, o, false);
	if (!ret)
		ret = read_debuginfo(o, debug_dir);
	if (ret == -ENOEXEC)
		*error = xasprintf("bad ELF file: %s", elf_errmsg(-1));
out:
	if (e)
		elf_end(e);
	if (ret) {
		elf_obj_free(o);
		return ret;
	}
	*out = o;
	return 0;
}

static bool file_to_vaddr(const struct elf_obj *o, uint64_t offset,
			  uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < o->nsegs; i++) {
		const struct seg *s = &o->segs[i];

		if (offset >= s->offset && offset - s->offset < s->filesz) {
			*vaddr = offset - s->offset + s->vaddr;
			return true;
		}
	}
	return false;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Of two symbols that contain the address: the smaller (nested) one; among
 * aliases, a global one, then the name a programmer calls (read rather
 * than __read or __libc_read), then the shorter, then by name.
 */
static bool better(const struct elf_obj *o, const struct esym *a,
		   const struct esym *b)
{
	const char *na = o->names + a->name, *nb = o->names + b->name;
	bool la = a->bind == STB_LOCAL, lb = b->bind == STB_LOCAL;
	size_t ua = underscores(na), ub = underscores(nb);

	if (a->size != b->size)
		return a->size < b->size;
	if (la != lb)
		return lb;
	if (ua != ub)
		return ua < ub;
	if (strlen(na) != strlen(nb))
		return strlen(na) < strlen(nb);
	return strcmp(na, nb) < 0;
}

/* Index of the first symbol of set above vaddr. */
static size_t first_above(const struct symset *set, uint64_t vaddr)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct esym *symset_find(const struct elf_obj *o,
				      const struct symset *set, uint64_t vaddr)
{
	const struct esym *best = NULL;
	size_t lo = first_above(set, vaddr);

	/* The candidates lie below the first symbol above vaddr. */
	while (lo-- > 0) {
		const struct esym *s = &set->syms[lo];

		if (vaddr - s->value >= set->max_size)
			break;
		if (vaddr - s->value < s->size && (!best || better(o, s, best)))
			best = s;
	}
	return best;
}

/*
 * A function without a size (hand-written assembly: glibc's __restore_rt,
 * which every signal handler returns through) names the addresses from
 * its start to the next symbol, when no sized symbol holds them and some
 * symbol does start above: the nearest symbol rule of addr2line and perf,
 * kept for the one case where no better answer exists.
 */
static const struct esym *sizeless_find(const struct elf_obj *o,
					uint64_t vaddr)
{
	size_t f = first_above(&o->funcs, vaddr), k = first_above(&o->others, vaddr);
	const struct esym *best = NULL, *s;

	if (f == o->funcs.n && k == o->others.n)
		return NULL;
	if (!f || o->funcs.syms[f - 1].size)
		return NULL;
	if (k && o->others.syms[k - 1].value > o->funcs.syms[f - 1].value)
		return NULL;
	for (s = &o->funcs.syms[f - 1];
	     s >= o->funcs.syms && s->value == o->funcs.syms[f - 1].value; s--)
		if (!s->size && (!best || better(o, s, best)))
			best = s;
	return best;
}

static int fill_symbol(const struct elf_obj *o, uint64_t offset,
		       struct st_sym *sym)
{
	const struct esym *s;
	uint64_t vaddr;

	if (!file_to_vaddr(o, offset, &vaddr)) {
		sym->error = xasprintf("offset 0x%" PRIx64 " lies in no PT_LOAD segment",
				       offset);
		return sym->error ? 0 : -ENOMEM;
	}
	if (!o->table) {
		sym->error = xasprintf("no symbol table (.symtab or .dynsym)");
		return sym->error ? 0 : -ENOMEM;
	}
	s = symset_find(o, &o->funcs, vaddr);
	if (!s)
		s = symset_find(o, &o->others, vaddr);
	if (!s)
		s = sizeless_find(o, vaddr);
	if (!s) {
		sym->error = xasprintf("no %s symbol contains the address", o->table);
		return sym->error ? 0 : -ENOMEM;
	}
	/* A .symtab names versioned symbols "fclose@@GLIBC_2.2.5". */
	sym->symbol = strndup(o->names + s->name, strcspn(o->names + s->name, "@"));
	sym->has_symbol_offset = true;
	sym->symbol_offset = vaddr - s->value;
	return sym->symbol ? 0 : -ENOMEM;
}

/* Cache tables. */

static uint64_t hash_str(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static uint64_t hash_u64(uint64_t v, uint64_t h)
{
	int i;

	for (i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
	return h;
}

static int table_grow(struct table *t)
{
	size_t n = t->nbuckets ? t->nbuckets * 2 : 64, i;
	struct entry **b = calloc(n, sizeof(*b)), *e, *next;

	if (!b)
		return -ENOMEM;
	for (i = 0; i < t->nbuckets; i++) {
		for (e = t->buckets[i]; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
	return 0;
}

static int table_add(struct table *t, struct entry *e)
{
	if (t->n >= t->nbuckets && table_grow(t))
		return -ENOMEM;
	e->next = t->buckets[e->hash & (t->nbuckets - 1)];
	t->buckets[e->hash & (t->nbuckets - 1)] = e;
	t->n++;
	return 0;
}

static void entry_free(struct entry *e)
{
	free(e->path);
	free(e->object);
	free(e->error);
	free(e->interp.path);
	elf_obj_free(e->elf);
	free(e);
}

static void table_free(struct table *t)
{
	struct entry *e, *next;
	size_t i;

	for (i = 0; i < t->nbuckets; i++) {
		for (e = t->buckets[i]; e; e = next) {
			next = e->next;
			entry_free(e);
		}
	}
	free(t->buckets);
}

struct st_symbolizer *st_symbolizer_new(void)
{
	struct st_symbolizer *sz;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	sz = calloc(1, sizeof(*sz));
	if (sz)
		sz->debug_dir = ST_DEBUG_DIR;
	return sz;
}

void st_symbolizer_debug_dir(struct st_symbolizer *sz, const char *dir)
{
	sz->debug_dir = dir;
}

void st_symbolizer_free(struct st_symbolizer *sz)
{
	if (!sz)
		return;
	table_free(&sz->sites);
	table_free(&sz->exes);
	free(sz);
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ULL +
	       (uint64_t)st->st_mtim.tv_nsec;
}

/* NULL when st is the file the site recorded, else why not. */
static char *identity_mismatch(const struct entry *e, const struct stat *st)
{
	if ((uint64_t)st->st_ino != e->ino)
		return xasprintf("file changed since the trace (inode %" PRIu64
				 ", now %" PRIu64 ")", e->ino, (uint64_t)st->st_ino);
	if (mtime_ns(st) != e->mtime_ns)
		return xasprintf("file changed since the trace (mtime_ns %" PRIu64
				 ", now %" PRIu64 ")", e->mtime_ns, mtime_ns(st));
	return NULL;
}

/*
 * Opens the file the entry names, if it is still the one traced. A path
 * with " (deleted)" was unlinked when the kernel saw it: the same name may
 * since hold another file, which the identity check tells apart.
 */
static int open_verified(struct entry *e)
{
	const char *tries[2] = { e->path, e->object };
	struct stat st;
	char *why = NULL;
	int fd = -1, i, err = 0;

	for (i = 0; i < 2 && fd < 0; i++) {
		if (i && !strcmp(tries[0], tries[1]))
			break;
		fd = open(tries[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (!err || errno != ENOENT)
				err = errno;
			continue;
		}
		if (fstat(fd, &st)) {
			err = errno;
		} else {
			free(why);
			why = identity_mismatch(e, &st);
			if (!why)
				return fd;
		}
		close(fd);
		fd = -1;
	}
	if (why)
		e->error = why;
	else if (err == ENOENT && strcmp(e->path, e->object))
		e->error = xasprintf("file was deleted during the trace");
	else if (err == ENOENT)
		e->error = xasprintf("file no longer exists");
	else
		e->error = xasprintf("cannot open the file: %s", strerror(err));
	return e->error ? -1 : -ENOMEM;
}

static int entry_load(struct entry *e, const char *debug_dir)
{
	int fd, ret;

	if (!e->has_id) {
		e->error = xasprintf("no file identity was recorded: cannot tell whether the file changed");
		return e->error ? 0 : -ENOMEM;
	}
	fd = open_verified(e);
	if (fd == -ENOMEM)
		return -ENOMEM;
	if (fd < 0)
		return 0;
	ret = elf_obj_read(fd, debug_dir, &e->elf, &e->error);
	close(fd);
	if (ret == -ENOMEM)
		return ret;
	return e->elf || e->error ? 0 : -ENOMEM;
}

static uint64_t site_key(const struct st_site_row *site)
{
	uint64_t h = hash_str(site->path, 0xcbf29ce484222325ULL);

	if (!site->has_file_id)
		return h;
	return hash_u64(site->mtime_ns, hash_u64(site->inode, h));
}

static bool site_matches(const struct entry *e, const struct st_site_row *site)
{
	if (strcmp(e->path, site->path) || e->has_id != site->has_file_id)
		return false;
	return !e->has_id ||
	       (e->ino == site->inode && e->mtime_ns == site->mtime_ns);
}

static int site_entry(struct st_symbolizer *sz, const struct st_site_row *site,
		      struct entry **out)
{
	uint64_t h = site_key(site);
	struct entry *e;
	int ret;

	if (sz->sites.nbuckets) {
		for (e = sz->sites.buckets[h & (sz->sites.nbuckets - 1)]; e;
		     e = e->next) {
			if (e->hash == h && site_matches(e, site)) {
				*out = e;
				return 0;
			}
		}
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->hash = h;
	e->path = strdup(site->path);
	e->object = st_site_object_path(site->path);
	e->has_id = site->has_file_id;
	e->ino = site->inode;
	e->mtime_ns = site->mtime_ns;
	if (!e->path || !e->object) {
		entry_free(e);
		return -ENOMEM;
	}
	ret = entry_load(e, sz->debug_dir);
	if (!ret)
		ret = table_add(&sz->sites, e);
	if (ret) {
		entry_free(e);
		return ret;
	}
	*out = e;
	return 0;
}

static char *dup_or_null(const char *s, bool *nomem)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*nomem = true;
	return d;
}

int st_symbolize_site(struct st_symbolizer *sz, const struct st_site_row *site,
		      struct st_sym **out)
{
	struct st_sym *sym;
	struct entry *e;
	bool nomem = false;
	int ret;

	*out = NULL;
	if (site->map != SYSTRACE_MAP_FILE || !site->path)
		return 0;
	ret = site_entry(sz, site, &e);
	if (ret)
		return ret;
	sym = calloc(1, sizeof(*sym));
	if (!sym)
		return -ENOMEM;
	sym->object = dup_or_null(e->object, &nomem);
	if (e->elf) {
		sym->build_id = dup_or_null(e->elf->build_id, &nomem);
		ret = fill_symbol(e->elf, site->offset, sym);
	} else {
		sym->error = dup_or_null(e->error, &nomem);
	}
	if (ret || nomem) {
		st_sym_free(sym);
		return -ENOMEM;
	}
	*out = sym;
	return 0;
}

/*
 * What st_symbolize_dump already resolved: one symbolization per (path,
 * file id, offset). A glibc-sized build has ~750k file sites but a few
 * thousand distinct ones, each resolved once. The key holds the path's
 * pointer: a dump's paths are pooled, so equal paths share one (a path
 * from elsewhere only costs a miss).
 */
struct memo_slot {
	const char *path;		/* NULL: an empty slot */
	bool has_id;
	uint64_t inode, mtime_ns, offset;
	const struct st_sym *sym;
};

struct memo {
	struct memo_slot *slots;
	size_t cap, n;			/* cap: a power of 2 */
};

static uint64_t memo_hash(const struct st_site_row *s)
{
	uint64_t h = hash_u64((uint64_t)(uintptr_t)s->path, 0xcbf29ce484222325ULL);

	h = hash_u64(s->offset, h);
	if (s->has_file_id)
		h = hash_u64(s->mtime_ns, hash_u64(s->inode, h));
	return h;
}

static bool memo_eq(const struct memo_slot *m, const struct st_site_row *s)
{
	return m->path == s->path && m->offset == s->offset &&
	       m->has_id == s->has_file_id &&
	       (!m->has_id || (m->inode == s->inode && m->mtime_ns == s->mtime_ns));
}

/* The slot of s: its entry, or the empty slot where it goes. */
static struct memo_slot *memo_find(struct memo *m, const struct st_site_row *s)
{
	size_t i;

	for (i = memo_hash(s) & (m->cap - 1); m->slots[i].path;
	     i = (i + 1) & (m->cap - 1))
		if (memo_eq(&m->slots[i], s))
			break;
	return &m->slots[i];
}

/* Room for one more entry: doubles the table when it is half full. */
static int memo_room(struct memo *m)
{
	struct memo old = *m;
	size_t i;

	if (m->n * 2 < m->cap)
		return 0;
	m->cap = old.cap ? old.cap * 2 : 1024;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return -ENOMEM;
	}
	for (i = 0; i < old.cap; i++) {
		const struct memo_slot *o = &old.slots[i];
		struct st_site_row key = {
			.path = o->path, .has_file_id = o->has_id, .inode = o->inode,
			.mtime_ns = o->mtime_ns, .offset = o->offset,
		};

		if (o->path)
			*memo_find(m, &key) = *o;
	}
	free(old.slots);
	return 0;
}

/* Site s's symbolization, from the memo or resolved and remembered. */
static int symbolize_memo(struct st_symbolizer *sz, struct memo *m,
			  struct st_dump *d, struct st_site_row *s)
{
	struct memo_slot *slot;
	struct st_sym *sym;
	int ret;

	s->sym = NULL;
	if (s->map != SYSTRACE_MAP_FILE || !s->path)
		return 0;
	if (memo_room(m))
		return -ENOMEM;
	slot = memo_find(m, s);
	if (slot->path) {
		s->sym = slot->sym;
		return 0;
	}
	ret = st_symbolize_site(sz, s, &sym);
	if (!ret && sym)
		ret = st_dump_sym(d, sym, &s->sym);
	st_sym_free(sym);
	if (ret)
		return ret;
	*slot = (struct memo_slot){
		.path = s->path, .has_id = s->has_file_id, .inode = s->inode,
		.mtime_ns = s->mtime_ns, .offset = s->offset, .sym = s->sym,
	};
	m->n++;
	return 0;
}

/* A symbolizer and its memo: one site row at a time (a dump's sink). */
struct st_sym_rows {
	struct st_symbolizer *sz;
	struct memo m;
};

struct st_sym_rows *st_sym_rows_new(void)
{
	struct st_sym_rows *r = calloc(1, sizeof(*r));

	if (r && !(r->sz = st_symbolizer_new())) {
		free(r);
		r = NULL;
	}
	return r;
}

int st_sym_rows_site(struct st_sym_rows *r, struct st_dump *d,
		     struct st_site_row *s)
{
	int ret = symbolize_memo(r->sz, &r->m, d, s);

	if (!ret)
		d->symbolized = true;
	return ret;
}

void st_sym_rows_free(struct st_sym_rows *r)
{
	if (!r)
		return;
	free(r->m.slots);
	st_symbolizer_free(r->sz);
	free(r);
}

int st_symbolize_dump(struct st_dump *d)
{
	struct st_sym_rows *r = st_sym_rows_new();
	size_t i;
	int ret = 0;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < d->nsites && !ret; i++)
		ret = symbolize_memo(r->sz, &r->m, d, &d->sites[i]);
	st_sym_rows_free(r);
	if (!ret)
		d->symbolized = true;
	return ret;
}

/* Executables: their PT_INTERP. */

static int interp_resolve(struct entry *e)
{
	struct stat st;

	if (!e->elf->interp)
		return 0;
	e->interp.path = realpath(e->elf->interp, NULL);
	if (!e->interp.path) {
		if (errno == ENOMEM)
			return -ENOMEM;
		/* Gone from this machine: the name is all there is. */
		e->interp.path = strdup(e->elf->interp);
		return e->interp.path ? 0 : -ENOMEM;
	}
	if (!stat(e->interp.path, &st)) {
		e->interp.has_id = true;
		e->interp.ino = st.st_ino;
		e->interp.mtime_ns = mtime_ns(&st);
	}
	return 0;
}

/*
 * An executable the kernel saw unlinked (" (deleted)") is not opened by
 * its old name: another file may have taken it.
 */
static int exe_load(struct entry *e)
{
	struct stat st;
	int fd, ret;

	if (strcmp(e->path, e->object)) {
		e->error = xasprintf("file was deleted during the trace");
		return e->error ? 0 : -ENOMEM;
	}
	fd = open(e->object, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e->error = xasprintf("cannot open the file: %s", strerror(errno));
		return e->error ? 0 : -ENOMEM;
	}
	if (!fstat(fd, &st)) {
		e->has_id = true;
		e->ino = st.st_ino;
		e->mtime_ns = mtime_ns(&st);
	}
	ret = elf_obj_read(fd, NULL, &e->elf, &e->error);
	close(fd);
	if (ret == -ENOMEM)
		return ret;
	if (!e->elf)
		return e->error ? 0 : -ENOMEM;
	return interp_resolve(e);
}

int st_symbolizer_interp(struct st_symbolizer *sz, const char *exe,
			 const struct st_site_row *same_file,
			 const struct st_interp **interp, const char **error)
{
	uint64_t h = hash_str(exe, 0xcbf29ce484222325ULL);
	struct entry *e;
	int ret;

	*interp = NULL;
	*error = NULL;
	if (sz->exes.nbuckets) {
		for (e = sz->exes.buckets[h & (sz->exes.nbuckets - 1)]; e;
		     e = e->next)
			if (e->hash == h && !strcmp(e->path, exe))
				goto found;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->hash = h;
	e->path = strdup(exe);
	e->object = st_site_object_path(exe);
	ret = e->path && e->object ? exe_load(e) : -ENOMEM;
	if (!ret)
		ret = table_add(&sz->exes, e);
	if (ret) {
		entry_free(e);
		return ret;
	}
found:
	if (e->error) {
		*error = e->error;
		return -ENOENT;
	}
	if (same_file && same_file->has_file_id && e->has_id &&
	    (same_file->inode != e->ino || same_file->mtime_ns != e->mtime_ns)) {
		*error = "file changed since the trace";
		return -ENOENT;
	}
	*interp = &e->interp;
	return 0;
}
