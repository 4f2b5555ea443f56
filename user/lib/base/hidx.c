// SPDX-License-Identifier: GPL-2.0
/* An index of positions by hash, linear probing (hidx.h). */
#include <errno.h>
#include <stdlib.h>
#include "base/hidx.h"

static size_t slots_for(size_t n)
{
	size_t s = 64;

	while (s < 2 * n + 2)
		s *= 2;
	return s;
}

int st_hidx_init(struct st_hidx *h, size_t n)
{
	size_t s = slots_for(n);

	h->slot = calloc(s, sizeof(*h->slot));
	if (!h->slot)
		return -ENOMEM;
	h->mask = s - 1;
	h->n = 0;
	return 0;
}

void st_hidx_free(struct st_hidx *h)
{
	free(h->slot);
	h->slot = NULL;
	h->mask = 0;
	h->n = 0;
}

static void put(uint32_t *slot, size_t mask, uint64_t hash, uint32_t v)
{
	size_t i;

	for (i = hash & mask; slot[i]; i = (i + 1) & mask)
		;
	slot[i] = v;
}

int st_hidx_add(struct st_hidx *h, uint64_t hash, uint32_t pos,
		uint64_t (*rehash)(const void *ctx, uint32_t pos),
		const void *ctx)
{
	if (!h->slot && st_hidx_init(h, 0))
		return -ENOMEM;
	if (2 * (h->n + 1) > h->mask + 1) {
		size_t s = (h->mask + 1) * 2, i;
		uint32_t *n = calloc(s, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (i = 0; i <= h->mask; i++)
			if (h->slot[i])
				put(n, s - 1, rehash(ctx, h->slot[i] - 1), h->slot[i]);
		free(h->slot);
		h->slot = n;
		h->mask = s - 1;
	}
	put(h->slot, h->mask, hash, pos + 1);
	h->n++;
	return 0;
}
