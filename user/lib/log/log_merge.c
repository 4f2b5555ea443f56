// SPDX-License-Identifier: GPL-2.0
/* Sources of events in log order, merged through a heap (log_merge.h). */
#include <errno.h>
#include <stdlib.h>
#include "log/log_merge.h"

struct source {
	struct st_event cur;
	/* 1 and the next event in cur, 0 at the end, or -errno */
	int (*next)(struct source *s);
	struct st_spool_cursor *cursor;
	const struct st_event *const *ev;	/* an array's */
	size_t i, n;
	st_merge_next_fn fn;			/* a function's */
	void *ctx;
};

struct st_merge {
	struct st_spool_reader *reader;	/* the runs' cursors share it */
	struct source *src;
	size_t nsrc, cap;
	struct source **heap;
	size_t nheap;
};

static int next_cursor(struct source *s)
{
	return st_spool_cursor_next(s->cursor, &s->cur);
}

static int next_array(struct source *s)
{
	if (s->i == s->n)
		return 0;
	s->cur = *s->ev[s->i++];
	return 1;
}

static int next_fn(struct source *s)
{
	return s->fn(s->ctx, &s->cur);
}

int st_merge_new(struct st_merge **mp)
{
	*mp = calloc(1, sizeof(**mp));
	return *mp ? 0 : -ENOMEM;
}

static struct source *add(struct st_merge *m)
{
	if (m->nsrc == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct source *p = realloc(m->src, cap * sizeof(*p));

		if (!p)
			return NULL;
		m->src = p;
		m->cap = cap;
	}
	m->src[m->nsrc] = (struct source){ 0 };
	return &m->src[m->nsrc++];
}

int st_merge_add_runs(struct st_merge *m, int fd,
		      const struct st_spool_run *runs, size_t n)
{
	size_t i;
	int ret;

	if (n && !m->reader && (ret = st_spool_reader_new(&m->reader)))
		return ret;
	for (i = 0; i < n; i++) {
		struct source *s = add(m);

		if (!s)
			return -ENOMEM;
		s->next = next_cursor;
		ret = st_spool_cursor_new(&s->cursor, m->reader, fd, &runs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int st_merge_add_spool(struct st_merge *m, const struct st_spool *s)
{
	size_t n;
	const struct st_spool_run *runs = st_spool_runs(s, &n);

	return st_merge_add_runs(m, st_spool_fd(s), runs, n);
}

int st_merge_add_array(struct st_merge *m, const struct st_event *const *ev,
		       size_t n)
{
	struct source *s = add(m);

	if (!s)
		return -ENOMEM;
	s->next = next_array;
	s->ev = ev;
	s->n = n;
	return 0;
}

int st_merge_add_fn(struct st_merge *m, st_merge_next_fn fn, void *ctx)
{
	struct source *s = add(m);

	if (!s)
		return -ENOMEM;
	s->next = next_fn;
	s->fn = fn;
	s->ctx = ctx;
	return 0;
}

static bool src_less(const struct source *a, const struct source *b)
{
	return st_event_cmp(&a->cur, &b->cur) < 0;
}

static void sift_down(struct st_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, k = i;
		struct source *t;

		if (l < m->nheap && src_less(m->heap[l], m->heap[k]))
			k = l;
		if (l + 1 < m->nheap && src_less(m->heap[l + 1], m->heap[k]))
			k = l + 1;
		if (k == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[k];
		m->heap[k] = t;
		i = k;
	}
}

int st_merge_start(struct st_merge *m)
{
	size_t i;
	int ret;

	m->heap = malloc((m->nsrc ? m->nsrc : 1) * sizeof(*m->heap));
	if (!m->heap)
		return -ENOMEM;
	for (i = 0; i < m->nsrc; i++) {
		ret = m->src[i].next(&m->src[i]);
		if (ret < 0)
			return ret;
		if (ret)
			m->heap[m->nheap++] = &m->src[i];
	}
	for (i = m->nheap / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

const struct st_event *st_merge_peek(const struct st_merge *m)
{
	return m->nheap ? &m->heap[0]->cur : NULL;
}

int st_merge_pop(struct st_merge *m)
{
	int ret = m->heap[0]->next(m->heap[0]);

	if (ret < 0)
		return ret;
	if (!ret)
		m->heap[0] = m->heap[--m->nheap];
	sift_down(m, 0);
	return 0;
}

void st_merge_free(struct st_merge *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nsrc; i++)
		st_spool_cursor_free(m->src[i].cursor);
	st_spool_reader_free(m->reader);
	free(m->src);
	free(m->heap);
	free(m);
}
