/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_HIDX_H
#define SYSTRACE_HIDX_H

/*
 * An index over an array the caller owns: slots hold positions in it
 * (plus one; 0 is empty), the caller's eq() compares a position's key
 * with the one looked for. 4 bytes a slot and at most half full: a log's
 * readers index millions of site rows with it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct st_hidx {
	uint32_t *slot;
	size_t mask;		/* slots - 1 */
	size_t n;
};

typedef bool (*st_hidx_eq)(const void *ctx, uint32_t pos, const void *key);

static inline uint64_t st_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static inline uint64_t st_hash3(uint64_t a, uint64_t b, uint64_t c)
{
	return st_hash_mix(a * 0x9e3779b97f4a7c15ULL ^ st_hash_mix(b) ^
			   st_hash_mix(c + 0x632be59bd9b4e019ULL));
}

/* Room for n positions without growing. Returns 0 or -ENOMEM. */
int st_hidx_init(struct st_hidx *h, size_t n);
void st_hidx_free(struct st_hidx *h);
/* The position of key, or -1 (inline: eq too, once per event of a log). */
static inline int64_t st_hidx_find(const struct st_hidx *h, uint64_t hash, st_hidx_eq eq,
				   const void *ctx, const void *key)
{
	size_t i;

	if (!h->slot)
		return -1;
	for (i = hash & h->mask; h->slot[i]; i = (i + 1) & h->mask)
		if (eq(ctx, h->slot[i] - 1, key))
			return h->slot[i] - 1;
	return -1;
}
/*
 * The positions found last, by their hash's low bits: a log's events come
 * from the few processes running at that time, whose entries this keeps
 * at hand (an index of millions misses the CPU's caches on every look-up).
 * Zeroed, it is empty; positions are never moved nor removed while in use.
 */
#define ST_HCACHE 4096
struct st_hcache {
	struct {
		uint32_t pos;		/* plus one; 0 is empty */
		uint32_t tag;		/* its hash's high half: a stale entry is not read */
	} e[ST_HCACHE];
};

/* As st_hidx_find, through c. */
static inline int64_t st_hidx_find_c(const struct st_hidx *h, struct st_hcache *c,
				     uint64_t hash, st_hidx_eq eq, const void *ctx,
				     const void *key)
{
	typeof(c->e[0]) *p = &c->e[hash & (ST_HCACHE - 1)];
	int64_t i;

	if (p->pos && p->tag == (uint32_t)(hash >> 32) && eq(ctx, p->pos - 1, key))
		return p->pos - 1;
	i = st_hidx_find(h, hash, eq, ctx, key);
	if (i >= 0) {
		p->pos = (uint32_t)i + 1;
		p->tag = (uint32_t)(hash >> 32);
	}
	return i;
}

/*
 * Adds pos (hash: its key's); rehash(ctx, pos) gives the hash of a
 * position, for growing. Returns 0 or -ENOMEM.
 */
int st_hidx_add(struct st_hidx *h, uint64_t hash, uint32_t pos,
		uint64_t (*rehash)(const void *ctx, uint32_t pos),
		const void *ctx);

#endif
