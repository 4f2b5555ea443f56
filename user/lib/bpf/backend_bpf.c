// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend: one set of programs (bpf/systrace.bpf.c) for every
 * session, whose maps live in the pin tree (bpf_tree.c) so that sessions
 * outlive `start`; sessions are made, deleted and detached by
 * bpf_session.c. This file reads them into the model: the sessions'
 * slots, then each one's rows through fds of its own maps, which keep them
 * whole whatever another systracectl does meanwhile.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "backend.h"
#include "bpf/bpf_session.h"
#include "log/log.h"
#include "log/recorder.h"

/* A log record in its ring: the ring's 8-byte header, then the record. */
#define LOG_REC_BYTES	(8 + sizeof(struct stb_log_rec))
#define SEEN_MAX	64

/*
 * The tree this handle read first, held by its directory (never reopened
 * by path: root may remove it, or mount another bpffs, meanwhile), and the
 * sessions it has read there, with their tokens: a later read of the same
 * id is of the same session, or says it is gone.
 */
struct bpf_be {
	int tree;
	struct {
		uint32_t id;
		uint8_t token[STB_TOKEN_LEN];
	} seen[SEEN_MAX];
	size_t nseen;
};

/* Every command of the BPF backend needs what loading and reading its programs needs. */
static int bpf_be_open(void **priv, struct st_err *err)
{
	*priv = NULL;
	if (!st_bpf_capable())
		return st_bpf_perm_error(err, EPERM, "bpf");
	*priv = calloc(1, sizeof(struct bpf_be));
	if (!*priv) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "backend", NULL);
		return -ENOMEM;
	}
	((struct bpf_be *)*priv)->tree = -1;
	return 0;
}

static void bpf_be_close(void *priv)
{
	struct bpf_be *be = priv;

	if (be && be->tree >= 0)
		close(be->tree);
	free(be);
}

/* The handle's tree: the one it read first, or (none yet) the one at the path, then held. */
static int tree_open(struct bpf_be *be, struct st_tree *t, bool create, bool *exists,
		     struct st_err *err)
{
	bool found = false;
	int ret;

	ret = st_tree_open_held(t, be->tree, create, &found, err);
	if (exists)
		*exists = found;
	if (!ret && found && be->tree < 0)
		be->tree = st_tree_hold(t);
	return ret;
}

static int no_session(struct st_err *err, uint32_t id)
{
	st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
		   "no session with that id (%" PRIu32 "; see: systracectl list)", id);
	return -ENOENT;
}

/* Whether @s is the session this handle saw as @id before (or the first it sees). */
static int token_check(struct bpf_be *be, uint32_t id, const struct stb_sess *s,
		       struct st_err *err)
{
	size_t i;

	for (i = 0; i < be->nseen; i++) {
		if (be->seen[i].id != id)
			continue;
		if (memcmp(be->seen[i].token, s->token, STB_TOKEN_LEN)) {
			st_err_set(err, ST_ERR_NOSESSION, ENOENT, "session",
				   "session %" PRIu32 " was deleted: another session has its id now",
				   id);
			return -ENOENT;
		}
		return 0;
	}
	if (be->nseen < SEEN_MAX) {
		be->seen[be->nseen].id = id;
		memcpy(be->seen[be->nseen].token, s->token, STB_TOKEN_LEN);
		be->nseen++;
	}
	return 0;
}

/*
 * The tree, read-locked, with what a killed systracectl left settled
 * first. *exists false: there is no tree, hence no session.
 */
static int view_open(struct bpf_be *be, struct st_tree *t, bool *exists, struct st_err *err)
{
	int ret;

	ret = tree_open(be, t, false, exists, err);
	if (ret || !*exists)
		return ret;
	ret = st_tree_lock(t, LOCK_SH, err);
	if (!ret && (st_bpf_needs_settle(t) || st_bpf_spares_expired(t))) {
		ret = st_tree_lock(t, LOCK_EX, err);
		if (!ret)
			ret = st_bpf_settle(t, err);
		if (!ret)
			st_bpf_spares_expire(t);
		if (!ret)
			ret = st_tree_lock(t, LOCK_SH, err);
	}
	if (ret)
		st_tree_close(t);
	return ret;
}

static bool sess_exists(const struct stb_sess *s)
{
	return s->sid && (s->state == STB_SESS_LIVE || s->state == STB_SESS_DETACHED);
}

/* The slot of session @id; -ENOENT when it does not exist. */
static int slot_of(const struct st_tree *t, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < STB_MAX_SESSIONS; i++)
		if (sess_exists(&t->sess[i]) && t->sess[i].sid == id)
			return (int)i;
	return -ENOENT;
}

/* A session's data maps, opened while the tree is locked: they stay whole afterwards. */
struct bpf_session {
	uint32_t id, slot;
	struct stb_sess s;	/* a copy of its slot */
	int procs, sites, files, argv;
	int paths;		/* -1 when the session has no paths map */
	__u64 misses[2];
};

static void session_close(struct bpf_session *bs)
{
	if (bs->procs >= 0)
		close(bs->procs);
	if (bs->sites >= 0)
		close(bs->sites);
	if (bs->files >= 0)
		close(bs->files);
	if (bs->argv >= 0)
		close(bs->argv);
	if (bs->paths >= 0)
		close(bs->paths);
	bs->procs = bs->sites = bs->files = bs->argv = bs->paths = -1;
}

static int inner(struct st_tree *t, enum st_tree_map which, uint32_t slot, uint32_t key_size,
		 uint32_t value_size, const char *what, struct st_err *err)
{
	int fd = st_tree_inner(t, which, slot, err), ret;

	if (fd == -ENOENT) {
		st_err_set(err, ST_ERR_LOCAL, ENOENT, "session", "its %s map is missing", what);
		return -ENOENT;
	}
	if (fd < 0)
		return fd;
	ret = st_map_check(fd, BPF_MAP_TYPE_HASH, key_size, value_size, what, err);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* Session @slot of the locked tree @t, its maps opened. */
static int session_take(struct st_tree *t, uint32_t slot, struct bpf_session *bs,
			struct st_err *err)
{
	int ret;

	bs->slot = slot;
	bs->s = t->sess[slot];
	bs->id = (uint32_t)bs->s.sid;
	bs->procs = bs->sites = bs->files = bs->argv = bs->paths = -1;
	st_bpf_misses(t, &t->sess[slot], bs->misses);
	ret = inner(t, ST_M_PROCS, slot, sizeof(uint64_t), sizeof(struct stb_proc), "procs", err);
	if (ret < 0)
		goto fail;
	bs->procs = ret;
	ret = inner(t, ST_M_SITES, slot, sizeof(struct stb_site_key), sizeof(struct stb_site),
		    "sites", err);
	if (ret < 0)
		goto fail;
	bs->sites = ret;
	ret = inner(t, ST_M_FILES, slot, sizeof(struct stb_file_key), sizeof(struct stb_file),
		    "files", err);
	if (ret < 0)
		goto fail;
	bs->files = ret;
	ret = inner(t, ST_M_ARGV, slot, sizeof(struct stb_argv_key), STB_ARGV_CHUNK, "argv", err);
	if (ret < 0)
		goto fail;
	bs->argv = ret;
	ret = inner(t, ST_M_PATHS, slot, sizeof(struct stb_path_key), sizeof(struct stb_path_val),
		    "paths", err);
	if (ret < 0)
		goto fail;
	bs->paths = ret;
	return 0;
fail:
	session_close(bs);
	return ret;
}

/* Session @id, its token checked against what this handle saw of it. */
static int session_open(struct bpf_be *be, uint32_t id, struct bpf_session *bs,
			struct st_err *err)
{
	struct st_tree t;
	bool exists;
	int ret, slot;

	ret = view_open(be, &t, &exists, err);
	if (ret)
		return ret;
	if (!exists)
		return no_session(err, id);
	slot = slot_of(&t, id);
	if (slot < 0)
		ret = no_session(err, id);
	else
		ret = token_check(be, id, &t.sess[slot], err);
	if (!ret)
		ret = session_take(&t, (uint32_t)slot, bs, err);
	st_tree_close(&t);
	return ret;
}

/* Every process row, in a malloc'd array. */
static int read_procs(struct bpf_session *bs, struct stb_proc **out, size_t *n)
{
	struct stb_proc *rows = NULL, *more;
	uint64_t key, next;
	size_t cap = 0;
	void *prev = NULL;

	*n = 0;
	while (!bpf_map_get_next_key(bs->procs, prev, &next)) {
		key = next;
		prev = &key;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			more = realloc(rows, cap * sizeof(*rows));
			if (!more) {
				free(rows);
				return -ENOMEM;
			}
			rows = more;
		}
		if (!bpf_map_lookup_elem(bs->procs, &key, &rows[*n]))
			(*n)++;
	}
	*out = rows;
	return 0;
}

static bool counting(const struct stb_sess *s)
{
	return s->counters != SYSTRACE_COUNTERS_NONE && s->counting;
}

static void session_row(const struct bpf_session *bs, const struct stb_proc *procs,
			size_t nprocs, struct st_session_row *r)
{
	const struct stb_sess *s = &bs->s;
	const struct stb_meta *m = &s->m;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->id = bs->id;
	memcpy(r->name, s->name, sizeof(r->name));
	r->name[sizeof(r->name) - 1] = '\0';
	r->root_pid = s->root_pid;
	r->flags = s->flags;
	r->created_ns = s->created_ns;
	r->realtime_base_ns = s->realtime_base_ns;
	r->counters = s->counters;
	if (s->counters != SYSTRACE_COUNTERS_NONE && s->counters_error[0]) {
		r->has_counters_error = true;
		snprintf(r->counters_error, sizeof(r->counters_error), "%s", s->counters_error);
	}
	r->live_tasks = m->live_tasks > 0 ? (uint32_t)m->live_tasks : 0;
	if (s->state == STB_SESS_DETACHED)
		r->state = SYSTRACE_STATE_DETACHED;
	else if (!r->live_tasks)
		r->state = SYSTRACE_STATE_FINISHED;
	else if (!m->execs && (s->flags & SYSTRACE_SESSION_F_ON_EXEC))
		r->state = SYSTRACE_STATE_WAITING;
	else
		r->state = SYSTRACE_STATE_RUNNING;
	r->procs = m->procs;
	r->sites = m->sites;
	for (i = 0; i < nprocs; i++) {
		r->syscalls += procs[i].syscalls;
		r->errors += procs[i].errors;
		r->syscall_ns += procs[i].syscall_ns;
		if (counting(s)) {
			r->has_counter_value = true;
			r->counter_value += procs[i].counter_value;
		}
	}
	r->forks = m->forks;
	r->clones = m->clones;
	r->execs = m->execs;
	r->exits = m->exits;
	r->signal_exits = m->signal_exits;
	/* Runs of the programs the kernel skipped count as drops (an upper bound). */
	r->dropped_procs = m->dropped_procs + bs->misses[1];
	r->dropped_sites = m->dropped_sites;
	r->dropped_syscalls = m->dropped_syscalls + bs->misses[0];
	r->dropped_nomem = m->dropped_nomem;
	r->dropped_resolve = m->dropped_resolve;
	r->dropped_counters = m->dropped_counters;
	r->late_resolves = m->late_resolves;
	r->dropped_events = m->dropped_events;
	r->dropped_argv = m->dropped_argv;
	r->log_buffer = s->log_buffer;
	r->mem_bytes = m->mem_bytes;
	r->proc_row_bytes = STB_ELEM_COST(sizeof(uint64_t), sizeof(struct stb_proc));
	r->site_row_bytes = STB_ELEM_COST(sizeof(struct stb_site_key), sizeof(struct stb_site));
	r->backend = ST_BACKEND_BPF;
}

static int session_fill(struct bpf_session *bs, struct st_session_row *out, struct st_err *err)
{
	struct stb_proc *procs;
	size_t n;
	int ret;

	ret = read_procs(bs, &procs, &n);
	if (ret) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "read process rows", NULL);
		return ret;
	}
	session_row(bs, procs, n, out);
	free(procs);
	return 0;
}

static int bpf_be_status(void *priv, struct st_status *st, struct st_err *err)
{
	struct st_bpf_limits l;
	struct st_tree t;
	uint32_t i;
	bool exists;
	int ret;

	memset(st, 0, sizeof(*st));
	snprintf(st->version, sizeof(st->version), "bpf (libbpf %s; no module loaded)",
		 libbpf_version_string());
	st->abi_version = SYSTRACE_ABI_VERSION;
	st_bpf_limits(&l);
	st->params.max_sessions = STB_MAX_SESSIONS;
	st->params.max_procs = l.max_procs;
	st->params.max_sites = l.max_sites;
	st->params.max_mem_bytes = l.max_mem;
	ret = view_open(priv, &t, &exists, err);
	if (ret || !exists)
		return ret;
	for (i = 0; i < STB_MAX_SESSIONS; i++) {
		if (!sess_exists(&t.sess[i]))
			continue;
		st->sessions_live++;
		st->mem_bytes += t.sess[i].m.mem_bytes;
	}
	st->probes_active = st_bpf_attached(&t);
	st->spare_bytes = st_bpf_spares_bytes(&t);
	st_tree_close(&t);
	return 0;
}

static int bpf_be_session_new(void *priv, const struct st_session_req *req,
			      struct st_session_row *out, struct st_err *err)
{
	struct bpf_be *be = priv;
	struct bpf_session bs;
	struct st_tree t;
	uint8_t token[STB_TOKEN_LEN];
	uint64_t sid;
	uint32_t slot;
	int ret;

	ret = tree_open(be, &t, true, NULL, err);
	if (ret)
		return ret;
	ret = st_bpf_session_create(&t, req, &slot, &sid, token, err);
	if (!ret) {
		ret = st_tree_lock(&t, LOCK_SH, err);
		if (!ret && t.sess[slot].sid != sid)
			ret = no_session(err, (uint32_t)sid);
		if (!ret)
			ret = token_check(be, (uint32_t)sid, &t.sess[slot], err);
		if (!ret)
			ret = session_take(&t, slot, &bs, err);
		if (!ret) {
			ret = session_fill(&bs, out, err);
			session_close(&bs);
		}
	}
	st_tree_close(&t);
	return ret;
}

/* The tree write-locked for a change to session @id, settled; its slot in *slot. */
static int change_open(struct bpf_be *be, uint32_t id, struct st_tree *t, uint32_t *slot,
		       struct st_err *err)
{
	bool exists;
	int ret, n;

	st_bpf_stop_point("change");
	ret = tree_open(be, t, false, &exists, err);
	if (ret)
		return ret;
	if (!exists)
		return no_session(err, id);
	ret = st_tree_lock(t, LOCK_EX, err);
	if (!ret)
		ret = st_bpf_settle(t, err);
	if (!ret) {
		n = slot_of(t, id);
		ret = n < 0 ? no_session(err, id) : token_check(be, id, &t->sess[n], err);
		*slot = (uint32_t)n;
	}
	if (ret)
		st_tree_close(t);
	return ret;
}

/* A session changed by what (delete or detach), then its keeper waited for. */
typedef int (*session_change_fn)(struct st_tree *t, uint32_t slot, uint64_t sid,
				 struct st_keeper_id *k, struct st_err *err);

static int session_change(void *priv, uint32_t id, session_change_fn what,
			  struct st_err *err)
{
	struct st_keeper_id k = { 0 };
	struct st_tree t;
	uint32_t slot;
	int ret;

	ret = change_open(priv, id, &t, &slot, err);
	if (ret)
		return ret;
	ret = what(&t, slot, id, &k, err);
	st_tree_close(&t);
	st_bpf_keeper_wait(&k);
	return ret;
}

static int bpf_be_session_del(void *priv, uint32_t id, struct st_err *err)
{
	return session_change(priv, id, st_bpf_session_delete, err);
}

static int bpf_be_session_detach(void *priv, uint32_t id, struct st_err *err)
{
	return session_change(priv, id, st_bpf_session_detach, err);
}

static int bpf_be_session_get(void *priv, uint32_t id, struct st_session_row *out,
			      struct st_err *err)
{
	struct bpf_session bs;
	int ret;

	ret = session_open(priv, id, &bs, err);
	if (ret)
		return ret;
	ret = session_fill(&bs, out, err);
	session_close(&bs);
	return ret;
}

static int bpf_be_session_list(void *priv, struct st_session_row **out, size_t *n,
			       bool *interrupted, struct st_err *err)
{
	struct bpf_session bs[STB_MAX_SESSIONS];
	struct st_session_row *rows;
	struct st_tree t;
	size_t i, cnt = 0;
	bool exists;
	int ret;

	*out = NULL;
	*n = 0;
	if (interrupted)
		*interrupted = false;
	ret = view_open(priv, &t, &exists, err);
	if (ret)
		return ret;
	for (i = 0; exists && i < STB_MAX_SESSIONS; i++) {
		if (!sess_exists(&t.sess[i]))
			continue;
		/* Listed, then changed by id (reset --all, a name): the same session. */
		ret = token_check(priv, (uint32_t)t.sess[i].sid, &t.sess[i], err);
		if (!ret)
			ret = session_take(&t, (uint32_t)i, &bs[cnt], err);
		if (ret)
			break;
		cnt++;
	}
	if (exists)
		st_tree_close(&t);
	rows = ret ? NULL : calloc(cnt ? cnt : 1, sizeof(*rows));
	if (!ret && !rows) {
		st_err_set(err, ST_ERR_LOCAL, ENOMEM, "list", NULL);
		ret = -ENOMEM;
	}
	for (i = 0; i < cnt; i++) {
		if (!ret)
			ret = session_fill(&bs[i], &rows[i], err);
		session_close(&bs[i]);
	}
	if (ret) {
		free(rows);
		return ret;
	}
	*out = rows;
	*n = cnt;
	return 0;
}

/* The file's path, valid until the next call; NULL when unknown. */
static const char *file_path(int fd, const struct stb_file_key *key)
{
	static struct stb_file f;

	if (bpf_map_lookup_elem(fd, key, &f) || f.off >= STB_PATH_MAX)
		return NULL;
	f.buf[STB_PATH_MAX - 1] = '\0';
	return f.buf + f.off;
}

/*
 * User and system time as getrusage(2) gives them: the kernel's tick
 * samples (utime, stime) only split the runtime it measured exactly
 * (rtime), as cputime_adjust() does.
 */
static void cputime_adjust(uint64_t ut, uint64_t st, uint64_t rt, uint64_t *user,
			   uint64_t *sys)
{
	if (!st) {
		*user = rt;
		*sys = 0;
		return;
	}
	if (!ut) {
		*user = 0;
		*sys = rt;
		return;
	}
	*sys = (uint64_t)((unsigned __int128)st * rt / ((unsigned __int128)st + ut));
	*user = rt - *sys;
}

_Static_assert(STB_ARGV_MAX == SYSTRACE_ARGV_MAX, "argv bytes kept per image");

/*
 * The argv image @id kept at its exec (argv_keep in the programs): its
 * head and bytes, read back from the chunks. Unknown (0, *out NULL) when
 * a chunk is missing or the head does not hold: the chunks of an argv are
 * all there or none is. -ENOMEM.
 */
static int argv_read(int fd, uint64_t id, char **out, uint32_t *len, bool *truncated)
{
	char buf[STB_ARGV_CHUNKS * STB_ARGV_CHUNK];
	struct stb_argv_key key = { .proc_id = id };
	struct stb_argv_head h;
	uint32_t n, keep;
	char *argv;

	*out = NULL;
	*len = 0;
	*truncated = false;
	if (bpf_map_lookup_elem(fd, &key, buf))
		return 0;
	memcpy(&h, buf, sizeof(h));
	if (h.len > STB_ARGV_MAX || h.full < h.len)
		return 0;
	n = (uint32_t)(sizeof(h) + h.len + STB_ARGV_CHUNK - 1) / STB_ARGV_CHUNK;
	for (key.idx = 1; key.idx < n; key.idx++)
		if (bpf_map_lookup_elem(fd, &key, buf + key.idx * STB_ARGV_CHUNK))
			return 0;
	argv = buf + sizeof(h);
	keep = h.len;
	/*
	 * Longer than kept: cut after the last whole argument. So is a last
	 * argument without its NUL (the process rewrote its arguments' area
	 * before exec returned) when there is no room to add one.
	 */
	if (h.full > h.len || (keep && argv[keep - 1] && keep == STB_ARGV_MAX)) {
		while (keep && argv[keep - 1])
			keep--;
		*truncated = true;
	} else if (keep && argv[keep - 1]) {
		argv[keep++] = '\0';
	}
	*out = malloc(keep + 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, argv, keep);
	(*out)[keep] = '\0';
	*len = keep;
	return 0;
}

static int proc_row(const struct stb_sess *s, const struct stb_proc *p, int files_fd,
		    int argv_fd, struct st_proc_row *r)
{
	const char *path;

	memset(r, 0, sizeof(*r));
	r->id = p->id;
	r->parent_id = p->parent_id;
	r->prev_id = p->prev_id;
	r->pid = p->pid;
	r->tgid = p->tgid;
	r->ppid = p->ppid;
	memcpy(r->comm, p->comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = '\0';
	path = p->has_exe ? file_path(files_fd, &p->exe) : NULL;
	r->exe = path ? strdup(path) : NULL;
	r->start_ns = p->start_ns;
	r->end = p->end;
	r->has_end_ns = p->end != SYSTRACE_END_RUNNING;
	r->end_ns = p->end_ns;
	r->has_exit_code = p->end == SYSTRACE_END_EXITED;
	r->exit_code = p->exit_code;
	r->has_exit_signal = p->end == SYSTRACE_END_SIGNALED;
	r->exit_signal = p->exit_signal;
	r->core_dumped = p->core_dumped;
	r->threads = p->threads;
	r->syscalls = p->syscalls;
	r->errors = p->errors;
	r->syscall_ns = p->syscall_ns;
	r->sites = p->sites;
	cputime_adjust(p->utime, p->stime, p->rtime, &r->user_ns, &r->sys_ns);
	r->nvcsw = p->nvcsw;
	r->nivcsw = p->nivcsw;
	r->minflt = p->minflt;
	r->majflt = p->majflt;
	r->attached = p->attached;
	if (counting(s)) {
		r->has_counter_value = true;
		r->counter_value = p->counter_value;
		r->counter_tasks = p->counter_tasks;
	}
	if (!p->argv_of)
		return 0;
	return argv_read(argv_fd, p->argv_of, &r->argv, &r->argv_len, &r->argv_truncated);
}

/* The kernel's dev_t (major << 20 | minor) as stat(2) gives it, as the module reports it. */
static uint32_t dev_encode(uint32_t kdev)
{
	uint32_t major = kdev >> 20, minor = kdev & 0xfffff;

	return (minor & 0xff) | (major << 8) | ((minor & ~0xffU) << 12);
}

/*
 * The sites of one file share its path: a few pooled paths kept by file
 * key spare most sites a map lookup and a copy of the path's 4 KiB buffer.
 */
#define PATH_CACHE 256

struct path_cache {
	struct stb_file_key key;
	const char *path;		/* pooled in the dump; NULL: empty */
};

static int site_path(int files_fd, struct st_dump *d, struct path_cache *pc,
		     const struct stb_file_key *key, const char **out)
{
	uint64_t h = (key->ino ^ (uint64_t)key->dev << 40) * 0x9e3779b97f4a7c15ULL;
	struct path_cache *c = &pc[h >> 56];
	int ret;

	if (c->path && c->key.ino == key->ino && c->key.dev == key->dev) {
		*out = c->path;
		return 0;
	}
	ret = st_dump_str(d, file_path(files_fd, key), out);
	if (!ret && *out) {
		c->key = *key;
		c->path = *out;
	}
	return ret;
}

_Static_assert(STB_SITE_ERRNOS == SYSTRACE_SITE_ERRNOS, "a site's errno slots");

/*
 * A site's errnos from its slots (count_errno in the programs), and its
 * errors: their sum, so a row read while its calls fail adds up still.
 */
static int site_errnos(struct st_dump *d, const struct stb_site *v, struct st_site_row *r)
{
	struct st_errnos e = { .other = v->errno_other };
	uint64_t slot, count;
	uint32_t i;

	for (i = 0; i < STB_SITE_ERRNOS; i++) {
		slot = v->errnos[i];
		count = slot & STB_ERRNO_COUNT;
		/* A slot's errno is in 1..4095: st_errnos_add keeps it (n < 4). */
		st_errnos_add(&e, (uint32_t)(slot >> STB_ERRNO_SHIFT), count);
	}
	r->errors = st_errnos_total(&e);
	return st_dump_errnos(d, &e, &r->errnos);
}

static int read_sites(struct bpf_session *bs, struct st_dump *d)
{
	struct path_cache paths[PATH_CACHE] = { 0 };
	struct stb_site_key key, next;
	struct st_site_row *more, *r, one;
	struct stb_site v;
	size_t cap = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(bs->sites, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(bs->sites, &key, &v))
			continue;
		if (!d->sink && d->nsites == cap) {
			cap = cap ? 2 * cap : 256;
			more = realloc(d->sites, cap * sizeof(*more));
			if (!more)
				return -ENOMEM;
			d->sites = more;
		}
		r = d->sink ? &one : &d->sites[d->nsites];
		if (d->sink)
			d->sunk++;
		else
			d->nsites++;
		memset(r, 0, sizeof(*r));
		r->proc_id = key.proc_id;
		r->addr = key.addr;
		r->nr = key.nr;
		r->abi = key.abi;
		r->map = v.map;
		if (v.map == SYSTRACE_MAP_FILE && v.has_path &&
		    site_path(bs->files, d, paths, &v.file, &r->path))
			return -ENOMEM;
		r->offset = v.offset;
		r->has_file_id = v.has_file_id;
		r->inode = v.file.ino;
		r->dev = dev_encode(v.file.dev);
		r->mtime_ns = v.mtime_ns;
		r->calls = v.calls;
		if (site_errnos(d, &v, r))
			return -ENOMEM;
		r->total_ns = v.total_ns;
		r->min_ns = v.calls ? v.min_ns : 0;
		r->max_ns = v.max_ns;
		r->first_ns = v.first_ns;
		r->first_ordinal = v.first_ordinal;
		if (d->sink && d->sink->row(d->sink->ctx, d, r))
			return -ENOMEM;
	}
	return 0;
}

/* The paths of the session's file calls, as many as `paths` holds. */
static int read_paths(struct bpf_session *bs, struct st_dump *d)
{
	struct stb_path_key key, next;
	struct st_path_row *r, *more;
	size_t cap = 0;
	void *prev = NULL;
	struct stb_path_val v;
	int ret;

	d->has_paths = true;
	d->paths_mode = bs->s.paths_mode == STB_PATHS_ALL ? ST_PATHS_ALL :
			bs->s.paths_mode == STB_PATHS_OFF ? ST_PATHS_OFF : ST_PATHS_ERRORS;
	d->dropped_paths = bs->s.m.dropped_paths;
	while (!bpf_map_get_next_key(bs->paths, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(bs->paths, &key, &v))
			continue;
		if (d->npaths == cap) {
			cap = cap ? 2 * cap : 256;
			more = realloc(d->paths, cap * sizeof(*more));
			if (!more)
				return -ENOMEM;
			d->paths = more;
		}
		r = &d->paths[d->npaths];
		memset(r, 0, sizeof(*r));
		r->proc_id = key.proc_id;
		r->addr = key.addr;
		r->abi = key.abi;
		r->nr = key.nr;
		r->err = key.err;
		r->kind = key.kind == STB_PATH_LONG ? ST_PATH_LONG :
			  key.kind == STB_PATH_UNREADABLE ? ST_PATH_UNREADABLE : ST_PATH_OK;
		r->count = v.count;
		r->id = v.id;
		key.path[STB_FPATH_LEN - 1] = 0;
		if (r->kind == ST_PATH_OK) {
			ret = st_dump_str(d, key.path, &r->path);
			if (ret)
				return ret;
		}
		d->npaths++;
	}
	return 0;
}

static int bpf_be_dump(void *priv, uint32_t id, struct st_dump *d,
		       const struct st_site_sink *sink, struct st_err *err)
{
	struct bpf_session bs;
	struct stb_proc *procs;
	size_t i, n;
	int ret;

	memset(d, 0, sizeof(*d));
	d->sink = sink;
	ret = session_open(priv, id, &bs, err);
	if (ret)
		return ret;
	ret = read_procs(&bs, &procs, &n);
	if (ret)
		goto fail;
	session_row(&bs, procs, n, &d->session);
	d->procs = calloc(n ? n : 1, sizeof(*d->procs));
	if (!d->procs) {
		free(procs);
		ret = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < n && !ret; i++) {
		ret = proc_row(&bs.s, &procs[i], bs.files, bs.argv, &d->procs[i]);
		if (!ret && sink && sink->proc)
			ret = sink->proc(sink->ctx, d, &d->procs[i]);
	}
	d->nprocs = n;
	free(procs);
	if (ret)
		goto fail;
	ret = read_sites(&bs, d);
	if (!ret)
		ret = read_paths(&bs, d);
	if (ret)
		goto fail;
	session_close(&bs);
	return 0;
fail:
	st_err_set(err, ST_ERR_LOCAL, -ret, "read session", "%" PRIu32, id);
	session_close(&bs);
	st_dump_free(d);
	return ret;
}

struct log_drain {
	struct st_log *log;
	size_t n;
	size_t left;		/* records this ring may still give */
	int err;
};

/* One record of a ring: a syscall event, as the module's LOG_READ gives it. */
static int log_event(void *ctx, void *data, size_t size)
{
	struct log_drain *ld = ctx;
	const struct stb_log_rec *r = data;
	struct st_event ev = { .kind = ST_EV_SYSCALL };

	if (size < sizeof(*r))
		return 0;
	ev.ts_ns = r->ts_ns;
	ev.dur_ns = r->dur_ns;
	ev.proc_id = r->proc_id;
	ev.seq = r->seq;
	ev.addr = r->addr;
	ev.ret = r->ret;
	ev.pid = r->tgid;
	ev.tid = r->tid;
	ev.nr = r->nr;
	ev.abi = r->abi;
	ev.path_id = r->path_id;
	if (st_log_push(ld->log, &ev)) {
		ld->err = -ENOMEM;
		return -ENOMEM;
	}
	ld->n++;
	/* A stop, not an error: the ring's capacity is read at most. */
	return --ld->left ? 0 : -ENOSPC;
}

/*
 * Reads the records of ring @fd, then closes it: at most as many as it
 * holds, so that a drain ends however fast the programs write. The ring
 * keeps its consumer position, so a later reader goes on from there.
 */
static int log_ring_drain(int fd, struct log_drain *ld, struct st_err *err)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);
	struct ring_buffer *rb;
	int ret;

	ret = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (ret || info.type != BPF_MAP_TYPE_RINGBUF) {
		ret = ret ? -errno : -EINVAL;
		st_err_set(err, ST_ERR_LOCAL, -ret, "log ring", "not a ring buffer");
		close(fd);
		return ret;
	}
	ld->left = info.max_entries / LOG_REC_BYTES;
	rb = ring_buffer__new(fd, log_event, ld, NULL);
	if (!rb) {
		ret = -errno;
		st_err_set(err, ST_ERR_LOCAL, -ret, "log ring", NULL);
		close(fd);
		return ret;
	}
	ret = ring_buffer__consume(rb);
	ring_buffer__free(rb);
	close(fd);
	if (ld->err) {
		st_err_set(err, ST_ERR_LOCAL, -ld->err, "log", NULL);
		return ld->err;
	}
	if (ret < 0 && ret != -ENOSPC) {
		st_err_set(err, ST_ERR_LOCAL, -ret, "log ring", NULL);
		return ret;
	}
	return 0;
}

static int bpf_be_log_read(void *priv, uint32_t id, struct st_log *log, size_t *n,
			   struct st_err *err)
{
	struct log_drain ld = { .log = log };
	int rings[1024], nrings = 0, i, slot, ret;
	struct st_tree t;
	bool exists;
	uint32_t cpu, key;

	*n = 0;
	ret = view_open(priv, &t, &exists, err);
	if (ret)
		return ret;
	if (!exists)
		return no_session(err, id);
	slot = slot_of(&t, id);
	if (slot < 0)
		ret = no_session(err, id);
	else
		ret = token_check(priv, id, &t.sess[slot], err);
	if (!ret && !t.sess[slot].log_buffer) {
		st_err_set(err, ST_ERR_REFUSED, ENOENT, "log", "session %" PRIu32 " keeps no log",
			   id);
		ret = -ENOENT;
	}
	/* One ring per possible CPU, taken while the tree is locked. */
	for (cpu = 0; !ret && cpu < t.sess[slot].log_ncpus && nrings < 1024; cpu++) {
		key = (uint32_t)slot * t.host.ncpus + cpu;
		rings[nrings] = st_tree_inner(&t, ST_M_LOGS, key, err);
		if (rings[nrings] == -ENOENT)
			continue;
		if (rings[nrings] < 0)
			ret = rings[nrings];
		else
			nrings++;
	}
	if (!ret)
		ret = st_tree_lock(&t, LOCK_UN, err);
	for (i = 0; i < nrings; i++) {
		if (ret)
			close(rings[i]);
		else
			ret = log_ring_drain(rings[i], &ld, err);
	}
	/* A finished session's rings go once drained. */
	if (!ret && t.sess[slot].compacted && !st_tree_lock(&t, LOCK_EX, err)) {
		if (t.sess[slot].sid == id)
			st_bpf_rings_drop(&t, (uint32_t)slot);
		st_tree_lock(&t, LOCK_UN, err);
	}
	st_tree_close(&t);
	*n = ld.n;
	return ret;
}

const struct st_backend_ops st_backend_bpf = {
	.open = bpf_be_open,
	.close = bpf_be_close,
	.status = bpf_be_status,
	.session_new = bpf_be_session_new,
	.session_del = bpf_be_session_del,
	.session_detach = bpf_be_session_detach,
	.session_get = bpf_be_session_get,
	.session_list = bpf_be_session_list,
	.dump = bpf_be_dump,
	.log_read = bpf_be_log_read,
};
