// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend's programs: one set for every session, as the module's
 * one set of probes. A traced task's storage (`st_tasks`) names its
 * session (slot and id); the session's slot in `st_sessions` holds what
 * it asked for and its counters, and the arrays of maps hold its data
 * maps at the same slot: process rows (key: their id), site rows (key:
 * image id, address, nr, abi), file paths, log rings, perf counters.
 * systracectl makes those per session, sized from max_procs and
 * max_sites. A task whose session was deleted (its slot freed or reused)
 * is let go at its next event.
 *
 * Nothing here trusts the traced program: every read of its state goes
 * through the helpers, every loop is bounded, and a full map, a refused
 * allocation or max_mem reached is counted in the session's dropped_*
 * counters.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "systrace_bpf.h"
#include "errno_slots.h"
#include "file_calls.h"

char LICENSE[] SEC("license") = "GPL";

/* enum systrace_end, enum systrace_abi, enum systrace_map of the UAPI. */
#define END_RUNNING	0
#define END_EXITED	1
#define END_SIGNALED	2
#define END_EXEC	3
#define END_DETACHED	4
#define ABI_X64		0
#define ABI_IA32	1
#define ABI_X32		2
#define MAP_UNKNOWN	0
#define MAP_FILE	1
#define MAP_ANON	2
#define MAP_VDSO	3
#define MAP_VSYSCALL	4
#define F_TREE		(1U << 1)	/* SYSTRACE_SESSION_F_TREE */
#define F_THREADS_ONLY	(1U << 2)	/* SYSTRACE_SESSION_F_THREADS_ONLY */

#define X32_SYSCALL_BIT		0x40000000
#define TS_COMPAT		0x0002
#define SIGNAL_GROUP_EXIT	0x00000004
#define PF_EXITING		0x00000004
#define PF_KTHREAD		0x00200000
#define VSYSCALL_ADDR		0xffffffffff600000UL
#define MAX_ERRNO		4095
#define E2BIG			7
#define EEXIST			17
#define ENOENT			2
#define EBUSY			16
#define PIDTYPE_TGID		1
#define ANCESTRY_DEPTH		64
/* Execs of one process between attach's passes whose rows the link pass reaches. */
#define EXEC_LINK_DEPTH		16

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct stb_task);
} st_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, STB_MAX_SESSIONS);
	__type(key, __u32);
	__type(value, struct stb_sess);
} st_sessions SEC(".maps");

/* The inner maps' shapes; systracectl makes each session's own. */
struct procs_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, sizeof(struct stb_proc));
};

struct sites_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct stb_site_key));
	__uint(value_size, sizeof(struct stb_site));
};

struct files_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct stb_file_key));
	__uint(value_size, sizeof(struct stb_file));
};

struct paths_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct stb_path_key));
	__uint(value_size, sizeof(__u64));
};

struct ring_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct argv_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(struct stb_argv_key));
	__uint(value_size, STB_ARGV_CHUNK);
};

struct counters_map {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, STB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct procs_map);
} st_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, STB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct sites_map);
} st_sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, STB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct files_map);
} st_files SEC(".maps");

/* The paths of file calls and their counts (struct stb_path_key). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, STB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct paths_map);
} st_paths SEC(".maps");

/* The images' argv, in chunks (struct stb_argv_key). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, STB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct argv_map);
} st_argv SEC(".maps");

/*
 * The temporal log: one ring per possible CPU for each session with a
 * log, at slot * log_ncpus + CPU (systracectl sizes this array to
 * STB_MAX_SESSIONS times the possible CPUs).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, STB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct ring_map);
} st_logs SEC(".maps");

/* A page per session: its slot, when its last traced task is gone. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, STB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct ring_map);
} st_notify SEC(".maps");

/* One perf event per CPU for each session that counts (its keeper's). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, STB_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct counters_map);
} st_counters SEC(".maps");

/* Room to build a path, a row or an argv outside the 512-byte stack. */
struct scratch {
	struct stb_file file;
	struct stb_proc proc;
	struct stb_path_key path;
	char argv[STB_ARGV_CHUNKS * STB_ARGV_CHUNK];	/* head, then the bytes */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} st_scratch SEC(".maps");

/* The attach iterator's rows: process (initial pid namespace) to row id, 0 when refused. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} st_attach_rows SEC(".maps");

/* What the attach iterator does, set by its runner before each pass. */
struct stb_job job;

/* The inode's mtime moved between kernels: 6.1 has a timespec64, 6.6 renamed it, 6.11 split it. */
struct inode___v61 {
	struct timespec64 i_mtime;
} __attribute__((preserve_access_index));

struct inode___v66 {
	struct timespec64 __i_mtime;
} __attribute__((preserve_access_index));

struct inode___v611 {
	time64_t i_mtime_sec;
	u32 i_mtime_nsec;
} __attribute__((preserve_access_index));

static __always_inline void stat_inc(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

/*
 * bpf_map_update_elem() as an errno. On 6.1 the verifier calls a hash
 * map's update directly, and its int return came back zero-extended:
 * -EEXIST read 4294967279, so a lost race with a sibling thread that made
 * the same site first counted as a drop. The low 32 bits are the errno on
 * every kernel.
 */
static __always_inline long map_insert(void *map, const void *key, const void *value)
{
	return (int)bpf_map_update_elem(map, key, value, BPF_NOEXIST);
}

/* A row refused by its map: a full map is a limit, anything else memory. */
static __always_inline void drop(struct stb_sess *s, __u64 *counter, long err)
{
	stat_inc(counter);
	if (err != -E2BIG)
		stat_inc(&s->m.dropped_nomem);
}

/* Counts @cost bytes against the session's max_mem: false (a drop) past it. */
static __always_inline bool mem_charge(struct stb_sess *s, __u64 cost)
{
	if (__sync_fetch_and_add(&s->m.mem_bytes, cost) + cost <= s->max_mem)
		return true;
	__sync_fetch_and_add(&s->m.mem_bytes, -cost);
	stat_inc(&s->m.dropped_nomem);
	return false;
}

static __always_inline void mem_uncharge(struct stb_sess *s, __u64 cost)
{
	__sync_fetch_and_add(&s->m.mem_bytes, -cost);
}

/*
 * The session of @t while it is followed, or NULL. A task whose session
 * is gone (its slot freed, or reused by another) is let go here; one of
 * a detached session is left to the detach iterator.
 */
static __always_inline struct stb_sess *sess_of(struct task_struct *task, struct stb_task *t)
{
	__u32 slot = t->slot;
	struct stb_sess *s = bpf_map_lookup_elem(&st_sessions, &slot);

	if (s && s->sid == t->sid)
		return s->state == STB_SESS_LIVE ? s : NULL;
	bpf_task_storage_delete(&st_tasks, task);
	return NULL;
}

/*
 * Whether @s is still @t's session after its data maps were looked up:
 * systracectl frees a slot (sid 0) before it puts another session's maps
 * there, so maps found before this check are the session's own.
 */
static __always_inline bool sess_still(struct stb_sess *s, struct stb_task *t)
{
	return *(volatile __u64 *)&s->sid == t->sid;
}

/* @pid's number in the pid namespace at @lvl whose inode is @inum; 0 when not there. */
static __always_inline __u32 pid_nr_ns(__u32 lvl, __u32 inum, struct pid *pid)
{
	unsigned int level;
	struct upid up;

	if (!pid)
		return 0;
	level = BPF_CORE_READ(pid, level);
	if (lvl > level || lvl > 32)
		return 0;
	if (bpf_probe_read_kernel(&up, sizeof(up),
				  (void *)pid + bpf_core_field_offset(struct pid, numbers) +
				  lvl * bpf_core_type_size(struct upid)))
		return 0;
	if (BPF_CORE_READ(up.ns, ns.inum) != inum)
		return 0;
	return up.nr;
}

static __always_inline __u32 pid_in_ns(struct stb_sess *s, struct pid *pid)
{
	return pid_nr_ns(s->pidns_level, s->pidns_inum, pid);
}

static __always_inline __u32 task_tgid_ns(struct stb_sess *s, struct task_struct *task)
{
	return pid_in_ns(s, BPF_CORE_READ(task, signal, pids[PIDTYPE_TGID]));
}

struct path_walk {
	struct stb_file *f;
	struct dentry *dentry;
	struct mount *mnt;
	__u32 pos;
	int ret;		/* 1 while walking, 0 done, -1 too deep or long */
};

/* One step of path_build(): a name, or a mount crossed. */
static long path_step(__u32 i, void *data)
{
	struct path_walk *w = data;
	struct dentry *dentry = w->dentry;
	struct mount *mnt = w->mnt;
	struct dentry *parent = BPF_CORE_READ(dentry, d_parent);
	struct dentry *root = BPF_CORE_READ(mnt, mnt.mnt_root);
	const unsigned char *name;
	__u32 len, pos = w->pos;

	if (dentry == root) {
		struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

		if (up == mnt) {
			w->ret = 0;
			return 1;
		}
		w->dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		return 0;
	}
	if (dentry == parent) {
		w->ret = 0;
		return 1;
	}
	len = BPF_CORE_READ(dentry, d_name.len);
	name = BPF_CORE_READ(dentry, d_name.name);
	if (len >= STB_NAME_MAX || len + 1 > pos) {
		w->ret = -1;
		return 1;
	}
	pos -= len;
	if (bpf_probe_read_kernel(w->f->buf + (pos & (STB_PATH_MAX - 1)),
				  len & (STB_NAME_MAX - 1), name)) {
		w->ret = -1;
		return 1;
	}
	pos--;
	w->f->buf[pos & (STB_PATH_MAX - 1)] = '/';
	w->pos = pos;
	w->dentry = parent;
	return 0;
}

/*
 * The path of @dentry in mount @vfsmnt, from the root of the mount tree,
 * written backwards into f->buf. Returns 0, or -1 when it is deeper or
 * longer than the buffer.
 */
static __always_inline int path_build(struct stb_file *f, struct dentry *dentry,
				      struct vfsmount *vfsmnt)
{
	struct path_walk w = {
		.f = f, .dentry = dentry, .pos = STB_PATH_MAX - 1, .ret = 1,
		.mnt = container_of(vfsmnt, struct mount, mnt),
	};

	f->buf[STB_PATH_MAX - 1] = 0;
	bpf_loop(STB_PATH_DEPTH, path_step, &w, 0);
	if (w.ret)
		return -1;
	if (w.pos == STB_PATH_MAX - 1) {
		w.pos--;
		f->buf[STB_PATH_MAX - 2] = '/';
	}
	f->off = w.pos;
	return 0;
}

/* The identity of @file, and its path in the session's files unless there already. */
static __always_inline bool file_intern(struct stb_sess *s, __u32 slot, struct file *file,
					struct stb_file_key *key)
{
	const __u64 cost = STB_ELEM_COST(sizeof(struct stb_file_key), sizeof(struct stb_file));
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	struct scratch *sc;
	__u32 zero = 0;
	void *files;
	long err;

	key->ino = BPF_CORE_READ(inode, i_ino);
	key->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	key->pad = 0;
	files = bpf_map_lookup_elem(&st_files, &slot);
	if (!files)
		return false;
	if (bpf_map_lookup_elem(files, key))
		return true;
	sc = bpf_map_lookup_elem(&st_scratch, &zero);
	if (!sc)
		return false;
	if (path_build(&sc->file, BPF_CORE_READ(file, f_path.dentry),
		       BPF_CORE_READ(file, f_path.mnt)))
		return false;
	if (!mem_charge(s, cost))
		return false;
	err = map_insert(files, key, &sc->file);
	if (err)
		mem_uncharge(s, cost);
	return !err || err == -EEXIST;
}

static __always_inline __u64 inode_mtime_ns(struct inode *inode)
{
	struct inode___v611 *i611 = (void *)inode;
	struct inode___v66 *i66 = (void *)inode;
	struct inode___v61 *i61 = (void *)inode;

	if (bpf_core_field_exists(i611->i_mtime_sec))
		return BPF_CORE_READ(i611, i_mtime_sec) * 1000000000ULL +
		       BPF_CORE_READ(i611, i_mtime_nsec);
	if (bpf_core_field_exists(i66->__i_mtime))
		return BPF_CORE_READ(i66, __i_mtime.tv_sec) * 1000000000ULL +
		       BPF_CORE_READ(i66, __i_mtime.tv_nsec);
	return BPF_CORE_READ(i61, i_mtime.tv_sec) * 1000000000ULL +
	       BPF_CORE_READ(i61, i_mtime.tv_nsec);
}

struct resolve_ctx {
	__u64 addr;
	struct stb_site *site;
	struct stb_sess *sess;
	__u32 slot;
};

static long resolve_vma(struct task_struct *task, struct vm_area_struct *vma,
			void *data)
{
	struct resolve_ctx *rc = data;
	struct stb_site *s = rc->site;
	struct file *file = vma->vm_file;
	__u64 start = vma->vm_start;

	if (!file) {
		s->offset = rc->addr;
		if ((__u64)BPF_CORE_READ(vma, vm_mm, context.vdso) == start)
			s->map = MAP_VDSO;
		else
			s->map = MAP_ANON;
		return 0;
	}
	s->map = MAP_FILE;
	s->offset = rc->addr - start + (vma->vm_pgoff << 12);
	s->has_path = file_intern(rc->sess, rc->slot, file, &s->file);
	/* Too deep, too long, `files` full or max_mem: a file site without a path. */
	if (!s->has_path)
		stat_inc(&rc->sess->m.dropped_resolve);
	s->mtime_ns = inode_mtime_ns(BPF_CORE_READ(file, f_inode));
	s->has_file_id = 1;
	return 0;
}

/*
 * The mapping of a site. Returns 0, or -EBUSY when the mmap lock was
 * busy (the site stays unknown for now), or another error (for good).
 */
static __always_inline long site_resolve(struct stb_sess *sess, __u32 slot,
					 struct task_struct *task, __u64 addr,
					 struct stb_site *s)
{
	struct resolve_ctx rc = { .addr = addr, .site = s, .sess = sess, .slot = slot };
	long ret;

	if ((addr & ~0xfffUL) == VSYSCALL_ADDR) {
		s->map = MAP_VSYSCALL;
		s->offset = addr;
		return 0;
	}
	ret = bpf_find_vma(task, addr, resolve_vma, &rc, 0);
	if (!ret && s->map == MAP_UNKNOWN)
		ret = -ENOENT;
	return ret;
}

/* Remembers @key for another try by a thread of its image @p; false when full. */
static __always_inline bool pending_add(struct stb_proc *p, struct stb_site_key *key)
{
	__u64 v = key->addr << 16 | (key->nr & 0xfff) << 4 | key->abi;
	int i;

	if (key->addr >> 47 || key->nr > 0xfff)
		return false;
	for (i = 0; i < STB_PENDING; i++) {
		if (!__sync_val_compare_and_swap(&p->pending[i], 0, v)) {
			__sync_fetch_and_add(&p->npending, 1);
			return true;
		}
	}
	return false;
}

/* Frees slot @i of @p if it still holds @v: true for the one caller that did. */
static __always_inline bool pending_take(struct stb_proc *p, int i, __u64 v)
{
	if (__sync_val_compare_and_swap(&p->pending[i], v, 0) != v)
		return false;
	__sync_fetch_and_add(&p->npending, -1);
	return true;
}

/* Another try at the sites of @p found with the mmap lock busy. */
static __always_inline void pending_retry(struct stb_sess *sess, __u32 slot, void *sites,
					  struct task_struct *task, struct stb_proc *p)
{
	struct stb_site_key key = { .proc_id = p->id };
	struct stb_site *site;
	long ret;
	__u64 v;
	int i;

	for (i = 0; i < STB_PENDING; i++) {
		v = p->pending[i];
		if (!v)
			continue;
		key.addr = v >> 16;
		key.nr = (v >> 4) & 0xfff;
		key.abi = v & 0xf;
		site = bpf_map_lookup_elem(sites, &key);
		ret = site ? site_resolve(sess, slot, task, key.addr, site) : -ENOENT;
		if (ret == -EBUSY || !pending_take(p, i, v))
			continue;
		stat_inc(ret ? &sess->m.dropped_resolve : &sess->m.late_resolves);
	}
}

/* The sites still pending when image @p ends stay unknown. */
static __always_inline void pending_drop(struct stb_sess *s, struct stb_proc *p)
{
	__u64 v;
	int i;

	for (i = 0; i < STB_PENDING; i++) {
		v = p->pending[i];
		if (v && pending_take(p, i, v))
			stat_inc(&s->m.dropped_resolve);
	}
}

/*
 * The site row of @key, made at its first hit. The image's row is looked
 * up only then: a known site costs one lookup.
 */
static __always_inline struct stb_site *site_get(struct stb_sess *s, __u32 slot, void *sites,
						 struct task_struct *task,
						 struct stb_site_key *key, __u64 now)
{
	const __u64 cost = STB_ELEM_COST(sizeof(struct stb_site_key), sizeof(struct stb_site));
	struct stb_site *site, v = {};
	struct stb_proc *p;
	void *procs;
	long err, res;

	site = bpf_map_lookup_elem(sites, key);
	if (site)
		return site;
	procs = bpf_map_lookup_elem(&st_procs, &slot);
	p = procs ? bpf_map_lookup_elem(procs, &key->proc_id) : NULL;
	if (!p)
		return NULL;
	if (s->m.sites >= s->max_sites) {
		stat_inc(&s->m.dropped_sites);
		return NULL;
	}
	if (!mem_charge(s, cost)) {
		stat_inc(&s->m.dropped_sites);
		return NULL;
	}
	v.first_ns = now;
	v.first_ordinal = p->syscalls;
	v.min_ns = ~0ULL;
	res = site_resolve(s, slot, task, key->addr, &v);
	err = map_insert(sites, key, &v);
	if (err) {
		mem_uncharge(s, cost);
		if (err != -EEXIST) {
			drop(s, &s->m.dropped_sites, err);
			return NULL;
		}
	} else {
		stat_inc(&s->m.sites);
		__sync_fetch_and_add(&p->sites, 1);
		if (res && (res != -EBUSY || !pending_add(p, key)))
			stat_inc(&s->m.dropped_resolve);
	}
	return bpf_map_lookup_elem(sites, key);
}

static __always_inline void update_min(__u64 *slot, __u64 d)
{
	__u64 old = *slot, prev;
	int i;

	for (i = 0; i < 8 && d < old; i++) {
		prev = __sync_val_compare_and_swap(slot, old, d);
		if (prev == old)
			break;
		old = prev;
	}
}

static __always_inline void update_max(__u64 *slot, __u64 d)
{
	__u64 old = *slot, prev;
	int i;

	for (i = 0; i < 8 && d > old; i++) {
		prev = __sync_val_compare_and_swap(slot, old, d);
		if (prev == old)
			break;
		old = prev;
	}
}

/*
 * Logs the call @t completes, with its image's ordinal @seq, into the ring
 * of this CPU. A full ring never makes the caller wait: the record is
 * counted in dropped_events instead.
 */
static __always_inline void log_syscall(struct stb_sess *s, struct stb_task *t,
					struct stb_proc *p, long ret, __u64 d, __u64 seq)
{
	__u32 key = t->slot * s->log_ncpus + bpf_get_smp_processor_id();
	struct stb_log_rec *r;
	void *ring;

	ring = bpf_map_lookup_elem(&st_logs, &key);
	r = ring ? bpf_ringbuf_reserve(ring, sizeof(*r), 0) : NULL;
	if (!r) {
		stat_inc(&s->m.dropped_events);
		return;
	}
	r->ts_ns = t->start_ns;
	r->dur_ns = d;
	r->proc_id = t->proc_id;
	r->seq = seq;
	r->addr = t->addr;
	r->ret = ret;
	r->tgid = p->tgid;
	r->tid = t->tid;
	r->nr = t->nr;
	r->abi = t->abi;
	/* The reader polls: no wakeup (an irq_work) per record. */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* Completes the in-flight syscall of @t with return value @ret in row @p. */
static __always_inline bool account(struct stb_sess *s, void *sites, struct stb_task *t,
				    struct stb_proc *p, long ret, __u64 now)
{
	struct stb_site_key key = {
		.proc_id = t->proc_id, .addr = t->addr, .nr = t->nr, .abi = t->abi,
	};
	struct stb_site *site;
	__u64 d = now - t->start_ns;
	__u64 err = (unsigned long)ret >= (unsigned long)-MAX_ERRNO;
	__u64 seq;

	t->inflight = 0;
	if ((__s64)d < 0)
		d = 0;
	site = bpf_map_lookup_elem(sites, &key);
	if (!site)
		return false;
	update_min(&site->min_ns, d);
	update_max(&site->max_ns, d);
	__sync_fetch_and_add(&site->total_ns, d);
	__sync_fetch_and_add(&site->calls, 1);
	__sync_fetch_and_add(&p->syscall_ns, d);
	/* The site's errors are its errnos' counts (stb_count_errno). */
	if (err) {
		stb_count_errno(site, -ret);
		__sync_fetch_and_add(&p->errors, 1);
	}
	/* The image's calls completed before this one: the log's seq. */
	seq = __sync_fetch_and_add(&p->syscalls, 1);
	if (s->log_buffer)
		log_syscall(s, t, p, ret, d, seq);
	return true;
}

/* Argument @arg (0, 1 or 4) of an x86-64 syscall: rdi, rsi or r8. */
static __always_inline __u64 syscall_arg(struct pt_regs *regs, int arg)
{
	return arg == 0 ? regs->di : arg == 1 ? regs->si : regs->r8;
}

/*
 * The path argument of x86-64 file call @nr (kmod/file_calls.h, the
 * module's list too): false for a call that takes none, or whose NULL
 * means no path.
 */
static __always_inline bool path_arg(struct pt_regs *regs, long nr, __u64 *ptr)
{
	switch (nr) {
#define PATH_CASE(n, arg, null_ok)				\
	case n:							\
		*ptr = syscall_arg(regs, arg);			\
		return !(null_ok) || *ptr;
	ST_FILE_CALLS(PATH_CASE)
#undef PATH_CASE
	}
	return false;
}

/*
 * Counts the path of the file call @t completed with @ret, as the
 * session's paths_mode asks: read from the traced program's memory at
 * @uptr (in its own context, never sleeping: a page that is not there
 * makes the path unreadable), or from the kernel's copy at @kptr. A row
 * that cannot be made is counted in dropped_paths.
 */
static __noinline void path_count(struct stb_sess *s, struct stb_task *t, long ret, __u64 uptr,
				  const char *kptr)
{
	const __u64 cost = STB_ELEM_COST(sizeof(struct stb_path_key), sizeof(__u64));
	__u64 err = (unsigned long)ret >= (unsigned long)-MAX_ERRNO ? -ret : 0, one = 1, *v;
	struct stb_path_key *k;
	struct scratch *sc;
	__u32 zero = 0, slot = t->slot;
	void *paths;
	long n, e;
	char c;

	if (!s->paths_mode || (s->paths_mode == STB_PATHS_ERRORS && !err))
		return;
	paths = bpf_map_lookup_elem(&st_paths, &slot);
	sc = bpf_map_lookup_elem(&st_scratch, &zero);
	if (!paths || !sc)
		return;
	k = &sc->path;
	__builtin_memset(k, 0, sizeof(*k));
	k->proc_id = t->proc_id;
	k->addr = t->addr;
	k->nr = t->nr;
	k->abi = t->abi;
	k->err = (__u16)err;
	if (kptr)
		n = bpf_probe_read_kernel_str(k->path, STB_FPATH_LEN, kptr);
	else
		n = bpf_probe_read_user_str(k->path, STB_FPATH_LEN, (void *)uptr);
	if (n < 0) {
		k->kind = STB_PATH_UNREADABLE;
	} else if (n == STB_FPATH_LEN) {
		/* STB_FPATH_LEN - 1 bytes and a NUL, or a longer path cut. */
		c = 1;
		if (kptr)
			bpf_probe_read_kernel(&c, 1, kptr + STB_FPATH_LEN - 1);
		else
			bpf_probe_read_user(&c, 1, (void *)(uptr + STB_FPATH_LEN - 1));
		if (c)
			k->kind = STB_PATH_LONG;
	}
	if (k->kind != STB_PATH_OK)
		__builtin_memset(k->path, 0, sizeof(k->path));
	v = bpf_map_lookup_elem(paths, k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	if (!mem_charge(s, cost)) {
		stat_inc(&s->m.dropped_paths);
		return;
	}
	e = map_insert(paths, k, &one);
	if (!e) {
		stat_inc(&s->m.paths);
		return;
	}
	mem_uncharge(s, cost);
	v = e == -EEXIST ? bpf_map_lookup_elem(paths, k) : NULL;
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		drop(s, &s->m.dropped_paths, e);
}

static __always_inline __u8 syscall_abi(struct task_struct *task, long *nr)
{
	if (task->thread_info.status & TS_COMPAT)
		return ABI_IA32;
	if (*nr & X32_SYSCALL_BIT) {
		*nr &= ~X32_SYSCALL_BIT;
		return ABI_X32;
	}
	return ABI_X64;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(st_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct stb_site_key key;
	struct stb_task *t;
	struct stb_sess *s;
	void *sites;
	__u32 slot;
	__u64 now;

	t = bpf_task_storage_get(&st_tasks, task, 0, 0);
	if (!t || t->state != STB_TASK_ACTIVE)
		return 0;
	s = sess_of(task, t);
	if (!s)
		return 0;
	slot = t->slot;
	sites = bpf_map_lookup_elem(&st_sites, &slot);
	if (!sites || !sess_still(s, t))
		return 0;
	now = bpf_ktime_get_ns();
	key.proc_id = t->proc_id;
	key.abi = syscall_abi(task, &id);
	key.nr = (__u32)id;
	key.addr = regs->ip - 2;
	t->inflight = 0;
	/* A loop calls one site again and again: its row is there since last time. */
	if (!(t->site_ok && t->addr == key.addr && t->nr == key.nr && t->abi == key.abi)) {
		t->site_ok = 0;
		if (!site_get(s, slot, sites, task, &key, now)) {
			stat_inc(&s->m.dropped_syscalls);
			return 0;
		}
		t->site_ok = 1;
	}
	t->addr = key.addr;
	t->nr = key.nr;
	t->abi = key.abi;
	t->start_ns = now;
	t->path_call = s->paths_mode && key.abi == ABI_X64 && path_arg(regs, id, &t->path_ptr);
	t->inflight = 1;
	return 0;
}

static __noinline void argv_attached(struct stb_sess *s, __u32 slot, struct stb_task *t,
				     struct task_struct *task, struct stb_proc *p);

SEC("tp_btf/sys_exit")
int BPF_PROG(st_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct stb_task *t;
	struct stb_sess *s;
	struct stb_proc *p;
	void *sites, *procs;
	__u32 slot;

	t = bpf_task_storage_get(&st_tasks, task, 0, 0);
	if (!t || t->state != STB_TASK_ACTIVE)
		return 0;
	s = sess_of(task, t);
	if (!s)
		return 0;
	slot = t->slot;
	sites = bpf_map_lookup_elem(&st_sites, &slot);
	procs = bpf_map_lookup_elem(&st_procs, &slot);
	if (!sites || !procs || !sess_still(s, t))
		return 0;
	p = bpf_map_lookup_elem(procs, &t->proc_id);
	if (!p)
		return 0;
	if (t->inflight && account(s, sites, t, p, ret, bpf_ktime_get_ns()) && t->path_call)
		path_count(s, t, ret, t->path_ptr, NULL);
	t->path_call = 0;
	if (p->npending)
		pending_retry(s, slot, sites, task, p);
	if (t->argv_want)
		argv_attached(s, slot, t, task, p);
	return 0;
}

/* The session's counter on this CPU, for a task of a session that counts. */
static __always_inline bool counter_read(__u32 slot, __u64 *v)
{
	struct bpf_perf_event_value val;
	void *events = bpf_map_lookup_elem(&st_counters, &slot);

	if (!events || bpf_perf_event_read_value(events, BPF_F_CURRENT_CPU, &val, sizeof(val)))
		return false;
	*v = val.counter;
	return true;
}

/* What @t counted on the CPU since its switch-in (@t runs there now). */
static __always_inline void counter_take(struct stb_task *t)
{
	__u64 v;

	if (!t->cnt_valid)
		return;
	if (counter_read(t->slot, &v)) {
		t->cnt_sum += v - t->cnt_base;
		t->cnt_base = v;
	} else {
		t->cnt_valid = 0;
	}
}

/* Credits what @t counted to its image's row @p, which it leaves. */
static __always_inline void counter_fold(struct stb_sess *s, struct stb_task *t,
					 struct stb_proc *p)
{
	if (!s->counting)
		return;
	__sync_fetch_and_add(&p->counter_value, t->cnt_sum);
	__sync_fetch_and_add(&p->counter_tasks, 1);
	t->cnt_sum = 0;
}

/* @t starts counting now, on the CPU it runs on. */
static __always_inline void counter_begin(struct stb_sess *s, struct stb_task *t)
{
	t->cnt_sum = 0;
	t->cnt_valid = s->counting && counter_read(t->slot, &t->cnt_base);
}

/* Of a traced task that leaves or takes a CPU, for sessions that count. */
static __always_inline struct stb_task *counted(struct task_struct *task)
{
	struct stb_task *t = bpf_task_storage_get(&st_tasks, task, 0, 0);
	struct stb_sess *s;
	__u32 slot;

	if (!t || t->state != STB_TASK_ACTIVE)
		return NULL;
	slot = t->slot;
	s = bpf_map_lookup_elem(&st_sessions, &slot);
	if (!s || s->sid != t->sid || !s->counting)
		return NULL;
	return t;
}

/*
 * A task's counts are the CPU's counter between its switch-in and its
 * switch-out: the session's event counts whoever runs on the CPU.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(st_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct stb_task *t;

	t = counted(prev);
	if (t) {
		counter_take(t);
		t->cnt_valid = 0;
	}
	t = counted(next);
	if (t)
		t->cnt_valid = counter_read(t->slot, &t->cnt_base);
	return 0;
}

/* Adds what @task consumed since @t's base to row @p, and moves the base. */
static __always_inline void acct_fold(struct stb_task *t, struct task_struct *task,
				      struct stb_proc *p)
{
	__u64 v;

	v = BPF_CORE_READ(task, utime);
	__sync_fetch_and_add(&p->utime, v - t->base_utime);
	t->base_utime = v;
	v = BPF_CORE_READ(task, stime);
	__sync_fetch_and_add(&p->stime, v - t->base_stime);
	t->base_stime = v;
	v = BPF_CORE_READ(task, se.sum_exec_runtime);
	__sync_fetch_and_add(&p->rtime, v - t->base_rtime);
	t->base_rtime = v;
	v = BPF_CORE_READ(task, nvcsw);
	__sync_fetch_and_add(&p->nvcsw, v - t->base_nvcsw);
	t->base_nvcsw = v;
	v = BPF_CORE_READ(task, nivcsw);
	__sync_fetch_and_add(&p->nivcsw, v - t->base_nivcsw);
	t->base_nivcsw = v;
	v = BPF_CORE_READ(task, min_flt);
	__sync_fetch_and_add(&p->minflt, v - t->base_minflt);
	t->base_minflt = v;
	v = BPF_CORE_READ(task, maj_flt);
	__sync_fetch_and_add(&p->majflt, v - t->base_majflt);
	t->base_majflt = v;
}

static __always_inline void acct_base(struct stb_task *t, struct task_struct *task)
{
	t->base_utime = BPF_CORE_READ(task, utime);
	t->base_stime = BPF_CORE_READ(task, stime);
	t->base_rtime = BPF_CORE_READ(task, se.sum_exec_runtime);
	t->base_nvcsw = BPF_CORE_READ(task, nvcsw);
	t->base_nivcsw = BPF_CORE_READ(task, nivcsw);
	t->base_minflt = BPF_CORE_READ(task, min_flt);
	t->base_majflt = BPF_CORE_READ(task, maj_flt);
}

/*
 * A new process row for @task. @exe: its image's file, or NULL to take
 * @exe_of's. Returns the row's id, or 0 when it could not be made
 * (counted).
 */
static __always_inline __u64 proc_new(struct stb_sess *s, __u32 slot, void *procs,
				      struct task_struct *task, __u64 parent_id,
				      __u64 prev_id, __u32 ppid, struct file *exe,
				      struct stb_proc *exe_of, __u64 now)
{
	const __u64 cost = STB_ELEM_COST(sizeof(__u64), sizeof(struct stb_proc));
	struct scratch *sc;
	struct stb_proc *p;
	__u32 zero = 0;
	long err;
	int i;

	sc = bpf_map_lookup_elem(&st_scratch, &zero);
	if (!sc)
		return 0;
	if (s->m.procs >= s->max_procs) {
		stat_inc(&s->m.dropped_procs);
		return 0;
	}
	if (!mem_charge(s, cost)) {
		stat_inc(&s->m.dropped_procs);
		return 0;
	}
	p = &sc->proc;
	__builtin_memset(p, 0, sizeof(*p));
	p->parent_id = parent_id;
	p->prev_id = prev_id;
	p->pid = pid_in_ns(s, BPF_CORE_READ(task, thread_pid));
	p->tgid = task_tgid_ns(s, task);
	p->ppid = ppid;
	p->end = END_RUNNING;
	bpf_probe_read_kernel_str(p->comm, sizeof(p->comm), task->comm);
	p->start_ns = now;
	p->threads = 1;
	p->live = 1;
	if (exe) {
		p->has_exe = file_intern(s, slot, exe, &p->exe);
	} else if (exe_of) {
		p->has_exe = exe_of->has_exe;
		p->exe = exe_of->exe;
		p->argv_of = exe_of->argv_of;
	}
	/* An id taken already (by a row systracectl wrote) is skipped. */
	for (i = 0; i < 2; i++) {
		p->id = __sync_fetch_and_add(&s->m.next_id, 1) + 1;
		err = map_insert(procs, &p->id, p);
		if (err != -EEXIST)
			break;
	}
	if (err) {
		mem_uncharge(s, cost);
		drop(s, &s->m.dropped_procs, err);
		return 0;
	}
	stat_inc(&s->m.procs);
	return p->id;
}

/*
 * Keeps the argv of @task's new image @p, which its exec just wrote at
 * the top of the new stack (the pages are there): the head and the bytes
 * in as many chunks as they fill, all of them or none (counted in
 * dropped_argv). Runs in @task: its mm is the new one.
 */
static __always_inline void argv_keep(struct stb_sess *s, void *argv, struct task_struct *task,
				      struct stb_proc *p)
{
	const __u64 cost = STB_ELEM_COST(sizeof(struct stb_argv_key), STB_ARGV_CHUNK);
	struct stb_argv_key key = { .proc_id = p->id };
	struct stb_argv_head *h;
	struct scratch *sc;
	__u64 start, end, len;
	__u32 zero = 0, n, i, j;
	long err = 0;

	sc = bpf_map_lookup_elem(&st_scratch, &zero);
	if (!sc)
		return;
	start = BPF_CORE_READ(task, mm, arg_start);
	end = BPF_CORE_READ(task, mm, arg_end);
	if (end < start || !start) {
		stat_inc(&s->m.dropped_argv);
		return;
	}
	len = end - start;
	h = (void *)sc->argv;
	h->full = len > 0xffffffffULL ? 0xffffffff : (__u32)len;
	if (len > STB_ARGV_MAX)
		len = STB_ARGV_MAX;
	h->len = len;
	if (bpf_probe_read_user(sc->argv + sizeof(*h), len & (2 * STB_ARGV_MAX - 1),
				(void *)start)) {
		stat_inc(&s->m.dropped_argv);
		return;
	}
	n = (sizeof(*h) + len + STB_ARGV_CHUNK - 1) / STB_ARGV_CHUNK;
	if (!mem_charge(s, n * cost)) {
		stat_inc(&s->m.dropped_argv);
		return;
	}
	for (i = 0; i < STB_ARGV_CHUNKS && i < n; i++) {
		key.idx = i;
		err = map_insert(argv, &key, sc->argv + i * STB_ARGV_CHUNK);
		if (err)
			break;
	}
	if (!err) {
		p->argv_of = p->id;
		return;
	}
	for (j = 0; j < STB_ARGV_CHUNKS && j < i; j++) {
		key.idx = j;
		bpf_map_delete_elem(argv, &key);
	}
	mem_uncharge(s, n * cost);
	drop(s, &s->m.dropped_argv, err);
}

/*
 * The argv of @p, an image that ran before its attach (or a child it forked
 * before its argv was read), read by the first of its threads back from a
 * syscall: in its own context, as at an exec, never from another process.
 */
static __noinline void argv_attached(struct stb_sess *s, __u32 slot, struct stb_task *t,
				     struct task_struct *task, struct stb_proc *p)
{
	void *argv;

	t->argv_want = 0;
	if (p->argv_of || __sync_val_compare_and_swap(&p->argv_claim, 0, 1))
		return;
	argv = bpf_map_lookup_elem(&st_argv, &slot);
	if (argv && sess_still(s, t))
		argv_keep(s, argv, task, p);
}

/* Ends row @p with the wait status @code. */
static __always_inline void proc_exit(struct stb_sess *s, struct stb_proc *p, __u32 code,
				      __u64 now)
{
	p->end_ns = now;
	if (code & 0x7f) {
		p->exit_signal = code & 0x7f;
		p->core_dumped = !!(code & 0x80);
		p->end = END_SIGNALED;
		stat_inc(&s->m.signal_exits);
	} else {
		p->exit_code = (code >> 8) & 0xff;
		p->end = END_EXITED;
	}
	stat_inc(&s->m.exits);
}

/* A traced task is gone: the last one tells the session's keeper. */
static __always_inline void task_gone(struct stb_sess *s, __u32 slot)
{
	void *ring;

	if (__sync_fetch_and_add(&s->m.live_tasks, -1) != 1)
		return;
	ring = bpf_map_lookup_elem(&st_notify, &slot);
	if (ring)
		bpf_ringbuf_output(ring, &slot, sizeof(slot), BPF_RB_FORCE_WAKEUP);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(st_fork, struct task_struct *parent, struct task_struct *child)
{
	struct stb_task *pt, *ct;
	struct stb_proc *p;
	struct stb_sess *s;
	void *procs;
	__u64 now, id;
	__u32 slot;
	bool thread;

	pt = bpf_task_storage_get(&st_tasks, parent, 0, 0);
	if (!pt || pt->state != STB_TASK_ACTIVE)
		return 0;
	s = sess_of(parent, pt);
	if (!s)
		return 0;
	thread = BPF_CORE_READ(child, tgid) == BPF_CORE_READ(parent, tgid);
	/* --threads-only: a new process is neither followed nor a drop. */
	if (!thread && (s->flags & F_THREADS_ONLY))
		return 0;
	slot = pt->slot;
	procs = bpf_map_lookup_elem(&st_procs, &slot);
	if (!procs || !sess_still(s, pt))
		return 0;
	p = bpf_map_lookup_elem(procs, &pt->proc_id);
	if (!p)
		return 0;
	ct = bpf_task_storage_get(&st_tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ct) {
		drop(s, &s->m.dropped_procs, 0);
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (thread) {
		id = pt->proc_id;
		__sync_fetch_and_add(&p->threads, 1);
		__sync_fetch_and_add(&p->live, 1);
		stat_inc(&s->m.clones);
	} else {
		id = proc_new(s, slot, procs, child, pt->proc_id, 0,
			      task_tgid_ns(s, BPF_CORE_READ(child, real_parent)),
			      NULL, p, now);
		if (!id) {
			bpf_task_storage_delete(&st_tasks, child);
			return 0;
		}
		stat_inc(&s->m.forks);
	}
	ct->sid = pt->sid;
	ct->slot = slot;
	ct->proc_id = id;
	ct->tid = pid_in_ns(s, BPF_CORE_READ(child, thread_pid));
	ct->inflight = 0;
	ct->site_ok = 0;
	ct->cnt_valid = 0;
	ct->cnt_sum = 0;
	/* An attached image's argv not read yet: the child reads its own copy. */
	ct->argv_want = !p->argv_of && (pt->argv_want || p->attached);
	acct_base(ct, child);
	ct->state = STB_TASK_ACTIVE;
	__sync_fetch_and_add(&s->m.live_tasks, 1);
	return 0;
}

/* The thread leaves its image's row @p: true when it was the last one. */
static __always_inline bool proc_leave(struct stb_proc *p)
{
	return __sync_fetch_and_add(&p->live, -1) == 1;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(st_exec, struct task_struct *task, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct stb_proc *old = NULL, *cur;
	struct stb_task *t;
	struct stb_sess *s;
	void *procs, *sites, *argv;
	__u64 now, id, parent_id = 0, prev_id = 0;
	__u32 ppid, slot;

	t = bpf_task_storage_get(&st_tasks, task, 0, 0);
	if (!t || (t->state != STB_TASK_ACTIVE && t->state != STB_TASK_PENDING))
		return 0;
	s = sess_of(task, t);
	if (!s)
		return 0;
	slot = t->slot;
	procs = bpf_map_lookup_elem(&st_procs, &slot);
	sites = bpf_map_lookup_elem(&st_sites, &slot);
	argv = bpf_map_lookup_elem(&st_argv, &slot);
	if (!procs || !sites || !argv || !sess_still(s, t))
		return 0;
	now = bpf_ktime_get_ns();
	if (t->state == STB_TASK_ACTIVE) {
		old = bpf_map_lookup_elem(procs, &t->proc_id);
		if (!old)
			return 0;
		/*
		 * The execve returns in the new image: it is the old one's. Its
		 * path is the kernel's copy: the old memory is gone.
		 */
		if (t->inflight && account(s, sites, t, old, 0, now) && t->path_call)
			path_count(s, t, 0, 0, BPF_CORE_READ(bprm, filename));
		t->path_call = 0;
		acct_fold(t, task, old);
		counter_take(t);
		counter_fold(s, t, old);
		parent_id = old->parent_id;
		prev_id = old->id;
		ppid = old->ppid;
	} else {
		ppid = task_tgid_ns(s, BPF_CORE_READ(task, real_parent));
	}
	id = proc_new(s, slot, procs, task, parent_id, prev_id, ppid,
		      BPF_CORE_READ(bprm, file), NULL, now);
	if (old) {
		proc_leave(old);
		pending_drop(s, old);
		old->end_ns = now;
		old->end = id ? END_EXEC : END_DETACHED;
	}
	if (!id) {
		t->state = STB_TASK_GONE;
		task_gone(s, slot);
		return 0;
	}
	t->proc_id = id;
	t->site_ok = 0;
	t->argv_want = 0;
	cur = bpf_map_lookup_elem(procs, &id);
	if (cur)
		argv_keep(s, argv, task, cur);
	/* A thread's exec made it the leader: it has the leader's pid now. */
	t->tid = pid_in_ns(s, BPF_CORE_READ(task, thread_pid));
	t->inflight = 0;
	acct_base(t, task);
	if (t->state == STB_TASK_PENDING)
		counter_begin(s, t);
	t->state = STB_TASK_ACTIVE;
	stat_inc(&s->m.execs);
	return 0;
}

/*
 * The wait status of the exiting thread's process, as wait(2) will give
 * it: the group's once exit_group or a fatal signal ended the group (and,
 * since 5.19, when its last thread calls SYS_exit), else the thread's own.
 */
static __always_inline __u32 exit_status(struct task_struct *task)
{
	struct signal_struct *sig = BPF_CORE_READ(task, signal);

	if (BPF_CORE_READ(sig, flags) & SIGNAL_GROUP_EXIT)
		return BPF_CORE_READ(sig, group_exit_code);
	return BPF_CORE_READ(task, exit_code);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(st_exit, struct task_struct *task)
{
	struct stb_task *t;
	struct stb_proc *p;
	struct stb_sess *s;
	void *procs, *sites;
	__u32 slot;
	__u64 now;

	t = bpf_task_storage_get(&st_tasks, task, 0, 0);
	if (!t || (t->state != STB_TASK_ACTIVE && t->state != STB_TASK_PENDING))
		return 0;
	s = sess_of(task, t);
	if (!s)
		return 0;
	slot = t->slot;
	if (t->state == STB_TASK_PENDING) {
		t->state = STB_TASK_GONE;
		task_gone(s, slot);
		return 0;
	}
	procs = bpf_map_lookup_elem(&st_procs, &slot);
	sites = bpf_map_lookup_elem(&st_sites, &slot);
	if (!procs || !sites || !sess_still(s, t))
		return 0;
	now = bpf_ktime_get_ns();
	t->state = STB_TASK_GONE;
	p = bpf_map_lookup_elem(procs, &t->proc_id);
	if (p) {
		/* exit and exit_group never return: complete them here. */
		if (t->inflight)
			account(s, sites, t, p, 0, now);
		acct_fold(t, task, p);
		counter_take(t);
		counter_fold(s, t, p);
		if (proc_leave(p)) {
			pending_drop(s, p);
			if (p->end == END_RUNNING)
				proc_exit(s, p, exit_status(task), now);
		}
	}
	task_gone(s, slot);
	return 0;
}

/* --- attach and detach: an iterator over every task ------------------------ */

struct ancestry {
	struct task_struct *task;	/* a process's leader, as a scalar walk */
	__u32 root;			/* in the session's pid namespace */
	__u32 level, inum;		/* the session's pid namespace */
	int found;
};

static long ancestry_step(__u32 i, void *data)
{
	struct ancestry *a = data;
	struct task_struct *task = a->task, *up;

	if (pid_nr_ns(a->level, a->inum, BPF_CORE_READ(task, signal, pids[PIDTYPE_TGID])) ==
	    a->root) {
		a->found = 1;
		return 1;
	}
	up = BPF_CORE_READ(task, real_parent, group_leader);
	if (!up || up == task)
		return 1;
	a->task = up;
	return 0;
}

/*
 * Whether @task is one of those the job follows: the root's, or (tree) its
 * descendants'. The root is a pid in the session's namespace.
 */
static __always_inline bool job_member(struct stb_sess *s, struct task_struct *task)
{
	struct ancestry a = {
		.root = job.root_tgid, .level = s->pidns_level, .inum = s->pidns_inum,
	};

	if (task_tgid_ns(s, task) == job.root_tgid)
		return true;
	if (!(job.flags & F_TREE))
		return false;
	a.task = BPF_CORE_READ(task, group_leader);
	bpf_loop(ANCESTRY_DEPTH, ancestry_step, &a, 0);
	return a.found;
}

/* Whether @t's storage belongs to a session that follows it now. */
static __always_inline bool followed(struct stb_task *t)
{
	__u32 slot = t->slot;
	struct stb_sess *s;

	if (t->state != STB_TASK_ACTIVE && t->state != STB_TASK_PENDING)
		return false;
	s = bpf_map_lookup_elem(&st_sessions, &slot);
	return s && s->sid == t->sid && s->state == STB_SESS_LIVE;
}

/*
 * The row of @task's process in this attach, made at its first thread:
 * attached, starting now, its parent linked by the job's last pass.
 * Returns 0 when it is refused or cannot be made (counted).
 */
static __always_inline __u64 attach_row(struct stb_sess *s, void *procs,
					struct task_struct *task)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);
	__u32 tgid = task->tgid;
	__u64 *row, id = 0;
	struct stb_proc *p;

	row = bpf_map_lookup_elem(&st_attach_rows, &tgid);
	if (row)
		return *row;
	id = proc_new(s, job.slot, procs, leader, 0, 0,
		      task_tgid_ns(s, BPF_CORE_READ(leader, real_parent)),
		      BPF_CORE_READ(task, mm, exe_file), NULL, job.now);
	if (!id)
		return 0;
	bpf_map_update_elem(&st_attach_rows, &tgid, &id, BPF_ANY);
	p = bpf_map_lookup_elem(procs, &id);
	if (p) {
		p->attached = 1;
		/* The thread that makes the row counts itself in. */
		p->threads = 0;
		p->live = 0;
	}
	return id;
}

static __always_inline void attach_task(struct task_struct *task)
{
	__u32 slot = job.slot, tgid = task->tgid;
	struct stb_sess *s;
	struct stb_task *t;
	struct stb_proc *p;
	__u64 id, zero = 0;
	void *procs;

	if (task->flags & (PF_KTHREAD | PF_EXITING))
		return;
	s = bpf_map_lookup_elem(&st_sessions, &slot);
	procs = bpf_map_lookup_elem(&st_procs, &slot);
	if (!s || !procs || s->sid != job.sid || s->state != STB_SESS_LIVE)
		return;
	if (task_tgid_ns(s, task) == job.self_tgid || !job_member(s, task))
		return;
	t = bpf_task_storage_get(&st_tasks, task, 0, 0);
	if (t && followed(t)) {
		if (t->sid == job.sid)
			return;
		/* Another session follows it: its process counts once as a drop. */
		if (!bpf_map_lookup_elem(&st_attach_rows, &tgid) &&
		    !bpf_map_update_elem(&st_attach_rows, &tgid, &zero, BPF_NOEXIST)) {
			stat_inc(&s->m.dropped_procs);
			job.refused++;
		}
		return;
	}
	id = attach_row(s, procs, task);
	p = id ? bpf_map_lookup_elem(procs, &id) : NULL;
	if (!p)
		return;
	t = bpf_task_storage_get(&st_tasks, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		stat_inc(&s->m.dropped_procs);
		return;
	}
	/* A blocked call it is in when attached is not counted: its entry was not seen. */
	__builtin_memset(t, 0, sizeof(*t));
	t->sid = job.sid;
	t->slot = slot;
	t->proc_id = id;
	t->tid = pid_in_ns(s, BPF_CORE_READ(task, thread_pid));
	acct_base(t, task);
	/* Its argv is read in its own context, at its next syscall exit. */
	t->argv_want = 1;
	__sync_fetch_and_add(&p->threads, 1);
	__sync_fetch_and_add(&p->live, 1);
	__sync_fetch_and_add(&s->m.live_tasks, 1);
	t->state = STB_TASK_ACTIVE;
	job.marked++;
}

/*
 * The images @task's process exec'd since the attach made its row @row
 * (between the passes: each exec copied the then unlinked parent), back
 * along their prev_id to @row, get its parent @parent too.
 */
static __always_inline void link_execs(void *procs, struct task_struct *task, __u64 row,
				       __u64 parent)
{
	struct stb_task *t = bpf_task_storage_get(&st_tasks, task, 0, 0);
	struct stb_proc *p;
	__u64 id;
	int i;

	if (!t || t->sid != job.sid)
		return;
	id = t->proc_id;
	for (i = 0; i < EXEC_LINK_DEPTH && id && id != row; i++) {
		p = bpf_map_lookup_elem(procs, &id);
		if (!p)
			return;
		if (!p->parent_id)
			p->parent_id = parent;
		id = p->prev_id;
	}
}

/* Links the rows this attach made to their parents' (--tree). */
static __always_inline void attach_link(struct task_struct *task)
{
	__u32 slot = job.slot, tgid = task->tgid, ptgid;
	__u64 *row, *prow;
	struct stb_proc *p;
	void *procs;

	row = bpf_map_lookup_elem(&st_attach_rows, &tgid);
	procs = bpf_map_lookup_elem(&st_procs, &slot);
	if (!row || !*row || !procs)
		return;
	p = bpf_map_lookup_elem(procs, row);
	/* The root's row has no parent; the others', their parent process's. */
	if (!p || p->tgid == job.root_tgid)
		return;
	if (!p->parent_id) {
		ptgid = BPF_CORE_READ(task, group_leader, real_parent, tgid);
		prow = bpf_map_lookup_elem(&st_attach_rows, &ptgid);
		if (prow && *prow)
			p->parent_id = *prow;
	}
	if (p->parent_id)
		link_execs(procs, task, *row, p->parent_id);
}

/*
 * A task of the detached session: its call in flight counts once, as a
 * success, up to the detach; its row ends with its last thread.
 */
static __always_inline void detach_task(struct task_struct *task)
{
	__u32 slot = job.slot;
	struct stb_sess *s;
	struct stb_task *t;
	struct stb_proc *p;
	void *procs, *sites;

	t = bpf_task_storage_get(&st_tasks, task, 0, 0);
	if (!t || t->sid != job.sid || t->slot != slot)
		return;
	s = bpf_map_lookup_elem(&st_sessions, &slot);
	procs = bpf_map_lookup_elem(&st_procs, &slot);
	sites = bpf_map_lookup_elem(&st_sites, &slot);
	if (!s || !procs || !sites || s->sid != job.sid)
		return;
	if (t->state == STB_TASK_ACTIVE) {
		p = bpf_map_lookup_elem(procs, &t->proc_id);
		if (p) {
			/* Not in its context: a path it would count is a drop. */
			if (t->inflight && account(s, sites, t, p, 0, job.now) && t->path_call &&
			    s->paths_mode == STB_PATHS_ALL)
				stat_inc(&s->m.dropped_paths);
			acct_fold(t, task, p);
			counter_fold(s, t, p);
			if (proc_leave(p)) {
				pending_drop(s, p);
				if (p->end == END_RUNNING) {
					p->end = END_DETACHED;
					p->end_ns = job.now;
				}
			}
		}
	}
	if (t->state == STB_TASK_ACTIVE || t->state == STB_TASK_PENDING)
		__sync_fetch_and_add(&s->m.live_tasks, -1);
	bpf_task_storage_delete(&st_tasks, task);
	job.marked++;
}

SEC("iter/task")
int st_attach(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;

	if (!task)
		return 0;
	switch (job.kind) {
	case STB_JOB_ATTACH:
		attach_task(task);
		break;
	case STB_JOB_LINK:
		attach_link(task);
		break;
	case STB_JOB_DETACH:
		detach_task(task);
		break;
	}
	return 0;
}

/* --- the caller's pid namespace ---------------------------------------------- */

/*
 * Run once by BPF_PROG_TEST_RUN in systracectl's own context: the level and
 * inode of its pid namespace, and its pid there, as the kernel has them.
 * /proc cannot tell the level: NSpid counts from the namespace /proc was
 * mounted for.
 */
struct stb_pidns self_pidns;

SEC("raw_tp")
int st_pidns(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct pid *pid = BPF_CORE_READ(task, thread_pid);
	struct upid up;

	if (!pid)
		return 0;
	self_pidns.level = BPF_CORE_READ(pid, level);
	if (self_pidns.level > 32 ||
	    bpf_probe_read_kernel(&up, sizeof(up),
				  (void *)pid + bpf_core_field_offset(struct pid, numbers) +
				  self_pidns.level * bpf_core_type_size(struct upid)))
		return 0;
	self_pidns.inum = BPF_CORE_READ(up.ns, ns.inum);
	self_pidns.pid = up.nr;
	return 0;
}
