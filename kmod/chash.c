// SPDX-License-Identifier: GPL-2.0
/*
 * The chained hash's bucket arrays: allocated, grown and freed through
 * st_alloc() and st_free(), so every one is charged to its session.
 */
#include "core.h"
#include "chash.h"

/**
 * st_chash_init() - give @h its first buckets
 * @h: the table
 * @s: the session its memory is charged to
 * @seed: the key of the caller's hash
 * @gfp: allocation context
 *
 * Return: 0, or -ENOMEM when a limit or the allocator refused.
 */
int st_chash_init(struct st_chash *h, struct st_session *s, u32 seed,
		  gfp_t gfp)
{
	h->buckets = st_alloc(s, ST_CHASH_MIN * sizeof(*h->buckets), gfp);
	if (!h->buckets)
		return -ENOMEM;
	h->nbuckets = ST_CHASH_MIN;
	h->seed = seed;
	return 0;
}

/**
 * st_chash_free() - free @h's buckets (not its nodes); nothing is added after
 * @h: the table, with or without buckets
 * @s: the session its memory is charged to
 */
void st_chash_free(struct st_chash *h, struct st_session *s)
{
	st_free(s, h->buckets, h->nbuckets * sizeof(*h->buckets));
	h->buckets = NULL;
	h->nbuckets = 0;
}

/**
 * st_chash_grow() - double @h's buckets; when that fails, chains get longer
 * @h: the table
 * @s: the session its memory is charged to
 * @fn: the hash of a node
 *
 * Called by writers, which may hold a spinlock: GFP_NOWAIT.
 */
void st_chash_grow(struct st_chash *h, struct st_session *s, st_chash_fn fn)
{
	u32 n = h->nbuckets * 2, i, b;
	struct st_chash_node **nb, *node, *next;

	nb = st_alloc(s, n * sizeof(*nb), GFP_NOWAIT);
	if (!nb)
		return;
	for (i = 0; i < h->nbuckets; i++) {
		for (node = h->buckets[i]; node; node = next) {
			next = node->next;
			b = fn(node, h->seed) & (n - 1);
			node->next = nb[b];
			nb[b] = node;
		}
	}
	st_free(s, h->buckets, h->nbuckets * sizeof(*h->buckets));
	h->buckets = nb;
	h->nbuckets = n;
}

/**
 * st_chash_longest() - the number of nodes in @h's longest chain
 * @h: the table, its writers excluded by the caller
 *
 * Return: the length; 0 for a table with no buckets.
 */
u32 st_chash_longest(const struct st_chash *h)
{
	struct st_chash_node *node;
	u32 i, len, longest = 0;

	for (i = 0; i < h->nbuckets; i++) {
		len = 0;
		for (node = h->buckets[i]; node; node = node->next)
			len++;
		longest = max(longest, len);
	}
	return longest;
}
