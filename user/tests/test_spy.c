// SPDX-License-Identifier: GPL-2.0
/*
 * The spies of test.h: this program's own nla_parse_nested() and fwrite()
 * take the place of libnl's and libc's for the code linked into it (the
 * executable's definitions come first in the dynamic linker's search), count
 * the call on the thread it came from, and hand it on to the real one
 * (dlsym(RTLD_NEXT)). The counts live in this process: each test's child
 * starts from st_spy_reset().
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <netlink/attr.h>
#include "test.h"

static pthread_t own;
static atomic_uint_fast64_t rows[2], writes[2], bytes[2];
static int (*next_parse_nested)(struct nlattr **, int, struct nlattr *,
				const struct nla_policy *);
static size_t (*next_fwrite)(const void *, size_t, size_t, FILE *);

void st_spy_reset(void)
{
	int i;

	own = pthread_self();
	for (i = 0; i < 2; i++) {
		atomic_store(&rows[i], 0);
		atomic_store(&writes[i], 0);
		atomic_store(&bytes[i], 0);
	}
}

struct st_spy st_spy_read(void)
{
	struct st_spy s = {
		.rows_here = atomic_load(&rows[0]),
		.rows_elsewhere = atomic_load(&rows[1]),
		.writes_here = atomic_load(&writes[0]),
		.writes_elsewhere = atomic_load(&writes[1]),
		.bytes_here = atomic_load(&bytes[0]),
		.bytes_elsewhere = atomic_load(&bytes[1]),
	};

	return s;
}

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "test_spy: no %s after this program: %s\n", name, dlerror());
		abort();
	}
	return f;
}

/* Before main, so that no thread ever sees them unset. */
__attribute__((constructor)) static void spy_init(void)
{
	next_parse_nested = real("nla_parse_nested");
	next_fwrite = real("fwrite");
}

static int elsewhere(void)
{
	return !pthread_equal(pthread_self(), own);
}

int nla_parse_nested(struct nlattr *tb[], int max, struct nlattr *nla,
		     const struct nla_policy *policy)
{
	atomic_fetch_add(&rows[elsewhere()], 1);
	return next_parse_nested(tb, max, nla, policy);
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	size_t done = next_fwrite(p, size, n, f);

	atomic_fetch_add(&writes[elsewhere()], 1);
	atomic_fetch_add(&bytes[elsewhere()], done * size);
	return done;
}
