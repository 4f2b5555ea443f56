// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer against binutils: for every function that readelf (or
 * nm -D) lists in an object, an address at its start, middle and end is
 * turned into a file offset with readelf's program headers, and the
 * symbolizer must name a symbol that readelf says contains the address,
 * at the right offset. The objects: the libc this test runs with (only
 * .dynsym), and programs built here with gcc: a PIE linked by lld (whose
 * segments have file offsets unequal to their addresses), a non-PIE at
 * 0x400000, and a stripped PIE that exports its functions (-rdynamic).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include "sym/symbolize.h"
#include "test.h"

struct osym {
	uint64_t value, size;
	char name[128];
};

struct oseg {
	uint64_t offset, vaddr, filesz;
};

struct oracle {
	struct osym *syms;
	size_t nsyms;
	struct oseg segs[16];
	size_t nsegs;
	char build_id[128];
	char interp[256];
};

static FILE *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static FILE *run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return popen(cmd, "r");
}

static void add_sym(struct oracle *o, uint64_t value, uint64_t size,
		    const char *name)
{
	struct osym *s;

	if (!(o->nsyms & (o->nsyms + 1)) || !o->syms)
		o->syms = realloc(o->syms, (o->nsyms * 2 + 2) * sizeof(*o->syms));
	s = &o->syms[o->nsyms++];
	s->value = value;
	s->size = size;
	snprintf(s->name, sizeof(s->name), "%.*s", (int)strcspn(name, "@"), name);
}

/*
 * readelf -sW: the FUNC symbols of table (".symtab" or ".dynsym"), or
 * nm -D -S: the dynamic table's text symbols. Program headers and notes
 * from readelf -lW and -n.
 */
static int oracle_read2(struct oracle *o, const char *path,
			const char *seg_path, const char *table, bool use_nm)
{
	char line[1024], name[512], type[32], bind[32], vis[32], ndx[32], kind;
	bool in_table = false;
	uint64_t value, size, off, vaddr, paddr, filesz;
	FILE *f;

	memset(o, 0, sizeof(*o));
	if (use_nm)
		f = run("nm -D -S --defined-only '%s'", path);
	else
		f = run("readelf -sW '%s' 2>/dev/null", path);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (use_nm) {
			if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %511s",
				   &value, &size, &kind, name) == 4 &&
			    (kind == 'T' || kind == 't' || kind == 'W' ||
			     kind == 'i'))
				add_sym(o, value, size, name);
			continue;
		}
		if (!strncmp(line, "Symbol table '", 14)) {
			in_table = !strncmp(line + 14, table, strlen(table));
			continue;
		}
		if (in_table &&
		    sscanf(line, "%*u: %" SCNx64 " %" SCNu64 " %31s %31s %31s %31s %511s",
			   &value, &size, type, bind, vis, ndx, name) == 7 &&
		    (!strcmp(type, "FUNC") || !strcmp(type, "IFUNC")) &&
		    strcmp(ndx, "UND") && strcmp(ndx, "ABS"))
			add_sym(o, value, size, name);
	}
	pclose(f);

	f = run("readelf -lW '%s'; readelf -nW '%s'", seg_path, seg_path);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " LOAD 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64,
			   &off, &vaddr, &paddr, &filesz) == 4 && o->nsegs < 16)
			o->segs[o->nsegs++] = (struct oseg){ off, vaddr, filesz };
		if (strstr(line, "Build ID: "))
			sscanf(strstr(line, "Build ID: "), "Build ID: %127s", o->build_id);
		sscanf(line, " [Requesting program interpreter: %255[^]]]", o->interp);
	}
	pclose(f);
	return o->nsyms && o->nsegs ? 0 : -1;
}

static int oracle_read(struct oracle *o, const char *path, const char *table,
		       bool use_nm)
{
	return oracle_read2(o, path, path, table, use_nm);
}

static bool vaddr_to_offset(const struct oracle *o, uint64_t vaddr,
			    uint64_t *off)
{
	size_t i;

	for (i = 0; i < o->nsegs; i++) {
		if (vaddr >= o->segs[i].vaddr &&
		    vaddr - o->segs[i].vaddr < o->segs[i].filesz) {
			*off = vaddr - o->segs[i].vaddr + o->segs[i].offset;
			return true;
		}
	}
	return false;
}

static void file_site(struct st_site_row *site, char *path, uint64_t offset)
{
	struct stat st;

	memset(site, 0, sizeof(*site));
	site->map = SYSTRACE_MAP_FILE;
	site->path = path;
	site->offset = offset;
	if (!stat(path, &st)) {
		site->has_file_id = true;
		site->inode = st.st_ino;
		site->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL +
				 (uint64_t)st.st_mtim.tv_nsec;
	}
}

/* The oracle's symbols that contain vaddr include (name, vaddr - offset). */
static bool oracle_agrees(const struct oracle *o, uint64_t vaddr,
			  const struct st_sym *sym)
{
	size_t i;

	if (!sym || !sym->symbol || !sym->has_symbol_offset)
		return false;
	for (i = 0; i < o->nsyms; i++) {
		const struct osym *s = &o->syms[i];

		if (vaddr >= s->value && vaddr - s->value < s->size &&
		    !strcmp(s->name, sym->symbol) &&
		    vaddr - s->value == sym->symbol_offset)
			return true;
	}
	return false;
}

/*
 * Start, middle and last byte of every sized function the oracle lists.
 * Returns how many addresses were checked; *bad counts disagreements.
 */
static size_t check_all(const struct oracle *o, char *path, bool debuginfo,
			size_t *bad, bool *failed)
{
	struct st_symbolizer *sz = st_symbolizer_new();
	size_t i, k, checked = 0;

	*bad = 0;
	ASSERT_TRUE(sz);
	if (!debuginfo)
		st_symbolizer_debug_dir(sz, NULL);
	for (i = 0; i < o->nsyms; i++) {
		const struct osym *s = &o->syms[i];
		uint64_t at[3] = { 0, s->size / 2, s->size - 1 };

		if (!s->size)
			continue;
		for (k = 0; k < 3; k++) {
			uint64_t vaddr = s->value + at[k], off;
			struct st_site_row site;
			struct st_sym *sym;

			if (!vaddr_to_offset(o, vaddr, &off))
				continue;
			file_site(&site, path, off);
			ASSERT_EQ(st_symbolize_site(sz, &site, &sym), 0);
			checked++;
			if (!oracle_agrees(o, vaddr, sym)) {
				if (*bad < 5)
					printf("# %s: vaddr 0x%" PRIx64 " (%s+0x%" PRIx64
					       "): got %s+0x%" PRIx64 " (%s)\n", path,
					       vaddr, s->name, at[k],
					       sym && sym->symbol ? sym->symbol : "-",
					       sym ? sym->symbol_offset : 0,
					       sym && sym->error ? sym->error : "");
				(*bad)++;
			}
			EXPECT_STREQ(sym->object, path);
			if (o->build_id[0])
				EXPECT_STREQ(sym->build_id, o->build_id);
			else
				EXPECT_NULL(sym->build_id);
			st_sym_free(sym);
		}
	}
	st_symbolizer_free(sz);
	return checked;
}

static char tmpdir[] = "/tmp/systrace-test-XXXXXX";

static const char program[] =
	"#include <unistd.h>\n"
	"__attribute__((noinline)) long st_get_pid(void)\n"
	"{ long r; __asm__ volatile(\"syscall\" : \"=a\"(r) : \"0\"(39L) : \"rcx\", \"r11\", \"memory\"); return r; }\n"
	"__attribute__((noinline)) int st_twice(int x) { return (int)st_get_pid() * 2 + x; }\n"
	"static __attribute__((noinline)) int st_local(int x) { return st_twice(x) + 1; }\n"
	"int main(int argc, char **argv) { (void)argv; return st_local(argc) & 1; }\n"
	"__asm__(\".text\\n.globl st_bare\\n.type st_bare, @function\\n"
	"st_bare:\\n\\tmov $39, %eax\\n\\tsyscall\\n\\tret\\n\");\n"
	"long st_after(long x) { return x * 7; }\n";

/* Builds the test program with extra gcc flags into tmpdir/name. */
static int build(const char *name, const char *flags, char *out, size_t len)
{
	char src[256];
	FILE *f;
	int ret;

	if (!mkdtemp(tmpdir) && errno != EINVAL)
		return -1;
	snprintf(src, sizeof(src), "%s/prog.c", tmpdir);
	f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(program, f);
	fclose(f);
	snprintf(out, len, "%s/%s", tmpdir, name);
	f = run("gcc -O1 -g0 %s -o '%s' '%s' 2>&1", flags, out, src);
	if (!f)
		return -1;
	while (fgetc(f) != EOF)
		;
	ret = pclose(f);
	return ret ? -1 : 0;
}

static void cleanup(void)
{
	FILE *f = run("rm -rf '%s'", tmpdir);

	if (f)
		pclose(f);
}

static void libc_path(char *buf, size_t len)
{
	char line[1024], path[768];
	FILE *f = fopen("/proc/self/maps", "r");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %*s %*s %*s %767s", path) == 1 &&
		    strstr(path, "/libc.so.6")) {
			snprintf(buf, len, "%s", path);
			break;
		}
	}
	if (f)
		fclose(f);
}

TEST(symbolize_libc_dynsym_matches_nm_D)
{
	struct oracle o;
	char path[768];
	size_t n, bad;

	libc_path(path, sizeof(path));
	ASSERT_TRUE(path[0]);
	ASSERT_EQ(oracle_read(&o, path, NULL, true), 0);
	ASSERT_TRUE(o.nsyms > 1000);
	n = check_all(&o, path, false, &bad, failed);
	printf("# %s: %zu addresses in %zu functions\n", path, n, o.nsyms);
	EXPECT_TRUE(n > 3000);
	EXPECT_EQ(bad, 0);
	free(o.syms);
}

/*
 * With libc's separate debug file (libc6-dbg), found by build-id: every
 * function of its .symtab, as readelf lists it, at libc's offsets.
 */
TEST(symbolize_libc_debuginfo_by_build_id_matches_readelf)
{
	char path[768], dbg[1024];
	struct oracle o;
	size_t n, bad;

	libc_path(path, sizeof(path));
	ASSERT_EQ(oracle_read(&o, path, NULL, true), 0);
	ASSERT_TRUE(strlen(o.build_id) > 2);
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", ST_DEBUG_DIR,
		 o.build_id, o.build_id + 2);
	free(o.syms);
	if (access(dbg, R_OK))
		SKIP("no %s (libc6-dbg)", dbg);
	ASSERT_EQ(oracle_read2(&o, dbg, path, ".symtab", false), 0);
	n = check_all(&o, path, true, &bad, failed);
	printf("# %s with %s: %zu addresses in %zu functions\n", path, dbg, n, o.nsyms);
	EXPECT_TRUE(n > 10000);
	EXPECT_EQ(bad, 0);
	free(o.syms);
}

/* read and __read are the same function: the name a program calls wins. */
TEST(symbolize_libc_alias_prefers_the_plain_name)
{
	struct st_symbolizer *sz = st_symbolizer_new();
	struct st_site_row site;
	struct st_sym *sym;
	struct oracle o;
	char path[768];
	uint64_t off = 0;
	size_t i;

	libc_path(path, sizeof(path));
	ASSERT_EQ(oracle_read(&o, path, NULL, true), 0);
	for (i = 0; i < o.nsyms && strcmp(o.syms[i].name, "__read"); i++)
		;
	ASSERT_TRUE(i < o.nsyms);
	ASSERT_TRUE(vaddr_to_offset(&o, o.syms[i].value + 4, &off));
	file_site(&site, path, off);
	ASSERT_EQ(st_symbolize_site(sz, &site, &sym), 0);
	EXPECT_STREQ(sym->symbol, "read");
	EXPECT_EQ(sym->symbol_offset, 4);
	st_sym_free(sym);
	st_symbolizer_free(sz);
	free(o.syms);
}

static void check_program(const char *name, const char *flags,
			  const char *table, bool *failed)
{
	char path[512];
	struct oracle o;
	size_t n, bad, i;

	ASSERT_EQ(build(name, flags, path, sizeof(path)), 0);
	ASSERT_EQ(oracle_read(&o, path, table, false), 0);
	for (i = 0; i < o.nsyms && strcmp(o.syms[i].name, "st_get_pid"); i++)
		;
	EXPECT_TRUE(i < o.nsyms);
	n = check_all(&o, path, false, &bad, failed);
	printf("# %s (%s, %s): %zu addresses in %zu functions\n", name, flags,
	       table, n, o.nsyms);
	EXPECT_TRUE(n >= 6);
	EXPECT_EQ(bad, 0);
	free(o.syms);
}


TEST(symbolize_pie_symtab_offsets_unequal_to_addresses)
{
	FILE *f = run("command -v ld.lld");
	char lld[256] = "";
	char path[512];
	struct oracle o;

	if (f) {
		if (!fgets(lld, sizeof(lld), f))
			lld[0] = '\0';
		pclose(f);
	}
	if (!lld[0])
		SKIP("no ld.lld (lld): only its PIE has text away from its file offset");
	check_program("pie", "-pie -fPIE -fuse-ld=lld -Wl,--build-id", ".symtab", failed);
	/* The point of the lld build: text is not at its file offset. */
	snprintf(path, sizeof(path), "%s/pie", tmpdir);
	ASSERT_EQ(oracle_read(&o, path, ".symtab", false), 0);
	EXPECT_TRUE(o.segs[1].offset != o.segs[1].vaddr);
	free(o.syms);
	cleanup();
}

TEST(symbolize_non_pie_at_0x400000)
{
	char path[512];
	struct oracle o;

	check_program("nopie", "-no-pie", ".symtab", failed);
	snprintf(path, sizeof(path), "%s/nopie", tmpdir);
	ASSERT_EQ(oracle_read(&o, path, ".symtab", false), 0);
	EXPECT_EQ(o.segs[0].vaddr, 0x400000);
	free(o.syms);
	cleanup();
}

TEST(symbolize_stripped_pie_falls_back_to_dynsym)
{
	char path[512];
	FILE *f;
	int symtabs = -1;

	check_program("stripped", "-s -rdynamic", ".dynsym", failed);
	snprintf(path, sizeof(path), "%s/stripped", tmpdir);
	f = run("readelf -SW '%s' | grep -c ' .symtab '", path);
	ASSERT_TRUE(f);
	EXPECT_EQ(fscanf(f, "%d", &symtabs), 1);
	pclose(f);
	EXPECT_EQ(symtabs, 0);
	cleanup();
}

static void expect_error(struct st_symbolizer *sz, struct st_site_row *site,
			 const char *object, const char *want, bool *failed)
{
	struct st_sym *sym;

	ASSERT_EQ(st_symbolize_site(sz, site, &sym), 0);
	ASSERT_TRUE(sym);
	EXPECT_NULL(sym->symbol);
	EXPECT_FALSE(sym->has_symbol_offset);
	EXPECT_STREQ(sym->object, object);
	if (!sym->error || !strstr(sym->error, want)) {
		printf("# error \"%s\", want \"%s\"\n", sym->error ? sym->error : "(null)", want);
		*failed = true;
	}
	st_sym_free(sym);
}

static uint64_t main_offset(const char *path, bool *failed)
{
	struct oracle o;
	uint64_t off = 0;
	size_t i;

	ASSERT_EQ(oracle_read(&o, path, ".symtab", false), 0);
	for (i = 0; i < o.nsyms && strcmp(o.syms[i].name, "st_twice"); i++)
		;
	ASSERT_TRUE(i < o.nsyms);
	ASSERT_TRUE(vaddr_to_offset(&o, o.syms[i].value + 1, &off));
	free(o.syms);
	return off;
}

/* Assembly without .size: named from its start up to the next symbol. */
TEST(symbolize_sizeless_function_up_to_the_next_symbol)
{
	struct st_symbolizer *sz;
	struct st_site_row site;
	struct st_sym *sym;
	char path[512];
	struct oracle o;
	uint64_t off;
	size_t i;

	ASSERT_EQ(build("bare", "-no-pie", path, sizeof(path)), 0);
	ASSERT_EQ(oracle_read(&o, path, ".symtab", false), 0);
	for (i = 0; i < o.nsyms && strcmp(o.syms[i].name, "st_bare"); i++)
		;
	ASSERT_TRUE(i < o.nsyms);
	EXPECT_EQ(o.syms[i].size, 0);
	ASSERT_TRUE(vaddr_to_offset(&o, o.syms[i].value + 5, &off));
	file_site(&site, path, off);
	sz = st_symbolizer_new();
	ASSERT_EQ(st_symbolize_site(sz, &site, &sym), 0);
	EXPECT_STREQ(sym->symbol, "st_bare");
	EXPECT_EQ(sym->symbol_offset, 5);
	st_sym_free(sym);
	st_symbolizer_free(sz);
	free(o.syms);
	cleanup();
}

/* A file that changed or vanished since the trace gives no name. */
TEST(symbolize_changed_or_vanished_file_gives_a_reason)
{
	char path[512], deleted[600];
	struct st_site_row site, recorded;
	struct st_symbolizer *sz;
	struct st_sym *sym;
	struct timeval tv[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	uint64_t off;

	ASSERT_EQ(build("changing", "-no-pie", path, sizeof(path)), 0);
	off = main_offset(path, failed);
	file_site(&recorded, path, off);
	ASSERT_TRUE(recorded.has_file_id);

	sz = st_symbolizer_new();
	ASSERT_EQ(st_symbolize_site(sz, &recorded, &sym), 0);
	EXPECT_STREQ(sym->symbol, "st_twice");
	EXPECT_EQ(sym->symbol_offset, 1);
	EXPECT_NULL(sym->error);
	st_sym_free(sym);
	st_symbolizer_free(sz);

	/* Same inode, new mtime: rebuilt in place. */
	ASSERT_EQ(utimes(path, tv), 0);
	sz = st_symbolizer_new();
	expect_error(sz, &recorded, path, "changed since the trace (mtime_ns", failed);
	st_symbolizer_free(sz);

	/* Another file at the same path: another inode. */
	site = recorded;
	site.inode++;
	file_site(&recorded, path, off);
	sz = st_symbolizer_new();
	expect_error(sz, &site, path, "changed since the trace (inode", failed);

	/* No identity recorded: cannot be checked, so not trusted. */
	site = recorded;
	site.has_file_id = false;
	expect_error(sz, &site, path, "no file identity", failed);

	/* Unlinked while traced: the kernel's " (deleted)" path. */
	snprintf(deleted, sizeof(deleted), "%s (deleted)", path);
	site = recorded;
	site.path = deleted;
	ASSERT_EQ(st_symbolize_site(sz, &site, &sym), 0);
	EXPECT_STREQ(sym->symbol, "st_twice");
	EXPECT_STREQ(sym->object, path);
	st_sym_free(sym);
	st_symbolizer_free(sz);

	ASSERT_EQ(unlink(path), 0);
	sz = st_symbolizer_new();
	expect_error(sz, &recorded, path, "file no longer exists", failed);
	expect_error(sz, &site, path, "file was deleted during the trace", failed);
	st_symbolizer_free(sz);
	cleanup();
}

TEST(symbolize_leaves_vdso_anon_unknown_alone)
{
	static const uint32_t maps[] = {
		SYSTRACE_MAP_VDSO, SYSTRACE_MAP_ANON, SYSTRACE_MAP_UNKNOWN,
		SYSTRACE_MAP_VSYSCALL,
	};
	struct st_symbolizer *sz = st_symbolizer_new();
	struct st_site_row site = { .offset = 0x7fff0000 };
	struct st_sym *sym = (void *)1;
	size_t i;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		site.map = maps[i];
		EXPECT_EQ(st_symbolize_site(sz, &site, &sym), 0);
		EXPECT_NULL(sym);
	}
	st_symbolizer_free(sz);
}

TEST(symbolize_offset_outside_segments_and_non_elf)
{
	struct st_symbolizer *sz = st_symbolizer_new();
	char path[768], txt[] = "/tmp/systrace-test-txt-XXXXXX";
	struct st_site_row site;
	struct stat st;
	int fd;

	libc_path(path, sizeof(path));
	ASSERT_EQ(stat(path, &st), 0);
	file_site(&site, path, (uint64_t)st.st_size + 0x1000);
	expect_error(sz, &site, path, "lies in no PT_LOAD segment", failed);

	fd = mkstemp(txt);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(write(fd, "hello\n", 6), 6);
	close(fd);
	file_site(&site, txt, 0);
	expect_error(sz, &site, txt, "not an ELF file", failed);
	unlink(txt);
	st_symbolizer_free(sz);
}

/* PT_INTERP as readelf shows it, resolved. */
TEST(interp_of_a_dynamic_program)
{
	struct st_symbolizer *sz;
	const struct st_interp *in;
	const char *error;
	char path[512], *want;
	struct oracle o;
	struct stat st;

	ASSERT_EQ(build("dyn", "-no-pie", path, sizeof(path)), 0);
	ASSERT_EQ(oracle_read(&o, path, ".symtab", false), 0);
	ASSERT_TRUE(o.interp[0]);
	free(o.syms);
	want = realpath(o.interp, NULL);
	ASSERT_TRUE(want);
	ASSERT_EQ(stat(want, &st), 0);

	sz = st_symbolizer_new();
	ASSERT_EQ(st_symbolizer_interp(sz, path, NULL, &in, &error), 0);
	EXPECT_STREQ(in->path, want);
	EXPECT_TRUE(in->has_id);
	EXPECT_EQ(in->ino, st.st_ino);
	free(want);

	EXPECT_EQ(st_symbolizer_interp(sz, "/nonexistent/prog", NULL, &in, &error), -ENOENT);
	EXPECT_TRUE(error && strstr(error, "No such file"));
	st_symbolizer_free(sz);
	cleanup();
}

/* gcc finds libc.a: -print-file-name gives its path, or the bare name. */
static bool have_libc_a(void)
{
	FILE *f = run("gcc -print-file-name=libc.a");
	char path[512] = "";

	if (!f)
		return false;
	if (!fgets(path, sizeof(path), f))
		path[0] = '\0';
	pclose(f);
	path[strcspn(path, "\n")] = '\0';
	return path[0] == '/' && !access(path, R_OK);
}

TEST(interp_of_a_static_program_is_none)
{
	struct st_symbolizer *sz;
	const struct st_interp *in;
	const char *error;
	char path[512];

	if (!have_libc_a())
		SKIP("no libc.a for gcc -static (libc6-dev)");
	ASSERT_EQ(build("static", "-static", path, sizeof(path)), 0);
	sz = st_symbolizer_new();
	ASSERT_EQ(st_symbolizer_interp(sz, path, NULL, &in, &error), 0);
	EXPECT_NULL(in->path);
	st_symbolizer_free(sz);
	cleanup();
}

/*
 * A dump resolves each (path, file id, offset) once and shares the result:
 * the same libc offsets in 3 images get one pooled st_sym each, equal to
 * what st_symbolize_site gives; the same path and offset with another
 * inode (a file replaced at that path) is resolved on its own.
 */
TEST(symbolize_dump_shares_one_sym_per_path_id_and_offset)
{
	struct st_dump d;
	struct oracle o;
	struct st_symbolizer *sz;
	struct st_sym *want;
	char path[768];
	uint64_t off[3];
	size_t i, k, n = 0;

	libc_path(path, sizeof(path));
	ASSERT_TRUE(path[0]);
	ASSERT_EQ(oracle_read(&o, path, NULL, true), 0);
	for (i = 0; i < o.nsyms && n < 3; i++)
		if (o.syms[i].size > 16 &&
		    vaddr_to_offset(&o, o.syms[i].value + 8, &off[n]))
			n++;
	ASSERT_EQ(n, 3);
	memset(&d, 0, sizeof(d));
	d.sites = calloc(10, sizeof(*d.sites));
	ASSERT_TRUE(d.sites);
	for (k = 0; k < 3; k++)
		for (i = 0; i < 3; i++) {
			struct st_site_row *s = &d.sites[d.nsites++];

			file_site(s, path, off[i]);
			s->proc_id = k + 1;
			ASSERT_EQ(st_dump_str(&d, path, &s->path), 0);
		}
	d.sites[9] = d.sites[0];
	d.sites[9].proc_id = 4;
	d.sites[9].inode++;
	d.nsites = 10;
	ASSERT_EQ(st_symbolize_dump(&d), 0);
	EXPECT_TRUE(d.symbolized);
	sz = st_symbolizer_new();
	ASSERT_TRUE(sz);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(st_symbolize_site(sz, &d.sites[i], &want), 0);
		ASSERT_TRUE(want && want->symbol && d.sites[i].sym);
		EXPECT_STREQ(d.sites[i].sym->symbol, want->symbol);
		EXPECT_EQ(d.sites[i].sym->symbol_offset, want->symbol_offset);
		EXPECT_STREQ(d.sites[i].sym->object, want->object);
		EXPECT_STREQ(d.sites[i].sym->build_id, want->build_id);
		st_sym_free(want);
		for (k = 1; k < 3; k++)
			EXPECT_TRUE(d.sites[3 * k + i].sym == d.sites[i].sym);
	}
	EXPECT_TRUE(d.sites[0].sym != d.sites[1].sym);
	ASSERT_TRUE(d.sites[9].sym);
	EXPECT_NULL(d.sites[9].sym->symbol);
	EXPECT_TRUE(d.sites[9].sym->error &&
		    strstr(d.sites[9].sym->error, "changed since the trace (inode"));
	st_symbolizer_free(sz);
	st_dump_free(&d);
	free(o.syms);
}
