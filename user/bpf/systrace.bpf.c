// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend's programs: one loaded copy per session. Membership is
 * the task storage map `tasks`: systracectl inserts the root by pidfd,
 * the fork program adds every task a member creates. Process rows (key:
 * their id) and site rows (key: image id, address, nr, abi) live in hash
 * maps whose sizes systracectl sets from max_procs and max_sites. Nothing
 * here trusts the traced program: every read of its state goes through
 * the helpers, every loop is bounded, and a full map or a refused
 * allocation is counted in the session's dropped_* counters.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "systrace_bpf.h"

char LICENSE[] SEC("license") = "GPL";

#ifdef STB_BENCH_NO_CLOCK
#define STB_NOW() 0
#else
#define STB_NOW() bpf_ktime_get_ns()
#endif

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

#define X32_SYSCALL_BIT		0x40000000
#define TS_COMPAT		0x0002
#define SIGNAL_GROUP_EXIT	0x00000004
#define VSYSCALL_ADDR		0xffffffffff600000UL
#define MAX_ERRNO		4095
#define E2BIG			7
#define EEXIST			17
#define ENOENT			2
#define EBUSY			16
#define PIDTYPE_TGID		1

/* The pid namespace rows report pids in: its level and its inode number. */
const volatile __u32 pidns_level;
const volatile __u32 pidns_inum;
/* The sizes of `procs` and `sites`: a row past them is a drop, not an error. */
const volatile __u64 max_procs = 1;
const volatile __u64 max_sites = 1;
/* Whether the session keeps a temporal log: its rings are in `logs`. */
const volatile bool log_on;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct stb_task);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stb_meta);
} meta SEC(".maps");

/* Written by systracectl only. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stb_info);
} info SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1048576);
	__type(key, __u64);
	__type(value, struct stb_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4194304);
	__type(key, struct stb_site_key);
	__type(value, struct stb_site);
} sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct stb_file_key);
	__type(value, struct stb_file);
} files SEC(".maps");

/*
 * The temporal log: one ring buffer per possible CPU, made and put here
 * by systracectl (which pins each as logCPU for the readers); the
 * template below only gives the kernel the inner maps' type.
 */
struct log_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct log_ring);
} logs SEC(".maps");

/* Room to build a path or a row outside the 512-byte stack. */
struct scratch {
	struct stb_file file;
	struct stb_proc proc;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

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

static __always_inline struct stb_meta *meta_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&meta, &zero);
}

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

static __always_inline void drop(__u64 *counter, long err)
{
	struct stb_meta *m = meta_get();

	if (!m)
		return;
	stat_inc(counter);
	if (err != -E2BIG)
		stat_inc(&m->dropped_nomem);
}

static __always_inline __u32 pid_in_ns(struct pid *pid)
{
	unsigned int level;
	struct upid up;
	__u32 lvl = pidns_level;

	if (!pid)
		return 0;
	level = BPF_CORE_READ(pid, level);
	if (lvl > level || lvl > 32)
		return 0;
	if (bpf_probe_read_kernel(&up, sizeof(up),
				  (void *)pid + bpf_core_field_offset(struct pid, numbers) +
				  lvl * bpf_core_type_size(struct upid)))
		return 0;
	if (BPF_CORE_READ(up.ns, ns.inum) != pidns_inum)
		return 0;
	return up.nr;
}

static __always_inline __u32 task_tgid_ns(struct task_struct *task)
{
	return pid_in_ns(BPF_CORE_READ(task, signal, pids[PIDTYPE_TGID]));
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

/* The identity of @file, and its path in `files` unless there already. */
static __always_inline bool file_intern(struct file *file, struct stb_file_key *key)
{
	struct scratch *sc;
	__u32 zero = 0;
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	long err;

	key->ino = BPF_CORE_READ(inode, i_ino);
	key->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	key->pad = 0;
	if (bpf_map_lookup_elem(&files, key))
		return true;
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return false;
	if (path_build(&sc->file, BPF_CORE_READ(file, f_path.dentry),
		       BPF_CORE_READ(file, f_path.mnt)))
		return false;
	err = map_insert(&files, key, &sc->file);
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
	s->has_path = file_intern(file, &s->file);
	if (!s->has_path) {
		struct stb_meta *m = meta_get();

		/* Too deep, too long, or `files` full: a file site without a path. */
		if (m)
			stat_inc(&m->dropped_resolve);
	}
	s->mtime_ns = inode_mtime_ns(BPF_CORE_READ(file, f_inode));
	s->has_file_id = 1;
	return 0;
}

/*
 * The mapping of a site. Returns 0, or -EBUSY when the mmap lock was
 * busy (the site stays unknown for now), or another error (for good).
 */
static __always_inline long site_resolve(struct task_struct *task, __u64 addr,
					 struct stb_site *s)
{
	struct resolve_ctx rc = { .addr = addr, .site = s };
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
static __always_inline void pending_retry(struct task_struct *task, struct stb_proc *p,
					  struct stb_meta *m)
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
		site = bpf_map_lookup_elem(&sites, &key);
		ret = site ? site_resolve(task, key.addr, site) : -ENOENT;
		if (ret == -EBUSY || !pending_take(p, i, v))
			continue;
		stat_inc(ret ? &m->dropped_resolve : &m->late_resolves);
	}
}

/* The sites still pending when image @p ends stay unknown. */
static __always_inline void pending_drop(struct stb_proc *p, struct stb_meta *m)
{
	__u64 v;
	int i;

	for (i = 0; i < STB_PENDING; i++) {
		v = p->pending[i];
		if (v && pending_take(p, i, v))
			stat_inc(&m->dropped_resolve);
	}
}

/*
 * The site row of @key, made at its first hit. The image's row is looked
 * up only then: a known site costs one lookup.
 */
static __always_inline struct stb_site *site_get(struct task_struct *task,
						 struct stb_site_key *key, __u64 now)
{
	struct stb_site *site, v = {};
	struct stb_meta *m;
	struct stb_proc *p;
	long err, res;

	site = bpf_map_lookup_elem(&sites, key);
	if (site)
		return site;
	m = meta_get();
	p = bpf_map_lookup_elem(&procs, &key->proc_id);
	if (!m || !p)
		return NULL;
	if (m->sites >= max_sites) {
		stat_inc(&m->dropped_sites);
		return NULL;
	}
	v.first_ns = now;
	v.first_ordinal = p->syscalls;
	v.min_ns = ~0ULL;
	res = site_resolve(task, key->addr, &v);
	err = map_insert(&sites, key, &v);
	if (err && err != -EEXIST) {
		drop(&m->dropped_sites, err);
		return NULL;
	}
	if (!err) {
		stat_inc(&m->sites);
		__sync_fetch_and_add(&p->sites, 1);
		if (res && (res != -EBUSY || !pending_add(p, key)))
			stat_inc(&m->dropped_resolve);
	}
	return bpf_map_lookup_elem(&sites, key);
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
static __always_inline void log_syscall(struct stb_task *t, struct stb_proc *p,
					long ret, __u64 d, __u64 seq)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct stb_log_rec *r;
	struct stb_meta *m;
	void *ring;

	ring = bpf_map_lookup_elem(&logs, &cpu);
	r = ring ? bpf_ringbuf_reserve(ring, sizeof(*r), 0) : NULL;
	if (!r) {
		m = meta_get();
		if (m)
			stat_inc(&m->dropped_events);
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

/* Completes the in-flight syscall of @t with return value @ret; returns its image's row. */
static __always_inline struct stb_proc *account(struct stb_task *t, long ret, __u64 now)
{
	struct stb_site_key key = {
		.proc_id = t->proc_id, .addr = t->addr, .nr = t->nr, .abi = t->abi,
	};
	struct stb_site *site;
	struct stb_proc *p;
	__u64 d = now - t->start_ns;
	__u64 err = (unsigned long)ret >= (unsigned long)-MAX_ERRNO;
	__u64 seq;

	t->inflight = 0;
	if ((__s64)d < 0)
		d = 0;
	site = bpf_map_lookup_elem(&sites, &key);
	p = bpf_map_lookup_elem(&procs, &key.proc_id);
	if (!site || !p)
		return p;
	update_min(&site->min_ns, d);
	update_max(&site->max_ns, d);
	__sync_fetch_and_add(&site->total_ns, d);
	__sync_fetch_and_add(&site->errors, err);
	__sync_fetch_and_add(&site->calls, 1);
	__sync_fetch_and_add(&p->syscall_ns, d);
	__sync_fetch_and_add(&p->errors, err);
	/* The image's calls completed before this one: the log's seq. */
	seq = __sync_fetch_and_add(&p->syscalls, 1);
	if (log_on)
		log_syscall(t, p, ret, d, seq);
	return p;
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
	struct stb_meta *m;
	__u64 now;

	t = bpf_task_storage_get(&tasks, task, 0, 0);
	if (!t || t->state != STB_TASK_ACTIVE)
		return 0;
	now = STB_NOW();
	key.proc_id = t->proc_id;
	key.abi = syscall_abi(task, &id);
	key.nr = (__u32)id;
	key.addr = regs->ip - 2;
	t->inflight = 0;
	if (!site_get(task, &key, now)) {
		m = meta_get();
		if (m)
			stat_inc(&m->dropped_syscalls);
		return 0;
	}
	t->addr = key.addr;
	t->nr = key.nr;
	t->abi = key.abi;
	t->start_ns = now;
	t->inflight = 1;
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(st_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct stb_task *t;

	struct stb_meta *m;
	struct stb_proc *p;

	t = bpf_task_storage_get(&tasks, task, 0, 0);
	if (!t || t->state != STB_TASK_ACTIVE)
		return 0;
	if (t->inflight)
		p = account(t, ret, STB_NOW());
	else
		p = bpf_map_lookup_elem(&procs, &t->proc_id);
	if (p && p->npending) {
		m = meta_get();
		if (m)
			pending_retry(task, p, m);
	}
	return 0;
}

/* Adds what @task consumed since @t's base to row @p, and moves the base. */
static __always_inline void acct_fold(struct stb_task *t, struct task_struct *task,
				      struct stb_proc *p)
{
	__u64 v;

	v = BPF_CORE_READ(task, utime);
	__sync_fetch_and_add(&p->user_ns, v - t->base_utime);
	t->base_utime = v;
	v = BPF_CORE_READ(task, stime);
	__sync_fetch_and_add(&p->sys_ns, v - t->base_stime);
	t->base_stime = v;
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
static __always_inline __u64 proc_new(struct task_struct *task, __u64 parent_id,
				      __u64 prev_id, __u32 ppid, struct file *exe,
				      struct stb_proc *exe_of, __u64 now)
{
	struct stb_meta *m = meta_get();
	struct scratch *sc;
	struct stb_proc *p;
	__u32 zero = 0;
	long err;

	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!m || !sc)
		return 0;
	if (m->procs >= max_procs) {
		stat_inc(&m->dropped_procs);
		return 0;
	}
	p = &sc->proc;
	__builtin_memset(p, 0, sizeof(*p));
	p->id = __sync_fetch_and_add(&m->next_id, 1) + 1;
	p->parent_id = parent_id;
	p->prev_id = prev_id;
	p->pid = pid_in_ns(BPF_CORE_READ(task, thread_pid));
	p->tgid = task_tgid_ns(task);
	p->ppid = ppid;
	p->end = END_RUNNING;
	bpf_probe_read_kernel_str(p->comm, sizeof(p->comm), task->comm);
	p->start_ns = now;
	p->threads = 1;
	p->live = 1;
	if (exe) {
		p->has_exe = file_intern(exe, &p->exe);
	} else if (exe_of) {
		p->has_exe = exe_of->has_exe;
		p->exe = exe_of->exe;
	}
	err = map_insert(&procs, &p->id, p);
	if (err) {
		drop(&m->dropped_procs, err);
		return 0;
	}
	stat_inc(&m->procs);
	return p->id;
}

/* Ends row @p with the wait status @code. */
static __always_inline void proc_exit(struct stb_proc *p, __u32 code, __u64 now,
				      struct stb_meta *m)
{
	p->end_ns = now;
	if (code & 0x7f) {
		p->exit_signal = code & 0x7f;
		p->core_dumped = !!(code & 0x80);
		p->end = END_SIGNALED;
		stat_inc(&m->signal_exits);
	} else {
		p->exit_code = (code >> 8) & 0xff;
		p->end = END_EXITED;
	}
	stat_inc(&m->exits);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(st_fork, struct task_struct *parent, struct task_struct *child)
{
	struct stb_task *pt, *ct;
	struct stb_proc *p;
	struct stb_meta *m;
	__u64 now, id;

	pt = bpf_task_storage_get(&tasks, parent, 0, 0);
	if (!pt || pt->state != STB_TASK_ACTIVE)
		return 0;
	m = meta_get();
	p = bpf_map_lookup_elem(&procs, &pt->proc_id);
	if (!m || !p)
		return 0;
	ct = bpf_task_storage_get(&tasks, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ct) {
		drop(&m->dropped_procs, 0);
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (BPF_CORE_READ(child, tgid) == BPF_CORE_READ(parent, tgid)) {
		id = pt->proc_id;
		__sync_fetch_and_add(&p->threads, 1);
		__sync_fetch_and_add(&p->live, 1);
		stat_inc(&m->clones);
	} else {
		id = proc_new(child, pt->proc_id, 0,
			      task_tgid_ns(BPF_CORE_READ(child, real_parent)),
			      NULL, p, now);
		if (!id) {
			bpf_task_storage_delete(&tasks, child);
			return 0;
		}
		stat_inc(&m->forks);
	}
	ct->proc_id = id;
	ct->tid = pid_in_ns(BPF_CORE_READ(child, thread_pid));
	ct->inflight = 0;
	acct_base(ct, child);
	ct->state = STB_TASK_ACTIVE;
	__sync_fetch_and_add(&m->live_tasks, 1);
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
	struct stb_proc *old = NULL;
	struct stb_task *t;
	struct stb_meta *m;
	__u64 now, id, parent_id = 0, prev_id = 0;
	__u32 ppid;

	t = bpf_task_storage_get(&tasks, task, 0, 0);
	m = meta_get();
	if (!t || !m)
		return 0;
	now = bpf_ktime_get_ns();
	if (t->state == STB_TASK_ACTIVE) {
		old = bpf_map_lookup_elem(&procs, &t->proc_id);
		if (!old)
			return 0;
		/* The execve returns in the new image: it is the old one's. */
		if (t->inflight)
			account(t, 0, now);
		acct_fold(t, task, old);
		parent_id = old->parent_id;
		prev_id = old->id;
		ppid = old->ppid;
	} else if (t->state == STB_TASK_PENDING) {
		ppid = task_tgid_ns(BPF_CORE_READ(task, real_parent));
	} else {
		return 0;
	}
	id = proc_new(task, parent_id, prev_id, ppid, BPF_CORE_READ(bprm, file),
		      NULL, now);
	if (old) {
		proc_leave(old);
		pending_drop(old, m);
		old->end_ns = now;
		old->end = id ? END_EXEC : END_DETACHED;
	}
	if (!id) {
		t->state = STB_TASK_GONE;
		__sync_fetch_and_add(&m->live_tasks, -1);
		return 0;
	}
	t->proc_id = id;
	/* A thread's exec made it the leader: it has the leader's pid now. */
	t->tid = pid_in_ns(BPF_CORE_READ(task, thread_pid));
	t->inflight = 0;
	acct_base(t, task);
	t->state = STB_TASK_ACTIVE;
	stat_inc(&m->execs);
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
	struct stb_meta *m;
	__u64 now;

	t = bpf_task_storage_get(&tasks, task, 0, 0);
	m = meta_get();
	if (!t || !m)
		return 0;
	if (t->state == STB_TASK_PENDING) {
		t->state = STB_TASK_GONE;
		__sync_fetch_and_add(&m->live_tasks, -1);
		return 0;
	}
	if (t->state != STB_TASK_ACTIVE)
		return 0;
	now = bpf_ktime_get_ns();
	t->state = STB_TASK_GONE;
	p = bpf_map_lookup_elem(&procs, &t->proc_id);
	if (p) {
		/* exit and exit_group never return: complete them here. */
		if (t->inflight)
			account(t, 0, now);
		acct_fold(t, task, p);
		if (proc_leave(p)) {
			pending_drop(p, m);
			if (p->end == END_RUNNING)
				proc_exit(p, exit_status(task), now, m);
		}
	}
	__sync_fetch_and_add(&m->live_tasks, -1);
	return 0;
}
