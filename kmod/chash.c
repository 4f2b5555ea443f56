// SPDX-License-Identifier: GPL-2.0
/*
 * The chained hash's bucket arrays, each charged to its session: the first
 * from the slab, in the caller's context; a grown one from kvmalloc, in a
 * thread's deferred work. Either is freed after a grace period
 * (kvfree_rcu), so that a table can be freed where vfree could not run:
 * in a probe, or under a row's spinlock.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include "core.h"
#include "chash.h"

struct st_chash_arr {
	struct rcu_head rcu;
	struct st_chash_node *b[];
};

static size_t st_chash_size(u32 n)
{
	return offsetof(struct st_chash_arr, b) +
	       (size_t)n * sizeof(struct st_chash_node *);
}

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
	struct st_chash_arr *a;

	a = st_alloc(s, st_chash_size(ST_CHASH_MIN), gfp);
	if (!a)
		return -ENOMEM;
	h->buckets = a->b;
	h->nbuckets = ST_CHASH_MIN;
	h->seed = seed;
	h->grow_after = jiffies;
	return 0;
}

/**
 * st_chash_buckets_free() - free a bucket array and give back its charge
 * @s: the session it was charged to
 * @b: the array, or NULL
 * @n: its buckets
 */
void st_chash_buckets_free(struct st_session *s, struct st_chash_node **b,
			   u32 n)
{
	struct st_chash_arr *a;

	if (!b)
		return;
	a = (void *)b - offsetof(struct st_chash_arr, b);
	kvfree_rcu(a, rcu);
	st_uncharge(s, st_chash_size(n));
}

/**
 * st_chash_free() - free @h's buckets (not its nodes); nothing is added after
 * @h: the table, with or without buckets
 * @s: the session its memory is charged to
 */
void st_chash_free(struct st_chash *h, struct st_session *s)
{
	st_chash_buckets_free(s, h->buckets, h->nbuckets);
	h->buckets = NULL;
	h->nbuckets = 0;
}

/**
 * st_chash_want() - the buckets @h should grow to
 * @h: the table, its writers excluded by the caller
 * @count: the nodes in it
 *
 * Return: the least power of two, at least twice the present one, where
 * chains average two at most; or 0 when @h needs no grow (or has no
 * buckets).
 */
u32 st_chash_want(const struct st_chash *h, u32 count)
{
	u32 n = h->nbuckets * 2;

	if (!h->buckets || count <= n)
		return 0;
	while (count > 2 * n && n < ST_CHASH_MAX)
		n *= 2;
	return n;
}

/**
 * st_chash_buckets_alloc() - a zeroed bucket array, for a grow
 * @s: the session it is charged to
 * @n: buckets
 *
 * Process context: may sleep. A refusal (max_mem, max_mem_total or the
 * allocator) drops nothing, so it is not counted in dropped_nomem: the
 * caller reports it with st_chash_grow_failed().
 *
 * Return: the array, or NULL.
 */
struct st_chash_node **st_chash_buckets_alloc(struct st_session *s, u32 n)
{
	size_t size = st_chash_size(n);
	struct st_chash_arr *a;

	might_sleep();
	if (st_testing_grow_fail() || !st_charge_quiet(s, size))
		return NULL;
	/* May fail, never OOM-kills: a grow only shortens chains. */
	a = kvzalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	if (!a) {
		st_uncharge(s, size);
		return NULL;
	}
	return a->b;
}

/**
 * st_chash_grow_failed() - count a grow that found no memory, and hold
 *	@h's next request back for ST_CHASH_RETRY
 * @h: the table
 * @s: its session
 */
void st_chash_grow_failed(struct st_chash *h, struct st_session *s)
{
	WRITE_ONCE(h->grow_after, jiffies + ST_CHASH_RETRY);
	st_stat_inc(s, ST_HASH_GROW_FAILED);
}

/**
 * st_chash_swap() - move @h's nodes into a larger bucket array
 * @h: the table, its writers (and its readers, which hold the same lock or
 *	are the writer) excluded by the caller, who may not sleep meanwhile
 * @nb: the new array, from st_chash_buckets_alloc()
 * @n: its buckets (st_chash_want()); set to those of the array returned
 * @fn: the hash of a node
 *
 * Return: the array the caller frees with st_chash_buckets_free() once it
 * has let go: @h's old one, or @nb itself when @h has meanwhile been
 * freed or grown as far.
 */
struct st_chash_node **st_chash_swap(struct st_chash *h,
				     struct st_chash_node **nb, u32 *n,
				     st_chash_fn fn)
{
	struct st_chash_node **old = h->buckets, *node, *next;
	u32 i, b, oldn = h->nbuckets;

	if (!old || oldn >= *n)
		return nb;
	for (i = 0; i < oldn; i++) {
		for (node = old[i]; node; node = next) {
			next = node->next;
			b = fn(node, h->seed) & (*n - 1);
			node->next = nb[b];
			nb[b] = node;
		}
	}
	h->buckets = nb;
	h->nbuckets = *n;
	*n = oldn;
	return old;
}

/**
 * st_chash_grow() - grow @h, whose writers and readers hold @lock, as far
 *	as its count asks
 * @h: the table
 * @s: the session its memory is charged to
 * @lock: the writers' spinlock, not held
 * @count: the nodes in @h, under @lock
 * @fn: the hash of a node
 *
 * Process context, from a thread's deferred work: the allocation may
 * sleep, and @lock is held only to move the nodes.
 */
void st_chash_grow(struct st_chash *h, struct st_session *s,
		   spinlock_t *lock, const u32 *count, st_chash_fn fn)
{
	struct st_chash_node **nb;
	u32 n;

	spin_lock(lock);
	n = st_chash_want(h, *count);
	spin_unlock(lock);
	if (!n)
		return;
	nb = st_chash_buckets_alloc(s, n);
	if (!nb) {
		st_chash_grow_failed(h, s);
		return;
	}
	spin_lock(lock);
	nb = st_chash_swap(h, nb, &n, fn);
	spin_unlock(lock);
	st_chash_buckets_free(s, nb, n);
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
