// SPDX-License-Identifier: GPL-2.0
/*
 * The paths of file calls (SYSTRACE_A_PATHS): a row per (site, result,
 * path) of a thread, counted in the syscall exit probe.
 *
 * Hot path: a thread counts only into rows it made, found through its
 * private table (st_thread.phash), with plain stores. A new row is
 * charged to the session (max_mem), published on its image's list under
 * proc->lock, and lives as long as the session's rows; a row that cannot
 * be made counts in dropped_paths. Two threads of an image that meet the
 * same path make two rows, which readers add up.
 *
 * The path is read in the thread's own context at the call's exit, page
 * by page with copy_from_user_nofault(): never a sleep, never a page
 * faulted in. A read that faults makes the row SYSTRACE_PATH_UNREADABLE;
 * a path with no NUL in its first SYSTRACE_PATH_BOUND bytes,
 * SYSTRACE_PATH_LONG. Neither keeps a byte of the path.
 */
#include <linux/uaccess.h>
#include <linux/jhash.h>
#include <linux/string.h>
#include <net/netlink.h>
#include "core.h"
#include "paths.h"
#include "replies.h"

static u32 st_path_hash(u32 seed, const struct st_site *site, u16 err,
			u8 kind, const char *path, u32 len)
{
	unsigned long p = (unsigned long)site;

	return jhash(path, len, jhash_3words((u32)p, (u32)(p >> 32),
					     err | (u32)kind << 16, seed));
}

static u32 st_path_node_hash(const struct st_chash_node *node, u32 seed)
{
	const struct st_path *row = container_of(node, struct st_path, hnode);

	return st_path_hash(seed, row->site, row->err, row->kind, row->path,
			    row->len);
}

static size_t st_path_size(u32 len)
{
	return sizeof(struct st_path) + len + 1;
}

/* Return: the kind of the path at @uptr, its bytes in @buf and *@len. */
static u8 st_path_read_user(char *buf, unsigned long uptr, u32 *len)
{
	const void __user *src;
	u32 off = 0, n;
	char *nul;

	while (off < SYSTRACE_PATH_BOUND) {
		n = min_t(unsigned long, PAGE_SIZE - offset_in_page(uptr + off),
			  SYSTRACE_PATH_BOUND - off);
		src = (const void __user *)(uptr + off);
		if (copy_from_user_nofault(buf + off, src, n))
			return SYSTRACE_PATH_UNREADABLE;
		nul = memchr(buf + off, 0, n);
		if (nul) {
			*len = nul - buf;
			return SYSTRACE_PATH_OK;
		}
		off += n;
	}
	return SYSTRACE_PATH_LONG;
}

static u8 st_path_read_kernel(char *buf, const char *kpath, u32 *len)
{
	size_t n = strnlen(kpath, SYSTRACE_PATH_BOUND);

	if (n == SYSTRACE_PATH_BOUND)
		return SYSTRACE_PATH_LONG;
	memcpy(buf, kpath, n);
	*len = n;
	return SYSTRACE_PATH_OK;
}

/**
 * st_paths_grow() - grow current's table of paths as its count asks
 *	(ST_DEFER_GROW)
 * @s: the session, referenced by the caller
 *
 * From current's deferred work, where it may sleep.
 */
void st_paths_grow(struct st_session *s)
{
	st_own_table_grow(s, offsetof(struct st_thread, phash),
			  offsetof(struct st_thread, npaths), st_path_node_hash);
}

static noinline struct st_path *st_path_new(struct st_thread *t,
					    struct st_site *site, u16 err,
					    u8 kind, const char *path, u32 len,
					    u32 hash)
{
	struct st_session *s = t->s;
	struct st_proc *p = t->proc;
	struct st_path *row;

	row = st_alloc(s, st_path_size(len), GFP_NOWAIT);
	if (!row)
		return NULL;
	row->site = site;
	row->err = err;
	row->kind = kind;
	row->len = len;
	memcpy(row->path, path, len);
	row->count = 1;
	spin_lock(&p->lock);
	if (p->paths_tail)
		st_publish(p->paths_tail->next, row);
	else
		st_publish(p->paths, row);
	p->paths_tail = row;
	spin_unlock(&p->lock);
	if (st_chash_add(&t->phash, &row->hnode, hash, ++t->npaths))
		st_defer(t, ST_DEFER_GROW);
	atomic_inc(&s->gen);
	return row;
}

/**
 * st_path_count() - count the path of the file call a thread completed
 * @t: current's record, with the call's path argument (path_ptr)
 * @site: the call's site row, of @t's image
 * @ret: the call's return value
 * @kpath: the kernel's copy of the path (an exec's), or NULL: read the
 *	thread's memory at path_ptr
 *
 * From the syscall and exec probes: never sleeps, never faults.
 */
void st_path_count(struct st_thread *t, struct st_site *site, long ret,
		   const char *kpath)
{
	u16 err = IS_ERR_VALUE(ret) ? (u16)-ret : 0;
	char buf[SYSTRACE_PATH_BOUND];
	struct st_path *row;
	u32 len = 0, hash;
	u8 kind;

	if (kpath)
		kind = st_path_read_kernel(buf, kpath, &len);
	else
		kind = st_path_read_user(buf, t->path_ptr, &len);
	if (kind != SYSTRACE_PATH_OK)
		len = 0;
	if (unlikely(!t->phash.buckets) &&
	    st_chash_init(&t->phash, t->s, t->s->seed, GFP_NOWAIT))
		goto drop;
	hash = st_path_hash(t->phash.seed, site, err, kind, buf, len);
	st_chash_for_each(row, &t->phash, hash, hnode) {
		if (row->site == site && row->err == err && row->kind == kind &&
		    row->len == len && !memcmp(row->path, buf, len)) {
			WRITE_ONCE(row->count, row->count + 1);
			return;
		}
	}
	if (st_path_new(t, site, err, kind, buf, len, hash))
		return;
drop:
	atomic64_inc(&t->s->dropped_paths);
}

/**
 * st_nl_put_path() - a path row, as a SYSTRACE_A_PATH nest
 * @skb: the message
 * @p: the row's image
 * @row: the row
 *
 * Return: 0, or -EMSGSIZE when it does not fit (nothing of it is left).
 */
int st_nl_put_path(struct sk_buff *skb, struct st_proc *p, struct st_path *row)
{
	const int pad = SYSTRACE_PATH_A_PAD;
	struct nlattr *nest;

	nest = nla_nest_start(skb, SYSTRACE_A_PATH);
	if (!nest)
		return -EMSGSIZE;
	if (st_put_u64(skb, SYSTRACE_PATH_A_PROC_ID, p->id, pad) ||
	    st_put_u64(skb, SYSTRACE_PATH_A_ADDR, row->site->addr, pad) ||
	    nla_put_u32(skb, SYSTRACE_PATH_A_NR, row->site->nr) ||
	    nla_put_u32(skb, SYSTRACE_PATH_A_ABI, row->site->abi) ||
	    nla_put_u32(skb, SYSTRACE_PATH_A_ERRNO, row->err) ||
	    nla_put_u32(skb, SYSTRACE_PATH_A_KIND, row->kind) ||
	    (row->kind == SYSTRACE_PATH_OK &&
	     nla_put_string(skb, SYSTRACE_PATH_A_PATH, row->path)) ||
	    st_put_u64(skb, SYSTRACE_PATH_A_COUNT, READ_ONCE(row->count), pad)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * st_paths_put_session() - a session's paths mode and drops, in its nest
 * @skb: the message
 * @s: the session
 *
 * Return: 0, or -EMSGSIZE.
 */
int st_paths_put_session(struct sk_buff *skb, struct st_session *s)
{
	if (nla_put_u32(skb, SYSTRACE_SESSION_A_PATHS, s->paths) ||
	    st_put_u64(skb, SYSTRACE_SESSION_A_DROPPED_PATHS,
		       atomic64_read(&s->dropped_paths), SYSTRACE_SESSION_A_PAD))
		return -EMSGSIZE;
	return 0;
}

/**
 * st_paths_free() - free an image's path rows, with the session's rows
 * @s: the session
 * @p: the image
 */
void st_paths_free(struct st_session *s, struct st_proc *p)
{
	struct st_path *row, *next;

	for (row = p->paths; row; row = next) {
		next = row->next;
		st_free(s, row, st_path_size(row->len));
	}
	p->paths = NULL;
	p->paths_tail = NULL;
}
