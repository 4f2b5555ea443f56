// SPDX-License-Identifier: GPL-2.0
/*
 * A log as Perfetto's native trace: a protobuf Trace, a stream of
 * TracePacket messages (field 1), written as the events come.
 *
 * A small encoder of our own, not protobuf-c: the trace uses 40
 * fields of 11 messages, all written in one direction, one packet at a
 * time; protobuf-c would need Perfetto's .proto files in the tree and
 * their generated code, and builds each message as a tree of structs
 * before packing it. Here a packet is written in one buffer in its order,
 * each nested message's length set when it ends (one byte is kept for it,
 * which nearly all need), and its bytes go straight to the file. The field
 * numbers are Perfetto's (protos/perfetto/trace/: trace_packet.proto,
 * track_event/track_event.proto, track_descriptor.proto,
 * process_descriptor.proto, thread_descriptor.proto, debug_annotation.proto,
 * interned_data/interned_data.proto); docs/cli.md lists them.
 *
 * The trace: one packet sequence (id 1). Each image is a process track
 * (a ProcessDescriptor: its pid, its comm, and its start when the log has
 * it, its fork or exec; named "comm pid") holding one slice, its lifetime
 * (from that start to its exit, or to the exec that replaced it); each
 * thread of it a thread track (a ThreadDescriptor: pid, tid, comm; named
 * "comm tid"), a child of the process's, holding its syscalls as slices,
 * and fork, exec and exit as instants; a flow goes from a fork to the
 * child's first event. Every string is valid UTF-8 (pb_str()). A syscall's annotations: ret, errno (on failure), addr,
 * path, offset, symbol, phase, early (when set), seq. Names and strings
 * are interned (each sent once). Events leave in time order: a slice's
 * end waits in a heap (one entry per thread in a syscall) until no
 * earlier event can come. Timestamps are the log's ns (CLOCK_MONOTONIC),
 * as the trace's default clock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "out/argv.h"
#include "out/json_str.h"
#include "base/hidx.h"
#include "log/log_writer.h"
#include "model/names.h"

/* Wire types. */
#define WT_VARINT 0
#define WT_I64 1
#define WT_LEN 2

/* Field numbers (Perfetto's protos). */
#define TRACE_PACKET 1
#define TP_TIMESTAMP 8
#define TP_SEQUENCE_ID 10		/* trusted_packet_sequence_id */
#define TP_TRACK_EVENT 11
#define TP_INTERNED_DATA 12
#define TP_SEQUENCE_FLAGS 13
#define TP_TRACK_DESCRIPTOR 60
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE 2
#define TE_DEBUG_ANNOTATIONS 4
#define TE_TYPE 9
#define TE_NAME_IID 10
#define TE_TRACK_UUID 11
#define TE_FLOW_IDS 47			/* fixed64 */
#define TE_TERMINATING_FLOW_IDS 48	/* fixed64 */
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END 2
#define TYPE_INSTANT 3
#define TD_UUID 1
#define TD_NAME 2
#define TD_PROCESS 3
#define TD_THREAD 4
#define TD_PARENT_UUID 5
#define PD_PID 1
#define PD_PROCESS_NAME 6
#define PD_START_TIMESTAMP_NS 7	/* int64 */
#define THD_PID 1
#define THD_TID 2
#define THD_THREAD_NAME 5
#define DA_NAME_IID 1
#define DA_BOOL 2
#define DA_UINT 3
#define DA_INT 4
#define DA_STRING 6
#define DA_POINTER 7
#define DA_STRING_IID 17
#define ID_EVENT_NAMES 2
#define ID_DEBUG_ANNOTATION_NAMES 3
#define ID_DEBUG_ANNOTATION_STRING_VALUES 29
#define INTERNED_IID 1
#define INTERNED_NAME 2			/* EventName, DebugAnnotationName; InternedString's str */

#define SEQUENCE 1

/* A message being built. */
struct pbuf {
	uint8_t *b;
	size_t n, cap;
	bool nomem;
};

static void pb_grow(struct pbuf *p, size_t k)
{
	size_t cap;
	uint8_t *b;

	if (p->nomem)
		return;
	cap = p->cap ? p->cap : 256;
	while (cap < p->n + k)
		cap *= 2;
	b = realloc(p->b, cap);
	if (!b) {
		p->nomem = true;
		return;
	}
	p->b = b;
	p->cap = cap;
}

/* Room for k more bytes, or p->nomem. */
static inline void pb_need(struct pbuf *p, size_t k)
{
	if (p->n + k > p->cap)
		pb_grow(p, k);
}

static inline void pb_varint(struct pbuf *p, uint64_t v)
{
	uint8_t *o;

	if (p->n + 10 > p->cap) {
		pb_need(p, 10);
		if (p->nomem)
			return;
	}
	o = p->b + p->n;
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	p->n = (size_t)(o - p->b);
}

static void pb_tag(struct pbuf *p, unsigned int field, unsigned int wt)
{
	pb_varint(p, (uint64_t)field << 3 | wt);
}

static void pb_uint(struct pbuf *p, unsigned int field, uint64_t v)
{
	pb_tag(p, field, WT_VARINT);
	pb_varint(p, v);
}

/* int32 and int64 fields: a negative value is its 64-bit two's complement. */
static void pb_int(struct pbuf *p, unsigned int field, int64_t v)
{
	pb_uint(p, field, (uint64_t)v);
}

static void pb_fixed64(struct pbuf *p, unsigned int field, uint64_t v)
{
	int i;

	pb_tag(p, field, WT_I64);
	pb_need(p, 8);
	if (p->nomem)
		return;
	for (i = 0; i < 8; i++)
		p->b[p->n++] = (uint8_t)(v >> (8 * i));
}

static void pb_bytes(struct pbuf *p, unsigned int field, const void *s, size_t n)
{
	pb_tag(p, field, WT_LEN);
	pb_varint(p, n);
	pb_need(p, n);
	if (p->nomem)
		return;
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

/*
 * A string field: valid UTF-8, as protobuf's string type must be. Comms,
 * paths and symbols are bytes; one that is not valid UTF-8 has each bad
 * byte as U+FFFD, as the JSON writers give it (out/json_str.h).
 */
static void pb_str(struct pbuf *p, unsigned int field, const char *s)
{
	size_t n = strlen(s);
	char small[256], *fixed;

	if (st_utf8_valid(s, n)) {
		pb_bytes(p, field, s, n);
		return;
	}
	fixed = 3 * n <= sizeof(small) ? small : malloc(3 * n);
	if (!fixed) {
		p->nomem = true;
		return;
	}
	pb_bytes(p, field, fixed, st_utf8_repair(fixed, s, n));
	if (fixed != small)
		free(fixed);
}

/* A nested message: inner's bytes as field of p; inner is emptied. */
static void pb_msg(struct pbuf *p, unsigned int field, struct pbuf *inner)
{
	p->nomem |= inner->nomem;
	pb_bytes(p, field, inner->b, inner->n);
	inner->n = 0;
}

/* v at o, unchecked (10 bytes at most); returns the byte after it. */
static inline uint8_t *put_varint(uint8_t *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

/*
 * A nested message written in place: its tag and one byte for its length,
 * which most messages need (pb_close() moves the body up when not). Returns
 * where the body starts, for pb_close().
 */
static size_t pb_open(struct pbuf *p, unsigned int field)
{
	pb_tag(p, field, WT_LEN);
	pb_need(p, 1);
	if (p->nomem)
		return 0;
	p->b[p->n++] = 0;
	return p->n;
}

/* Ends the message whose body starts at at: its length, as a varint. */
static void pb_close(struct pbuf *p, size_t at)
{
	size_t len, k = 1;
	uint64_t v;

	if (p->nomem)
		return;
	len = p->n - at;
	if (len < 0x80) {
		p->b[at - 1] = (uint8_t)len;
		return;
	}
	for (v = len >> 7; v; v >>= 7)
		k++;
	pb_need(p, k - 1);
	if (p->nomem)
		return;
	memmove(p->b + at - 1 + k, p->b + at, len);
	put_varint(p->b + at - 1, len);
	p->n += k - 1;
}

/* ---- interning: strings to iids, per kind, sent once ---- */

enum intern_kind { IN_NAME, IN_ANNOT, IN_VALUE, IN_N };

struct istr {
	char *s;
	uint64_t hash;
	size_t len;
};

#define ICACHE 256

struct interner {
	struct istr *v;
	size_t n, cap;
	struct st_hidx idx;
	struct st_hcache recent;	/* by hash: a read log's strings move */
	/* By address: names are static, rows' strings pooled (checked all the same). */
	struct {
		const char *s;
		uint64_t iid;
	} cache[ICACHE];
	uint64_t last;		/* the iid asked last: a read log's strings move */
};

/* The string looked for, and its length. */
struct ikey {
	const char *s;
	size_t len;
};

static bool istr_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct istr *v = &((const struct interner *)ctx)->v[pos];
	const struct ikey *k = key;

	return v->len == k->len && !memcmp(v->s, k->s, k->len);
}

static uint64_t istr_hash(const void *ctx, uint32_t pos)
{
	return ((const struct interner *)ctx)->v[pos].hash;
}

/* s's hash, 8 bytes a step (n: its length); only the index sees it. */
static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ULL, x;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&x, s, 8);
		h = (h ^ x) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	x = 0;
	memcpy(&x, s, n);
	return st_hash_mix(h ^ x);
}

/* ---- the writer's state ---- */

/* The annotations' names, interned at their first use. */
enum annot {
	A_RET, A_ERRNO, A_ADDR, A_PATH, A_OFFSET, A_SYMBOL, A_PHASE, A_EARLY, A_SEQ,
	A_CHILD_PROC_ID, A_CHILD_PID, A_PROC_ID, A_PREV_ID, A_ARGV, A_ARGV_TRUNCATED, A_END,
	A_EXIT_CODE, A_EXIT_SIGNAL, A_SESSION_ID, A_DROPPED_EVENTS, A_ARG_PATH, A_N
};

static const char *const annot_names[A_N] = {
	[A_RET] = "ret",
	[A_ERRNO] = "errno",
	[A_ADDR] = "addr",
	[A_PATH] = "path",
	[A_OFFSET] = "offset",
	[A_SYMBOL] = "symbol",
	[A_PHASE] = "phase",
	[A_EARLY] = "early",
	[A_SEQ] = "seq",
	[A_CHILD_PROC_ID] = "child_proc_id",
	[A_CHILD_PID] = "child_pid",
	[A_PROC_ID] = "proc_id",
	[A_PREV_ID] = "prev_id",
	[A_ARGV] = "argv",
	[A_ARGV_TRUNCATED] = "argv_truncated",
	[A_END] = "end",
	[A_EXIT_CODE] = "exit_code",
	[A_EXIT_SIGNAL] = "exit_signal",
	[A_SESSION_ID] = "session_id",
	[A_DROPPED_EVENTS] = "dropped_events",
	[A_ARG_PATH] = "arg_path",
};

/* An image (tid 0) or one of its threads: its track, and what is open. */
struct track {
	uint64_t proc_id;
	uint32_t tid;
	uint32_t threads;		/* image: its threads so far */
	bool described, seen, open, flow_in;
};

struct pending {
	uint64_t ts;
	uint64_t uuid;
};

/* Syscall names' iids by abi and number, below this number. */
#define SYS_IIDS 1024

#define RECENT 16
#define SYM_IIDS 128

struct perfetto {
	struct pbuf pkt, intern[IN_N], one;
	size_t pkt_at, ev_at;		/* where the packet's and its event's bodies start */
	struct interner in[IN_N];
	struct track *t;
	size_t n, cap;
	struct st_hidx idx;
	struct st_hcache cache;		/* the tracks in use */
	struct pending *heap;		/* slice ends, earliest first */
	size_t nheap, heap_cap;
	uint64_t last_ts;
	bool started;
	/* The iids of the syscalls' last two paths, latest first. */
	uint64_t mru_path[2];
	uint32_t sys_iid[__SYSTRACE_ABI_MAX][SYS_IIDS];	/* 0: not yet */
	uint64_t annot_iid[A_N], phase_iid[2];			/* 0: not yet */
	uint32_t sym_iid[SYM_IIDS];				/* 0: none */
	/*
	 * The tracks of the threads seen last, described: a look-up in the
	 * index costs three hashes. thr is never 0 (track 0 is an image's).
	 */
	struct {
		uint64_t proc_id;
		uint32_t tid, img, thr;
	} recent[RECENT];
};

static bool track_eq(const void *ctx, uint32_t pos, const void *key)
{
	const struct track *t = &((const struct perfetto *)ctx)->t[pos];
	const struct track *k = key;

	return t->proc_id == k->proc_id && t->tid == k->tid;
}

static uint64_t track_hash(const void *ctx, uint32_t pos)
{
	const struct track *t = &((const struct perfetto *)ctx)->t[pos];

	return st_hash3(t->proc_id, t->tid, 1);
}

static int64_t track_find(struct perfetto *P, uint64_t proc_id, uint32_t tid)
{
	struct track k = { .proc_id = proc_id, .tid = tid };

	return st_hidx_find_c(&P->idx, &P->cache, st_hash3(proc_id, tid, 1), track_eq, P, &k);
}

static int64_t track_add(struct perfetto *P, uint64_t proc_id, uint32_t tid)
{
	if (P->n == P->cap) {
		size_t cap = P->cap ? 2 * P->cap : 1024;
		struct track *p = realloc(P->t, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		P->t = p;
		P->cap = cap;
	}
	P->t[P->n] = (struct track){ .proc_id = proc_id, .tid = tid };
	if (st_hidx_add(&P->idx, st_hash3(proc_id, tid, 1), (uint32_t)P->n,
			track_hash, P))
		return -ENOMEM;
	return (int64_t)P->n++;
}

/* Track uuids: an image's is its proc_id << 24, its threads' follow it. */
static uint64_t image_uuid(uint64_t proc_id)
{
	return proc_id << 24;
}

/* The iid of s, its first use queued in P->intern[k]; 0 when out of memory. */
static uint64_t intern(struct perfetto *P, enum intern_kind k, const char *s)
{
	struct interner *in = &P->in[k];
	size_t slot = ((uintptr_t)s >> 3) & (ICACHE - 1);
	struct ikey key;
	uint64_t h;
	int64_t pos;
	struct pbuf *e = &P->one;

	/* The same address and the same string: most names and values. */
	if (in->cache[slot].s == s && !strcmp(in->v[in->cache[slot].iid - 1].s, s))
		return in->cache[slot].iid;
	if (in->last && !strcmp(in->v[in->last - 1].s, s))
		return in->last;
	key.s = s;
	key.len = strlen(s);
	h = str_hash(s, key.len);
	pos = st_hidx_find_c(&in->idx, &in->recent, h, istr_eq, in, &key);
	if (pos >= 0) {
		in->cache[slot].s = s;
		in->cache[slot].iid = (uint64_t)pos + 1;
		in->last = (uint64_t)pos + 1;
		return (uint64_t)pos + 1;
	}
	if (in->n == in->cap) {
		size_t cap = in->cap ? 2 * in->cap : 256;
		struct istr *v = realloc(in->v, cap * sizeof(*v));

		if (!v)
			goto nomem;
		in->v = v;
		in->cap = cap;
	}
	in->v[in->n].s = strdup(s);
	in->v[in->n].hash = h;
	in->v[in->n].len = key.len;
	if (!in->v[in->n].s)
		goto nomem;
	if (st_hidx_add(&in->idx, h, (uint32_t)in->n, istr_hash, in)) {
		free(in->v[in->n].s);
		goto nomem;
	}
	in->n++;
	in->cache[slot].s = s;
	in->cache[slot].iid = in->last = in->n;
	pb_uint(e, INTERNED_IID, in->n);
	pb_str(e, INTERNED_NAME, s);
	pb_msg(&P->intern[k], k == IN_NAME ? ID_EVENT_NAMES :
	       k == IN_ANNOT ? ID_DEBUG_ANNOTATION_NAMES : ID_DEBUG_ANNOTATION_STRING_VALUES, e);
	return in->n;
nomem:
	P->pkt.nomem = true;	/* the event fails: no iid 0 in the trace */
	return 0;
}

/*
 * As intern(), for a string literal: an entry of the cache by address was
 * made from that literal (no other string has its address), so no strcmp.
 */
static uint64_t intern_lit(struct perfetto *P, enum intern_kind k, const char *lit)
{
	struct interner *in = &P->in[k];
	size_t slot = ((uintptr_t)lit >> 3) & (ICACHE - 1);

	if (in->cache[slot].s == lit)
		return in->cache[slot].iid;
	return intern(P, k, lit);
}

/*
 * As intern(), for a string that comes back often: a read log's paths and
 * symbols are at a new address each event, but mostly one of the last two
 * (ld.so's and libc's): compared first, before a hash of the whole string.
 */
static uint64_t intern_mru(struct perfetto *P, enum intern_kind k, const char *s,
			   uint64_t mru[2])
{
	struct interner *in = &P->in[k];
	uint64_t iid;

	if (mru[0] && !strcmp(in->v[mru[0] - 1].s, s))
		return mru[0];
	if (mru[1] && !strcmp(in->v[mru[1] - 1].s, s)) {
		iid = mru[1];
	} else {
		iid = intern(P, k, s);
		if (!iid)
			return 0;
	}
	mru[1] = mru[0];
	mru[0] = iid;
	return iid;
}

/*
 * As intern(), for a syscall's symbol: one of a few tens, at a new address
 * each event of a read log, and not the one before (two MRU entries missed
 * most of them). Kept by length and three of its bytes, checked whole.
 */
static uint64_t intern_sym(struct perfetto *P, const char *s)
{
	struct interner *in = &P->in[IN_VALUE];
	size_t n = strlen(s);
	const unsigned char *u = (const unsigned char *)s;
	uint32_t *slot, iid;

	slot = &P->sym_iid[(n * 31 + (n ? u[0] * 7u + u[n - 1] * 131u + u[n / 2] * 17u : 0)) &
			   (SYM_IIDS - 1)];
	iid = *slot;
	if (iid && in->v[iid - 1].len == n && !memcmp(in->v[iid - 1].s, s, n))
		return iid;
	iid = (uint32_t)intern(P, IN_VALUE, s);
	if (iid)
		*slot = iid;
	return iid;
}

/*
 * A packet is written in P->pkt as it is sent, Trace.packet's tag first,
 * each nested message's length set when it ends; what it interned goes
 * last, as before.
 */
static void packet_begin(struct perfetto *P)
{
	P->pkt.n = 0;
	P->pkt_at = pb_open(&P->pkt, TRACE_PACKET);
}

/* Ends the packet in P->pkt (with what it interned) and sends it. */
static void packet_out(struct st_log_writer *w, struct perfetto *P)
{
	struct pbuf *p = &P->pkt;
	size_t i, at = 0;
	bool interned = false;

	for (i = 0; i < IN_N; i++)
		if (P->intern[i].n) {
			if (!interned)
				at = pb_open(p, TP_INTERNED_DATA);
			interned = true;
			p->nomem |= P->intern[i].nomem;
			pb_need(p, P->intern[i].n);
			if (!p->nomem) {
				memcpy(p->b + p->n, P->intern[i].b, P->intern[i].n);
				p->n += P->intern[i].n;
			}
			P->intern[i].n = 0;
		}
	if (interned)
		pb_close(p, at);
	pb_close(p, P->pkt_at);
	if (!p->nomem)
		st_obuf_put(&w->o, p->b, p->n);
	p->n = 0;
}

/* What a track describes: a process (an image), a thread, or neither. */
enum desc_kind { D_PLAIN, D_PROCESS, D_THREAD };

struct desc {
	enum desc_kind kind;
	uint64_t uuid, parent;		/* parent: 0 for none */
	const char *name, *comm;	/* comm: the process's or thread's name */
	uint32_t pid, tid;
	uint64_t start_ns;		/* a process's start when known, else 0 */
};

/*
 * A track's descriptor: a process's has a ProcessDescriptor (with its
 * start, which trace_processor keeps as the process's start_ts), a
 * thread's a ThreadDescriptor, which makes it that thread's track.
 */
static void descriptor(struct st_log_writer *w, struct perfetto *P, const struct desc *t)
{
	struct pbuf *p = &P->pkt;
	size_t d, sub;

	packet_begin(P);
	pb_uint(p, TP_SEQUENCE_ID, SEQUENCE);
	d = pb_open(p, TP_TRACK_DESCRIPTOR);
	pb_uint(p, TD_UUID, t->uuid);
	if (t->parent)
		pb_uint(p, TD_PARENT_UUID, t->parent);
	pb_str(p, TD_NAME, t->name);
	if (t->kind == D_PROCESS) {
		sub = pb_open(p, TD_PROCESS);
		pb_int(p, PD_PID, (int32_t)t->pid);
		pb_str(p, PD_PROCESS_NAME, t->comm);
		if (t->start_ns)
			pb_int(p, PD_START_TIMESTAMP_NS, (int64_t)t->start_ns);
		pb_close(p, sub);
	} else if (t->kind == D_THREAD) {
		sub = pb_open(p, TD_THREAD);
		pb_int(p, THD_PID, (int32_t)t->pid);
		pb_int(p, THD_TID, (int32_t)t->tid);
		pb_str(p, THD_THREAD_NAME, t->comm);
		pb_close(p, sub);
	}
	pb_close(p, d);
	packet_out(w, P);
}

/*
 * A track event's packet, begun: its head (time and sequence, and the
 * interned state it needs) and the event's tag. Flow ids and annotations
 * follow, then track_event() ends it.
 */
static void event_begin(struct perfetto *P, uint64_t ts)
{
	struct pbuf *p = &P->pkt;
	uint8_t *o;

	packet_begin(P);
	pb_need(p, 32);
	if (p->nomem)
		return;
	o = p->b + p->n;
	*o++ = TP_TIMESTAMP << 3 | WT_VARINT;
	o = put_varint(o, ts);
	*o++ = TP_SEQUENCE_ID << 3 | WT_VARINT;
	*o++ = SEQUENCE;
	*o++ = TP_SEQUENCE_FLAGS << 3 | WT_VARINT;
	*o++ = SEQ_NEEDS_INCREMENTAL_STATE;
	*o++ = TP_TRACK_EVENT << 3 | WT_LEN;
	*o++ = 0;
	p->n = (size_t)(o - p->b);
	P->ev_at = p->n;
}

/* The event begun by event_begin(): its type, track and name, sent. */
static void track_event(struct st_log_writer *w, struct perfetto *P,
			uint64_t ts, uint64_t uuid, int type, uint64_t name_iid)
{
	struct pbuf *p = &P->pkt;
	uint8_t *o;

	pb_need(p, 32);
	if (!p->nomem) {
		o = p->b + p->n;
		*o++ = TE_TYPE << 3 | WT_VARINT;
		*o++ = (uint8_t)type;
		*o++ = TE_TRACK_UUID << 3 | WT_VARINT;
		o = put_varint(o, uuid);
		if (name_iid) {
			*o++ = TE_NAME_IID << 3 | WT_VARINT;
			o = put_varint(o, name_iid);
		}
		p->n = (size_t)(o - p->b);
		pb_close(p, P->ev_at);
	}
	packet_out(w, P);
	if (ts > P->last_ts)
		P->last_ts = ts;
}

/* An event with no flow and no annotation. */
static void track_event_only(struct st_log_writer *w, struct perfetto *P,
			     uint64_t ts, uint64_t uuid, int type, uint64_t name_iid)
{
	event_begin(P, ts);
	track_event(w, P, ts, uuid, type, name_iid);
}

/*
 * An annotation of the event being built: its name's iid and a varint
 * value of field kind (a number, or a string's iid). 24 bytes at most:
 * its length fits a byte.
 */
/* The iid of annotation name a. */
static uint64_t annot_iid(struct perfetto *P, enum annot a)
{
	if (!P->annot_iid[a])
		P->annot_iid[a] = intern(P, IN_ANNOT, annot_names[a]);
	return P->annot_iid[a];
}

/* Inline: kind is a constant at each call, and a syscall makes seven. */
static inline __attribute__((always_inline))
void annot_varint(struct perfetto *P, enum annot a, unsigned int kind, uint64_t v)
{
	uint64_t iid = annot_iid(P, a);
	struct pbuf *p = &P->pkt;
	uint8_t *o, *body;

	if (p->n + 32 > p->cap) {
		pb_need(p, 32);
		if (p->nomem)
			return;
	}
	o = p->b + p->n;
	*o = TE_DEBUG_ANNOTATIONS << 3 | WT_LEN;
	body = o + 2;
	o = body;
	*o++ = DA_NAME_IID << 3 | WT_VARINT;
	o = put_varint(o, iid);
	o = put_varint(o, (uint64_t)kind << 3 | WT_VARINT);
	o = put_varint(o, v);
	body[-1] = (uint8_t)(o - body);
	p->n = (size_t)(o - p->b);
}

static inline void annot_uint(struct perfetto *P, enum annot a, unsigned int kind,
			      uint64_t v)
{
	annot_varint(P, a, kind, v);
}

static void annot_str(struct perfetto *P, enum annot a, const char *v)
{
	annot_varint(P, a, DA_STRING_IID, intern(P, IN_VALUE, v));
}

/* A string said once (an exec's command line): not interned. */
static void annot_text(struct perfetto *P, enum annot a, const char *v)
{
	uint64_t iid = annot_iid(P, a);
	struct pbuf *p = &P->pkt;
	size_t at = pb_open(p, TE_DEBUG_ANNOTATIONS);

	pb_uint(p, DA_NAME_IID, iid);
	pb_str(p, DA_STRING, v);
	pb_close(p, at);
}

/* As annot_str(), v one of the strings mru[] keeps. */
static void annot_mru(struct perfetto *P, enum annot a, const char *v, uint64_t mru[2])
{
	annot_varint(P, a, DA_STRING_IID, intern_mru(P, IN_VALUE, v, mru));
}

/*
 * A slice's end: as track_event_only() gives it, made on the stack (one
 * for each syscall: the most common packet but one). Nothing is interned
 * between packets, so none carries interned data.
 */
static void slice_end(struct st_log_writer *w, struct perfetto *P, uint64_t ts, uint64_t uuid)
{
	uint8_t b[48], *o = b + 2, *ev;
	size_t i;

	for (i = 0; i < IN_N; i++)
		if (P->intern[i].n) {
			track_event_only(w, P, ts, uuid, TYPE_SLICE_END, 0);
			return;
		}
	*o++ = TP_TIMESTAMP << 3 | WT_VARINT;
	o = put_varint(o, ts);
	*o++ = TP_SEQUENCE_ID << 3 | WT_VARINT;
	*o++ = SEQUENCE;
	*o++ = TP_SEQUENCE_FLAGS << 3 | WT_VARINT;
	*o++ = SEQ_NEEDS_INCREMENTAL_STATE;
	*o++ = TP_TRACK_EVENT << 3 | WT_LEN;
	ev = o++;
	*o++ = TE_TYPE << 3 | WT_VARINT;
	*o++ = TYPE_SLICE_END;
	*o++ = TE_TRACK_UUID << 3 | WT_VARINT;
	o = put_varint(o, uuid);
	*ev = (uint8_t)(o - ev - 1);
	b[0] = TRACE_PACKET << 3 | WT_LEN;
	b[1] = (uint8_t)(o - b - 2);
	st_obuf_put(&w->o, b, (size_t)(o - b));
	if (ts > P->last_ts)
		P->last_ts = ts;
}

/* ---- slice ends, in time order ---- */

static bool heap_less(const struct pending *a, const struct pending *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->uuid < b->uuid);
}

static int heap_push(struct perfetto *P, uint64_t ts, uint64_t uuid)
{
	size_t i;

	if (P->nheap == P->heap_cap) {
		size_t cap = P->heap_cap ? 2 * P->heap_cap : 256;
		struct pending *h = realloc(P->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		P->heap = h;
		P->heap_cap = cap;
	}
	i = P->nheap++;
	P->heap[i] = (struct pending){ ts, uuid };
	while (i && heap_less(&P->heap[i], &P->heap[(i - 1) / 2])) {
		struct pending t = P->heap[i];

		P->heap[i] = P->heap[(i - 1) / 2];
		P->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static struct pending heap_pop(struct perfetto *P)
{
	struct pending top = P->heap[0];
	size_t i = 0;

	P->heap[0] = P->heap[--P->nheap];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct pending t;

		if (l < P->nheap && heap_less(&P->heap[l], &P->heap[m]))
			m = l;
		if (l + 1 < P->nheap && heap_less(&P->heap[l + 1], &P->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		t = P->heap[i];
		P->heap[i] = P->heap[m];
		P->heap[m] = t;
		i = m;
	}
	return top;
}

/* Every slice end at or before ts. */
static void ends_until(struct st_log_writer *w, struct perfetto *P, uint64_t ts)
{
	while (P->nheap && P->heap[0].ts <= ts) {
		struct pending e = heap_pop(P);

		slice_end(w, P, e.ts, e.uuid);
	}
}

/* ---- events ---- */

static const char *comm_of(const struct st_event *e)
{
	return e->proc ? e->proc->comm : "?";
}

static uint32_t ev_tid(const struct st_event *e)
{
	return e->tid ? e->tid : e->pid;
}

/*
 * The track of image proc_id, described and its lifetime begun at ts (its
 * exec, or its parent's fork: a child is named by the comm it inherits);
 * the lifetime of the image it replaced by exec ends there. started: ts
 * is the image's start (its exec or fork), its descriptor's
 * start_timestamp_ns; not when its first event is a later one.
 */
static int64_t describe_image(struct st_log_writer *w, struct perfetto *P,
			      uint64_t proc_id, uint32_t pid, const char *comm,
			      uint64_t prev_id, uint64_t ts, bool started)
{
	char name[SYSTRACE_COMM_MAX + 32];
	int64_t i = track_find(P, proc_id, 0), prev;

	if (i < 0)
		i = track_add(P, proc_id, 0);
	if (i < 0 || P->t[i].described)
		return i;
	P->t[i].described = true;
	if (prev_id && (prev = track_find(P, prev_id, 0)) >= 0 && P->t[prev].open) {
		P->t[prev].open = false;
		track_event_only(w, P, ts, image_uuid(prev_id), TYPE_SLICE_END, 0);
	}
	snprintf(name, sizeof(name), "%s %" PRIu32, comm, pid);
	descriptor(w, P, &(struct desc){ .kind = D_PROCESS, .uuid = image_uuid(proc_id),
					 .name = name, .comm = comm, .pid = pid,
					 .start_ns = started ? ts : 0 });
	P->t[i].open = true;
	track_event_only(w, P, ts, image_uuid(proc_id), TYPE_SLICE_BEGIN,
			 intern(P, IN_NAME, comm));
	return i;
}

static int64_t thread_track(struct st_log_writer *w, struct perfetto *P,
			    const struct st_event *e, int64_t img)
{
	char name[SYSTRACE_COMM_MAX + 32];
	uint32_t tid = ev_tid(e);
	int64_t i = track_find(P, e->proc_id, tid);
	uint32_t nth;

	if (i >= 0)
		return i;
	nth = ++P->t[img].threads;
	i = track_add(P, e->proc_id, tid);
	if (i < 0)
		return i;
	P->t[i].threads = nth;
	snprintf(name, sizeof(name), "%s %" PRIu32, comm_of(e), tid);
	descriptor(w, P, &(struct desc){ .kind = D_THREAD, .uuid = image_uuid(e->proc_id) + nth,
					 .parent = image_uuid(e->proc_id), .name = name,
					 .comm = comm_of(e), .pid = e->proc ? e->proc->pid : e->pid,
					 .tid = tid });
	return i;
}

static const char *phase_name(enum st_phase ph)
{
	return ph == ST_PHASE_LOADER ? "loader" :
	       ph == ST_PHASE_PROGRAM ? "program" : NULL;
}

/* The iid of e's syscall's name (syscall_NR when it has none). */
static uint64_t syscall_iid(struct perfetto *P, const struct st_event *e)
{
	const char *name;
	char other[32];
	uint64_t iid;

	if (e->abi < __SYSTRACE_ABI_MAX && e->nr < SYS_IIDS && P->sys_iid[e->abi][e->nr])
		return P->sys_iid[e->abi][e->nr];
	name = st_syscall_name(e->abi, e->nr);
	if (!name) {
		snprintf(other, sizeof(other), "syscall_%" PRIu32, e->nr);
		name = other;
	}
	iid = intern(P, IN_NAME, name);
	if (e->abi < __SYSTRACE_ABI_MAX && e->nr < SYS_IIDS)
		P->sys_iid[e->abi][e->nr] = (uint32_t)iid;
	return iid;
}

static void syscall_annots(struct perfetto *P, const struct st_event *e)
{
	const struct st_ev_site *s = e->site;

	annot_uint(P, A_RET, DA_INT, (uint64_t)e->ret);
	if (st_ret_is_error(e->ret))
		annot_uint(P, A_ERRNO, DA_UINT, (uint64_t)-e->ret);
	annot_uint(P, A_ADDR, DA_POINTER, e->addr);
	if (s && s->map == SYSTRACE_MAP_FILE && s->path) {
		annot_mru(P, A_PATH, s->path, P->mru_path);
		annot_uint(P, A_OFFSET, DA_POINTER, s->offset);
	}
	if (s && s->sym && s->sym->symbol)
		annot_varint(P, A_SYMBOL, DA_STRING_IID, intern_sym(P, s->sym->symbol));
	/* A path row's: as many strings as the session's path rows. */
	if (e->arg_path)
		annot_str(P, A_ARG_PATH, e->arg_path);
	if (phase_name(e->phase)) {
		uint64_t *iid = &P->phase_iid[e->phase == ST_PHASE_PROGRAM];

		if (!*iid)
			*iid = intern(P, IN_VALUE, phase_name(e->phase));
		annot_varint(P, A_PHASE, DA_STRING_IID, *iid);
	}
	if (e->early)
		annot_uint(P, A_EARLY, DA_BOOL, 1);
	annot_uint(P, A_SEQ, DA_UINT, e->seq);
}

static int process_annots(struct perfetto *P, const struct st_event *e)
{
	const struct st_proc_row *p = e->proc;
	char *cmdline;

	if (e->kind == ST_EV_FORK) {
		annot_uint(P, A_CHILD_PROC_ID, DA_UINT, e->child_proc_id);
		annot_uint(P, A_CHILD_PID, DA_UINT, e->child_pid);
	} else if (e->kind == ST_EV_EXEC) {
		annot_uint(P, A_PROC_ID, DA_UINT, e->proc_id);
		if (p && p->prev_id)
			annot_uint(P, A_PREV_ID, DA_UINT, p->prev_id);
		if (p && p->exe)
			annot_str(P, A_PATH, p->exe);
		if (p && p->argv) {
			/* The command line (argv.h): valid UTF-8 whatever argv is. */
			cmdline = st_argv_shell_str(p->argv, p->argv_len);
			if (!cmdline)
				return -ENOMEM;
			annot_text(P, A_ARGV, cmdline);
			free(cmdline);
			annot_uint(P, A_ARGV_TRUNCATED, DA_BOOL, p->argv_truncated);
		}
	} else {
		annot_str(P, A_END, p && st_end_name(p->end) ? st_end_name(p->end) : "unknown");
		if (p && p->has_exit_code)
			annot_uint(P, A_EXIT_CODE, DA_UINT, p->exit_code);
		if (p && p->has_exit_signal)
			annot_uint(P, A_EXIT_SIGNAL, DA_UINT, p->exit_signal);
	}
	return 0;
}

static int start(struct st_log_writer *w, struct perfetto *P, uint64_t ts)
{
	/* The sequence's first packet clears its interned state. */
	packet_begin(P);
	pb_uint(&P->pkt, TP_SEQUENCE_ID, SEQUENCE);
	pb_uint(&P->pkt, TP_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	packet_out(w, P);
	descriptor(w, P, &(struct desc){ .kind = D_PLAIN, .uuid = 1, .name = "systrace log" });
	event_begin(P, ts);
	annot_uint(P, A_SESSION_ID, DA_UINT, w->meta.session_id);
	annot_uint(P, A_DROPPED_EVENTS, DA_UINT, w->meta.dropped_events);
	track_event(w, P, ts, 1, TYPE_INSTANT, intern(P, IN_NAME, "log"));
	P->started = true;
	return 0;
}

static int perfetto_event(struct st_log_writer *w, const struct st_event *e)
{
	static const char *const names[] = {
		[ST_EV_FORK] = "fork", [ST_EV_EXEC] = "exec", [ST_EV_EXIT] = "exit",
	};
	struct perfetto *P = w->priv;
	int64_t img, thr;
	uint64_t uuid;
	bool first;
	typeof(P->recent[0]) *recent;

	if (!P) {
		P = w->priv = calloc(1, sizeof(*P));
		if (!P)
			return -ENOMEM;
	}
	if (!P->started)
		start(w, P, e->ts_ns);
	ends_until(w, P, e->ts_ns);
	recent = &P->recent[(e->proc_id ^ (uint64_t)ev_tid(e) << 4) & (RECENT - 1)];
	if (recent->thr && recent->proc_id == e->proc_id && recent->tid == ev_tid(e)) {
		img = recent->img;
		thr = recent->thr;
	} else {
		img = describe_image(w, P, e->proc_id, e->proc ? e->proc->pid : e->pid,
				     comm_of(e), e->proc ? e->proc->prev_id : 0, e->ts_ns,
				     e->kind == ST_EV_EXEC);
		if (img < 0)
			return -ENOMEM;
		thr = thread_track(w, P, e, img);
		if (thr < 0)
			return -ENOMEM;
		*recent = (typeof(*recent)){ e->proc_id, ev_tid(e), (uint32_t)img, (uint32_t)thr };
	}
	first = !P->t[img].seen;
	P->t[img].seen = true;
	uuid = image_uuid(e->proc_id) + P->t[thr].threads;
	event_begin(P, e->ts_ns);
	if (first && P->t[img].flow_in) {
		pb_fixed64(&P->pkt, TE_TERMINATING_FLOW_IDS, e->proc_id);
	} else if (first && e->kind == ST_EV_EXEC && e->proc && e->proc->prev_id) {
		/* A fork's child that made no call before its exec. */
		int64_t prev = track_find(P, e->proc->prev_id, 0);

		if (prev >= 0 && P->t[prev].flow_in && !P->t[prev].seen) {
			P->t[prev].seen = true;
			pb_fixed64(&P->pkt, TE_TERMINATING_FLOW_IDS, e->proc->prev_id);
		}
	}
	if (e->kind == ST_EV_SYSCALL) {
		syscall_annots(P, e);
		track_event(w, P, e->ts_ns, uuid, TYPE_SLICE_BEGIN, syscall_iid(P, e));
		if (heap_push(P, e->ts_ns + e->dur_ns, uuid))
			return -ENOMEM;
	} else {
		if (e->kind == ST_EV_FORK) {
			int64_t child = track_find(P, e->child_proc_id, 0);

			/* Only a child whose first event is still to come. */
			if (child < 0 || !P->t[child].seen)
				pb_fixed64(&P->pkt, TE_FLOW_IDS, e->child_proc_id);
		}
		if (process_annots(P, e))
			return -ENOMEM;
		track_event(w, P, e->ts_ns, uuid, TYPE_INSTANT,
			    intern_lit(P, IN_NAME, names[e->kind]));
		if (e->kind == ST_EV_FORK) {
			int64_t child = describe_image(w, P, e->child_proc_id, e->child_pid,
						       comm_of(e), 0, e->ts_ns, true);

			if (child < 0)
				return -ENOMEM;
			P->t[child].flow_in = !P->t[child].seen;
			img = track_find(P, e->proc_id, 0);
		}
		if (e->kind == ST_EV_EXIT && P->t[img].open) {
			P->t[img].open = false;
			track_event_only(w, P, e->ts_ns, image_uuid(e->proc_id), TYPE_SLICE_END, 0);
		}
	}
	if (P->pkt.nomem || P->one.nomem)
		return -ENOMEM;
	return 0;
}

/* What is still open ends with the log's last event. */
static int perfetto_end(struct st_log_writer *w)
{
	struct perfetto *P = w->priv;
	size_t i;

	if (!P)
		return 0;
	ends_until(w, P, UINT64_MAX);
	for (i = 0; i < P->n; i++)
		if (!P->t[i].tid && P->t[i].open) {
			P->t[i].open = false;
			track_event_only(w, P, P->last_ts, image_uuid(P->t[i].proc_id),
					 TYPE_SLICE_END, 0);
		}
	return P->pkt.nomem ? -ENOMEM : 0;
}

static void pbuf_free(struct pbuf *p)
{
	free(p->b);
}

static void perfetto_free(struct st_log_writer *w)
{
	struct perfetto *P = w->priv;
	size_t i, k;

	if (!P)
		return;
	pbuf_free(&P->pkt);
	pbuf_free(&P->one);
	for (k = 0; k < IN_N; k++) {
		pbuf_free(&P->intern[k]);
		for (i = 0; i < P->in[k].n; i++)
			free(P->in[k].v[i].s);
		free(P->in[k].v);
		st_hidx_free(&P->in[k].idx);
	}
	st_hidx_free(&P->idx);
	free(P->t);
	free(P->heap);
	free(P);
}

const struct st_log_writer_ops st_log_perfetto_ops = {
	.event = perfetto_event, .end = perfetto_end, .free = perfetto_free,
};
