/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A chained hash: a power-of-two array of singly linked buckets that
 * doubles when its chains grow long. It serves the site table of a process
 * row, the private site table of a thread and the session's table of
 * mapped files. The caller serializes its writers, owns the count of nodes
 * and the keyed hash function; the table owns its bucket array, charged to
 * the session.
 *
 * A node is one pointer: the rows have no room for a stored hash, so a
 * grow rehashes each node through the caller's function. Lookups are open
 * coded with st_chash_for_each(), inline in the caller, so the hot path
 * makes no call.
 *
 * A probe never grows a table: st_chash_add() only says that chains
 * average over two, and the caller leaves the grow to the thread's
 * deferred work (defer.c), in process context. There the new bucket array
 * comes from kvmalloc (no size cap, may sleep), and the writer's lock is
 * held only to move the nodes and swap the arrays. Until then, and for good
 * when the memory is not to be had, inserts go on into the old array with
 * longer chains: a failed grow loses nothing (counted in hash_grow_failed),
 * and is asked again no sooner than ST_CHASH_RETRY later.
 */
#ifndef _SYSTRACE_CHASH_H
#define _SYSTRACE_CHASH_H

#include <linux/types.h>
#include <linux/container_of.h>
#include <linux/jiffies.h>
#include <linux/spinlock_types.h>

struct st_session;

/* Buckets a table starts with. */
#define ST_CHASH_MIN 16
/* The least wait before a table whose grow failed asks again. */
#define ST_CHASH_RETRY HZ
/* The most buckets a table grows to. */
#define ST_CHASH_MAX (1U << 28)

struct st_chash_node {
	struct st_chash_node *next;
};

struct st_chash {
	struct st_chash_node **buckets;	/* NULL: freed, nothing is added */
	u32 nbuckets;			/* a power of two */
	u32 seed;			/* of the caller's keyed hash */
	unsigned long grow_after;	/* jiffies: no grow asked before */
};

/* The caller's hash of a node, keyed with the table's seed. */
typedef u32 (*st_chash_fn)(const struct st_chash_node *node, u32 seed);

int st_chash_init(struct st_chash *h, struct st_session *s, u32 seed,
		  gfp_t gfp);
void st_chash_free(struct st_chash *h, struct st_session *s);
u32 st_chash_want(const struct st_chash *h, u32 count);
struct st_chash_node **st_chash_buckets_alloc(struct st_session *s, u32 n);
void st_chash_buckets_free(struct st_session *s, struct st_chash_node **b,
			   u32 n);
void st_chash_grow_failed(struct st_chash *h, struct st_session *s);
struct st_chash_node **st_chash_swap(struct st_chash *h,
				     struct st_chash_node **nb, u32 *n,
				     st_chash_fn fn);
void st_chash_grow(struct st_chash *h, struct st_session *s,
		   spinlock_t *lock, const u32 *count, st_chash_fn fn);
u32 st_chash_longest(const struct st_chash *h);

static inline struct st_chash_node *st_chash_bucket(const struct st_chash *h,
						    u32 hash)
{
	return h->buckets[hash & (h->nbuckets - 1)];
}

/**
 * st_chash_add() - insert @node
 * @h: the table, with buckets
 * @node: the new node
 * @hash: the caller's hash of @node
 * @count: the nodes in the table, @node included
 *
 * Bounded work, for a probe: the caller grows the table later, from
 * process context, when this says so.
 *
 * Return: true when chains average over two and no recent grow failed.
 */
static inline bool st_chash_add(struct st_chash *h,
				struct st_chash_node *node, u32 hash,
				u32 count)
{
	struct st_chash_node **b = &h->buckets[hash & (h->nbuckets - 1)];

	node->next = *b;
	*b = node;
	return count > 2 * h->nbuckets &&
	       time_after_eq(jiffies, READ_ONCE(h->grow_after));
}

#define st_chash_entry(ptr, type, member) ({				\
	struct st_chash_node *____n = (ptr);				\
	____n ? container_of(____n, type, member) : NULL;		\
})

/* Each entry in @hash's bucket of @h; the caller compares the keys. */
#define st_chash_for_each(pos, h, hash, member)				\
	for (pos = st_chash_entry(st_chash_bucket(h, hash),		\
				  typeof(*(pos)), member);		\
	     pos;							\
	     pos = st_chash_entry((pos)->member.next, typeof(*(pos)), member))

#endif
