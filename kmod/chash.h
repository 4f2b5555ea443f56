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
 */
#ifndef _SYSTRACE_CHASH_H
#define _SYSTRACE_CHASH_H

#include <linux/types.h>
#include <linux/container_of.h>

struct st_session;

/* Buckets a table starts with. */
#define ST_CHASH_MIN 16

struct st_chash_node {
	struct st_chash_node *next;
};

struct st_chash {
	struct st_chash_node **buckets;	/* NULL: freed, nothing is added */
	u32 nbuckets;			/* a power of two */
	u32 seed;			/* of the caller's keyed hash */
};

/* The caller's hash of a node, keyed with the table's seed. */
typedef u32 (*st_chash_fn)(const struct st_chash_node *node, u32 seed);

int st_chash_init(struct st_chash *h, struct st_session *s, u32 seed,
		  gfp_t gfp);
void st_chash_free(struct st_chash *h, struct st_session *s);
void st_chash_grow(struct st_chash *h, struct st_session *s, st_chash_fn fn);
u32 st_chash_longest(const struct st_chash *h);

static inline struct st_chash_node *st_chash_bucket(const struct st_chash *h,
						    u32 hash)
{
	return h->buckets[hash & (h->nbuckets - 1)];
}

/**
 * st_chash_add() - insert @node, and grow when chains average over two
 * @h: the table, with buckets
 * @s: the session its memory is charged to
 * @node: the new node
 * @hash: @fn's hash of @node
 * @count: the nodes in the table, @node included
 * @fn: the hash function, to rehash on growth
 */
static inline void st_chash_add(struct st_chash *h, struct st_session *s,
				struct st_chash_node *node, u32 hash,
				u32 count, st_chash_fn fn)
{
	struct st_chash_node **b = &h->buckets[hash & (h->nbuckets - 1)];

	node->next = *b;
	*b = node;
	if (count > 2 * h->nbuckets)
		st_chash_grow(h, s, fn);
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
