// SPDX-License-Identifier: GPL-2.0
/*
 * A dump's string pool (model.h): each distinct string, and each distinct
 * symbolization, is stored once and shared by every row that holds it. A
 * glibc-sized build has about 750k site rows but a few hundred distinct
 * paths, objects and build ids, and a few thousand distinct symbols: a
 * copy per row made the strings most of systracectl's memory.
 *
 * Strings and st_sym records live in chunks that are never moved, so the
 * pointers handed out stay valid until st_pool_free(). Two open-addressing
 * tables, one of strings and one of st_sym records, find what is already
 * there; an st_sym's strings are pooled first, so two records are equal
 * when their pointers and offsets are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"

#define CHUNK_BYTES (64 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct table {
	void **slots;
	uint64_t *hashes;
	size_t cap, n;		/* cap: a power of 2, or 0 */
};

struct st_pool {
	struct chunk *chunks;
	struct table strs, syms, errnos;
};

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h;
}

#define HASH_SEED 0xcbf29ce484222325ULL

/* n bytes aligned for any member of st_sym, or NULL. */
static void *pool_alloc(struct st_pool *p, size_t n)
{
	struct chunk *c = p->chunks;
	void *at;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK_BYTES ? n : CHUNK_BYTES;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = p->chunks;
		c->used = 0;
		c->size = size;
		p->chunks = c;
	}
	at = c->data + c->used;
	c->used += n;
	return at;
}

/* Doubles t when it is over 1/2 full; -ENOMEM leaves it as it was. */
static int table_grow(struct table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256, i, j;
	void **slots;
	uint64_t *hashes;

	if (t->n * 2 < t->cap)
		return 0;
	slots = calloc(cap, sizeof(*slots));
	hashes = calloc(cap, sizeof(*hashes));
	if (!slots || !hashes) {
		free(slots);
		free(hashes);
		return -ENOMEM;
	}
	for (i = 0; i < t->cap; i++) {
		if (!t->slots[i])
			continue;
		for (j = t->hashes[i] & (cap - 1); slots[j]; j = (j + 1) & (cap - 1))
			;
		slots[j] = t->slots[i];
		hashes[j] = t->hashes[i];
	}
	free(t->slots);
	free(t->hashes);
	t->slots = slots;
	t->hashes = hashes;
	t->cap = cap;
	return 0;
}

/* The slot of the entry equal to key, or of the empty slot where it goes. */
static size_t table_find(const struct table *t, uint64_t h, const void *key,
			 bool (*eq)(const void *entry, const void *key))
{
	size_t i;

	for (i = h & (t->cap - 1); t->slots[i]; i = (i + 1) & (t->cap - 1))
		if (t->hashes[i] == h && eq(t->slots[i], key))
			break;
	return i;
}

static bool str_eq(const void *entry, const void *key)
{
	return !strcmp(entry, key);
}

static bool sym_eq(const void *entry, const void *key)
{
	const struct st_sym *a = entry, *b = key;

	return a->object == b->object && a->symbol == b->symbol &&
	       a->build_id == b->build_id && a->error == b->error &&
	       a->has_symbol_offset == b->has_symbol_offset &&
	       a->symbol_offset == b->symbol_offset;
}

struct st_pool *st_pool_new(void)
{
	return calloc(1, sizeof(struct st_pool));
}

void st_pool_free(struct st_pool *p)
{
	struct chunk *c, *next;

	if (!p)
		return;
	for (c = p->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(p->strs.slots);
	free(p->strs.hashes);
	free(p->syms.slots);
	free(p->syms.hashes);
	free(p->errnos.slots);
	free(p->errnos.hashes);
	free(p);
}

int st_pool_str(struct st_pool *p, const char *s, const char **out)
{
	size_t len, i;
	uint64_t h;
	char *copy;

	*out = NULL;
	if (!s)
		return 0;
	if (table_grow(&p->strs))
		return -ENOMEM;
	len = strlen(s);
	h = hash_bytes(s, len, HASH_SEED);
	i = table_find(&p->strs, h, s, str_eq);
	if (!p->strs.slots[i]) {
		copy = pool_alloc(p, len + 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, s, len + 1);
		p->strs.slots[i] = copy;
		p->strs.hashes[i] = h;
		p->strs.n++;
	}
	*out = p->strs.slots[i];
	return 0;
}

int st_pool_sym(struct st_pool *p, const struct st_sym *sym,
		const struct st_sym **out)
{
	struct st_sym key = {
		.has_symbol_offset = sym->has_symbol_offset,
		.symbol_offset = sym->has_symbol_offset ? sym->symbol_offset : 0,
	};
	struct st_sym *copy;
	uint64_t h;
	size_t i;

	*out = NULL;
	if (st_pool_str(p, sym->object, &key.object) ||
	    st_pool_str(p, sym->symbol, &key.symbol) ||
	    st_pool_str(p, sym->build_id, &key.build_id) ||
	    st_pool_str(p, sym->error, &key.error) ||
	    table_grow(&p->syms))
		return -ENOMEM;
	h = hash_bytes(&key.object, sizeof(key.object), HASH_SEED);
	h = hash_bytes(&key.symbol, sizeof(key.symbol), h);
	h = hash_bytes(&key.build_id, sizeof(key.build_id), h);
	h = hash_bytes(&key.error, sizeof(key.error), h);
	h = hash_bytes(&key.symbol_offset, sizeof(key.symbol_offset), h);
	h ^= key.has_symbol_offset;
	i = table_find(&p->syms, h, &key, sym_eq);
	if (!p->syms.slots[i]) {
		copy = pool_alloc(p, sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		*copy = key;
		p->syms.slots[i] = copy;
		p->syms.hashes[i] = h;
		p->syms.n++;
	}
	*out = p->syms.slots[i];
	return 0;
}

static bool errnos_eq(const void *entry, const void *key)
{
	const struct st_errnos *a = entry, *b = key;
	uint32_t i;

	if (a->n != b->n || a->other != b->other)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->v[i].err != b->v[i].err || a->v[i].count != b->v[i].count)
			return false;
	return true;
}

/* Most sites that fail fail alike ({ENOENT: 1}): each set is stored once. */
int st_pool_errnos(struct st_pool *p, const struct st_errnos *e,
		   const struct st_errnos **out)
{
	struct st_errnos key = { .n = e->n, .other = e->other };
	struct st_errnos *copy;
	uint64_t h;
	uint32_t k;
	size_t i;

	*out = NULL;
	if (table_grow(&p->errnos))
		return -ENOMEM;
	h = hash_bytes(&key.other, sizeof(key.other), HASH_SEED);
	for (k = 0; k < e->n && k < SYSTRACE_SITE_ERRNOS; k++) {
		key.v[k] = e->v[k];
		h = hash_bytes(&key.v[k].err, sizeof(key.v[k].err), h);
		h = hash_bytes(&key.v[k].count, sizeof(key.v[k].count), h);
	}
	h ^= key.n;
	i = table_find(&p->errnos, h, &key, errnos_eq);
	if (!p->errnos.slots[i]) {
		copy = pool_alloc(p, sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		*copy = key;
		p->errnos.slots[i] = copy;
		p->errnos.hashes[i] = h;
		p->errnos.n++;
	}
	*out = p->errnos.slots[i];
	return 0;
}

/* The dump's pool, made on first use. */
static struct st_pool *dump_pool(struct st_dump *d)
{
	if (!d->pool)
		d->pool = st_pool_new();
	return d->pool;
}

int st_dump_str(struct st_dump *d, const char *s, const char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	if (!dump_pool(d))
		return -ENOMEM;
	return st_pool_str(d->pool, s, out);
}

int st_dump_sym(struct st_dump *d, const struct st_sym *sym,
		const struct st_sym **out)
{
	*out = NULL;
	if (!dump_pool(d))
		return -ENOMEM;
	return st_pool_sym(d->pool, sym, out);
}

int st_dump_errnos(struct st_dump *d, const struct st_errnos *e,
		   const struct st_errnos **out)
{
	*out = NULL;
	if (!dump_pool(d))
		return -ENOMEM;
	return st_pool_errnos(d->pool, e, out);
}
