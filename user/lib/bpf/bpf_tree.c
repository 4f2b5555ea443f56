// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF backend's pin tree (bpf_tree.h): made, found and checked. bpffs
 * is mode 1777 on most hosts, so /sys/fs/bpf/systrace may have been made
 * by anyone: it is used only when it is root's directory of mode 0700,
 * and nothing under it is followed as a link.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/bpf_tree.h"
#include "systrace.skel.h"

#define BPF_FS_MAGIC_	0xcafe4a11
#define CAP_SYS_ADMIN_	21

static const char *const pin_names[ST_M_COUNT] = {
	[ST_M_HOST] = STB_PIN_HOST,
	[ST_M_TASKS] = STB_PIN_TASKS,
	[ST_M_SESSIONS] = STB_PIN_SESSIONS,
	[ST_M_PROCS] = STB_PIN_PROCS,
	[ST_M_SITES] = STB_PIN_SITES,
	[ST_M_FILES] = STB_PIN_FILES,
	[ST_M_LOGS] = STB_PIN_LOGS,
	[ST_M_NOTIFY] = STB_PIN_NOTIFY,
	[ST_M_COUNTERS] = STB_PIN_COUNTERS,
	[ST_M_ARGV] = STB_PIN_ARGV,
	[ST_M_PATHS] = STB_PIN_PATHS,
};

/* What each pin must be: the kernel's name of the map, its type and sizes. */
static const struct {
	const char *name;
	enum bpf_map_type type;
	uint32_t key, value;
} pin_kind[ST_M_COUNT] = {
	[ST_M_HOST] = { "st_host", BPF_MAP_TYPE_ARRAY, 4, sizeof(struct stb_host) },
	[ST_M_TASKS] = { "st_tasks", BPF_MAP_TYPE_TASK_STORAGE, 4, sizeof(struct stb_task) },
	[ST_M_SESSIONS] = { "st_sessions", BPF_MAP_TYPE_ARRAY, 4, sizeof(struct stb_sess) },
	[ST_M_PROCS] = { "st_procs", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4 },
	[ST_M_SITES] = { "st_sites", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4 },
	[ST_M_FILES] = { "st_files", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4 },
	[ST_M_LOGS] = { "st_logs", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4 },
	[ST_M_NOTIFY] = { "st_notify", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4 },
	[ST_M_COUNTERS] = { "st_counters", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4 },
	[ST_M_ARGV] = { "st_argv", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4 },
	[ST_M_PATHS] = { "st_paths", BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4 },
};

int st_bpf_perm_error(struct st_err *err, int e, const char *op)
{
	if (!st_bpf_capable())
		st_err_set(err, ST_ERR_REFUSED, e, op,
			   "the BPF backend needs root (CAP_SYS_ADMIN, which this process "
			   "lacks): its sessions are root's, under " ST_TREE " (mode 0700)");
	else
		st_err_set(err, ST_ERR_KERNEL, e, op, "permission denied to the BPF backend");
	return -e;
}

int st_bpf_errno(struct st_err *err, int e, const char *op, const char *what)
{
	if (e == EPERM || e == EACCES)
		return st_bpf_perm_error(err, e, op);
	st_err_set(err, ST_ERR_LOCAL, e, op, "%s", what);
	return -e;
}

bool st_bpf_fd_is(int fd, const char *kind)
{
	char path[64], target[64], want[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	snprintf(want, sizeof(want), "anon_inode:%s", kind);
	return !strcmp(target, want);
}

bool st_bpf_capable(void)
{
	unsigned long long eff = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << CAP_SYS_ADMIN_);
}

/* libbpf's warnings, the last LOG_KEEP bytes of them. */
#define LOG_KEEP 16384
static char log_buf[LOG_KEEP];
static size_t log_len;

static void log_append(const char *s, size_t n)
{
	if (n >= LOG_KEEP) {
		s += n - (LOG_KEEP - 1);
		n = LOG_KEEP - 1;
	}
	if (log_len + n >= LOG_KEEP) {
		size_t drop = log_len + n - (LOG_KEEP - 1);

		memmove(log_buf, log_buf + drop, log_len - drop);
		log_len -= drop;
	}
	memcpy(log_buf + log_len, s, n);
	log_len += n;
	log_buf[log_len] = '\0';
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *buf = NULL;
	va_list copy;
	int n;

	if (level == LIBBPF_DEBUG)
		return 0;
	va_copy(copy, ap);
	n = vasprintf(&buf, fmt, copy);
	va_end(copy);
	if (n > 0)
		log_append(buf, (size_t)n);
	free(buf);
	if (getenv("SYSTRACE_BPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

void st_bpf_log_add(const char *s)
{
	log_append(s, strlen(s));
}

void st_bpf_log_start(void)
{
	log_len = 0;
	log_buf[0] = '\0';
	libbpf_set_print(print_libbpf);
}

/*
 * The last @lines lines libbpf logged (the verifier's log ends there, then
 * libbpf's own reason), without the frame around the verifier's log, each
 * cut to 200 bytes, as many of the last ones as fit in @len.
 */
void st_bpf_log_tail(char *buf, size_t len, int lines)
{
	const char *line[64], *p = log_buf + log_len, *e;
	size_t size[64], used = 0;
	int count = 0, i;

	buf[0] = '\0';
	if (lines > 64)
		lines = 64;
	while (p > log_buf && count < lines) {
		e = p;
		while (p > log_buf && p[-1] != '\n')
			p--;
		if (e > p && !memmem(p, (size_t)(e - p), "PROG LOAD LOG --", 16)) {
			size[count] = (size_t)(e - p) > 200 ? 200 : (size_t)(e - p);
			if (used + size[count] + 1 >= len)
				break;
			used += size[count] + 1;
			line[count++] = p;
		}
		if (p > log_buf)
			p--;
	}
	used = 0;
	for (i = count - 1; i >= 0; i--) {
		memcpy(buf + used, line[i], size[i]);
		used += size[i];
		buf[used++] = i ? '\n' : '\0';
	}
	if (!count)
		buf[0] = '\0';
}

void st_tree_path(const struct st_tree *t, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/self/fd/%d/%s", t->dir, name);
}

int st_tree_pin(const struct st_tree *t, int fd, const char *name)
{
	char path[PATH_MAX];

	st_tree_path(t, name, path, sizeof(path));
	if (bpf_obj_pin(fd, path) || fchmodat(t->dir, name, 0600, 0))
		return -errno;
	return 0;
}

int st_tree_mkdir(const struct st_tree *t, const char *name)
{
	if (mkdirat(t->dir, name, 0700))
		return errno == EEXIST ? 0 : -errno;
	return fchmodat(t->dir, name, 0700, 0) ? -errno : 0;
}

int st_map_check(int fd, enum bpf_map_type type, uint32_t key_size, uint32_t value_size,
		 const char *what, struct st_err *err)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return st_bpf_errno(err, errno, "bpf map info", what);
	if (info.type != type || info.key_size != key_size || info.value_size != value_size) {
		st_err_set(err, ST_ERR_LOCAL, EINVAL, "bpf map",
			   "%s is not the map systracectl made (type %u, key %u, value %u bytes)",
			   what, info.type, info.key_size, info.value_size);
		return -EINVAL;
	}
	return 0;
}

/* Root's directory of mode 0700 on bpffs, or a message saying what it is instead. */
static int dir_check(int dir, struct st_err *err)
{
	struct statfs sfs;
	struct stat st;

	if (fstat(dir, &st) || fstatfs(dir, &sfs))
		return st_bpf_errno(err, errno, "stat", ST_TREE);
	if ((unsigned long)sfs.f_type != BPF_FS_MAGIC_) {
		st_err_set(err, ST_ERR_LOCAL, EINVAL, ST_TREE,
			   "not on a BPF filesystem; unmount what is mounted there");
		return -EINVAL;
	}
	if (st.st_uid != 0) {
		st_err_set(err, ST_ERR_LOCAL, EPERM, ST_TREE,
			   "owned by uid %u, not root: another user made it, and the BPF backend "
			   "keeps its sessions only in a directory of root's; remove it as root "
			   "(rm -r " ST_TREE ") and try again", (unsigned int)st.st_uid);
		return -EPERM;
	}
	if ((st.st_mode & 07777) != 0700) {
		st_err_set(err, ST_ERR_LOCAL, EPERM, ST_TREE,
			   "mode %04o, not 0700: other users could change it; if root made it, "
			   "fix it with: chmod 0700 " ST_TREE, (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int pin_index(const char *name)
{
	int i;

	for (i = 0; i < ST_M_COUNT; i++)
		if (!strcmp(name, pin_names[i]))
			return i;
	return -1;
}

/*
 * Which pins the tree holds (a bit per enum st_tree_map), refusing what
 * this layout has no place for: an older systracectl's session folders
 * first of all.
 */
static int tree_scan(int dir, unsigned int *pins, bool *keep, struct st_err *err)
{
	char old[NAME_MAX + 1] = "";
	struct dirent *de;
	DIR *d;
	int fd, i;

	*pins = 0;
	*keep = false;
	fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return st_bpf_errno(err, errno, "read", ST_TREE);
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		i = pin_index(de->d_name);
		if (i >= 0) {
			*pins |= 1U << i;
			continue;
		}
		if (!strcmp(de->d_name, ST_KEEP_DIR)) {
			*keep = true;
			continue;
		}
		if (!strncmp(de->d_name, ST_BPF_PROG_PIN, strlen(ST_BPF_PROG_PIN)) ||
		    !strncmp(de->d_name, ST_BPF_SPARE_PIN, strlen(ST_BPF_SPARE_PIN)))
			continue;
		if (all_digits(de->d_name)) {
			if (!old[0])
				snprintf(old, sizeof(old), "%s", de->d_name);
			continue;
		}
		closedir(d);
		st_err_set(err, ST_ERR_LOCAL, EEXIST, ST_TREE,
			   "holds \"%s\", which this systracectl did not make; remove it as root "
			   "(rm -r " ST_TREE "/%s) after checking what it is", de->d_name, de->d_name);
		return -EEXIST;
	}
	closedir(d);
	if (old[0]) {
		st_err_set(err, ST_ERR_LOCAL, EEXIST, ST_TREE,
			   "holds sessions of an older systracectl (%s%s) whose programs may still "
			   "be attached; this one does not read that layout. Read them with the "
			   "older systracectl if you need them, then remove them as root: "
			   "rm -r " ST_TREE, old, *pins ? ", ..." : "");
		return -EEXIST;
	}
	return 0;
}

/* bpf_obj_get() of pin @i, checked: a file of root's, the map this layout puts there. */
static int pin_open(struct st_tree *t, int i, struct st_err *err)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (fstatat(t->dir, pin_names[i], &st, AT_SYMLINK_NOFOLLOW))
		return st_bpf_errno(err, errno, "stat", pin_names[i]);
	if (!S_ISREG(st.st_mode) || st.st_uid != 0) {
		st_err_set(err, ST_ERR_LOCAL, EINVAL, ST_TREE,
			   "%s is not a pinned BPF map of root's; remove the tree as root "
			   "(rm -r " ST_TREE ") and try again", pin_names[i]);
		return -EINVAL;
	}
	st_tree_path(t, pin_names[i], path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return st_bpf_errno(err, errno, "bpf_obj_get", pin_names[i]);
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != pin_kind[i].type ||
	    info.key_size != pin_kind[i].key || info.value_size != pin_kind[i].value ||
	    strcmp(info.name, pin_kind[i].name)) {
		close(fd);
		st_err_set(err, ST_ERR_LOCAL, EINVAL, ST_TREE,
			   "%s is not the map this systracectl pins there (\"%s\", type %u, "
			   "value %u bytes); remove the tree as root (rm -r " ST_TREE ") and try again",
			   pin_names[i], info.name, info.type, info.value_size);
		return -EINVAL;
	}
	if (i == ST_M_TASKS)
		t->tasks_id = info.id;
	return fd;
}

static int pin(struct st_tree *t, int fd, const char *name, struct st_err *err)
{
	int ret = st_tree_pin(t, fd, name);

	return ret ? st_bpf_errno(err, -ret, "bpf_obj_pin", name) : 0;
}

/*
 * Makes the tree's maps with the programs' definitions (no program is
 * loaded) and pins them; `host` last, so that a tree with a host is whole.
 */
static int tree_make(struct st_tree *t, struct st_err *err)
{
	struct stb_host host = { .magic = STB_MAGIC, .layout = STB_LAYOUT };
	struct bpf_map *maps[ST_M_COUNT] = { 0 };
	struct systrace_bpf *skel;
	struct bpf_program *prog;
	uint32_t zero = 0;
	int ncpus, ret, i, hfd = -1;

	ncpus = libbpf_num_possible_cpus();
	if (ncpus < 1) {
		st_err_set(err, ST_ERR_LOCAL, -ncpus, "possible CPUs", NULL);
		return ncpus ? ncpus : -EINVAL;
	}
	host.ncpus = (uint32_t)ncpus;
	st_bpf_log_start();
	skel = systrace_bpf__open();
	if (!skel) {
		st_err_set(err, ST_ERR_LOCAL, errno, "bpf open", NULL);
		return -errno;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	bpf_map__set_autocreate(skel->maps.st_attach_rows, false);
	bpf_map__set_autocreate(skel->maps.st_scratch, false);
	bpf_map__set_max_entries(skel->maps.st_logs, STB_MAX_SESSIONS * (uint32_t)ncpus);
	ret = systrace_bpf__load(skel);
	if (ret) {
		st_bpf_errno(err, -ret, "bpf map create", "the pin tree's maps");
		goto out;
	}
	maps[ST_M_TASKS] = skel->maps.st_tasks;
	maps[ST_M_SESSIONS] = skel->maps.st_sessions;
	maps[ST_M_PROCS] = skel->maps.st_procs;
	maps[ST_M_SITES] = skel->maps.st_sites;
	maps[ST_M_FILES] = skel->maps.st_files;
	maps[ST_M_LOGS] = skel->maps.st_logs;
	maps[ST_M_NOTIFY] = skel->maps.st_notify;
	maps[ST_M_COUNTERS] = skel->maps.st_counters;
	maps[ST_M_ARGV] = skel->maps.st_argv;
	maps[ST_M_PATHS] = skel->maps.st_paths;
	ret = st_tree_mkdir(t, ST_KEEP_DIR);
	if (ret) {
		ret = st_bpf_errno(err, -ret, "mkdir", ST_TREE "/" ST_KEEP_DIR);
		goto out;
	}
	for (i = 0; i < ST_M_COUNT; i++) {
		if (!maps[i])
			continue;
		ret = pin(t, bpf_map__fd(maps[i]), pin_names[i], err);
		if (ret)
			goto out;
	}
	hfd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "st_host", 4, sizeof(host), 1, NULL);
	if (hfd < 0) {
		ret = st_bpf_errno(err, errno, "bpf map create", "host");
		goto out;
	}
	if (bpf_map_update_elem(hfd, &zero, &host, BPF_ANY)) {
		ret = st_bpf_errno(err, errno, "bpf map update", "host");
		goto out;
	}
	ret = pin(t, hfd, STB_PIN_HOST, err);
out:
	if (hfd >= 0)
		close(hfd);
	systrace_bpf__destroy(skel);
	return ret;
}

/* Removes the pins a make killed halfway left (no host: not a tree yet). */
static int tree_unmake(struct st_tree *t, unsigned int pins, struct st_err *err)
{
	int i;

	for (i = 0; i < ST_M_COUNT; i++)
		if ((pins & (1U << i)) && unlinkat(t->dir, pin_names[i], 0) && errno != ENOENT)
			return st_bpf_errno(err, errno, "unlink", pin_names[i]);
	return 0;
}

/* bpffs at /sys/fs/bpf, mounted now if it was not and @mount. */
static int bpffs_open(bool mount_it, int *fd, struct st_err *err)
{
	struct statfs sfs;

	if (statfs(ST_BPFFS, &sfs) == 0 && (unsigned long)sfs.f_type == BPF_FS_MAGIC_)
		goto open;
	if (!mount_it) {
		*fd = -1;
		return 0;
	}
	if (mount("bpf", ST_BPFFS, "bpf", 0, NULL)) {
		int e = errno;

		st_err_set(err, e == EPERM ? ST_ERR_KERNEL : ST_ERR_LOCAL, e, "bpffs",
			   "no BPF filesystem at " ST_BPFFS " and it cannot be mounted; "
			   "mount it as root with: mount -t bpf bpf " ST_BPFFS);
		return -e;
	}
open:
	*fd = open(ST_BPFFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return st_bpf_errno(err, errno, "open", ST_BPFFS);
	return 0;
}

/* The tree's directory, made when @create; -ENOENT when absent. */
static int dir_open(int bpffs, bool create, struct st_err *err)
{
	bool made = false;
	int dir, e;

	for (;;) {
		dir = openat(bpffs, "systrace", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* Its mode whatever the umask: bpffs is sticky, so what we made is ours. */
		if (dir >= 0 && made && fchmod(dir, 0700)) {
			e = errno;
			close(dir);
			return st_bpf_errno(err, e, "chmod", ST_TREE);
		}
		if (dir >= 0)
			return dir;
		e = errno;
		if (e == ENOENT && create) {
			made = !mkdirat(bpffs, "systrace", 0700);
			if (made || errno == EEXIST)
				continue;
			if (errno == EACCES || errno == EPERM)
				return st_bpf_perm_error(err, errno, "mkdir " ST_TREE);
			return st_bpf_errno(err, errno, "mkdir", ST_TREE);
		}
		if (e == ENOENT)
			return -ENOENT;
		if (e == ELOOP || e == ENOTDIR) {
			struct stat st;
			bool link = !fstatat(bpffs, "systrace", &st, AT_SYMLINK_NOFOLLOW) &&
				    S_ISLNK(st.st_mode);

			st_err_set(err, ST_ERR_LOCAL, e, ST_TREE,
				   "not a directory (%s): another user may have put it there; "
				   "remove it as root (rm " ST_TREE ") and try again",
				   link ? "a symbolic link, not followed" : "a file");
			return -e;
		}
		if (e == EACCES || e == EPERM)
			return st_bpf_perm_error(err, e, "open " ST_TREE);
		return st_bpf_errno(err, e, "open", ST_TREE);
	}
}

static int host_read(struct st_tree *t, struct st_err *err)
{
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(t->fd[ST_M_HOST], &zero, &t->host))
		return st_bpf_errno(err, errno, "bpf map lookup", "host");
	if (t->host.magic != STB_MAGIC || t->host.layout != STB_LAYOUT) {
		st_err_set(err, ST_ERR_LOCAL, EINVAL, ST_TREE,
			   "made by a systracectl of another layout (%u, this one reads %u); "
			   "read its sessions with that systracectl, then remove it as root: "
			   "rm -r " ST_TREE, t->host.layout, STB_LAYOUT);
		return -EINVAL;
	}
	return 0;
}

int st_tree_host_write(struct st_tree *t, struct st_err *err)
{
	uint32_t zero = 0;

	if (bpf_map_update_elem(t->fd[ST_M_HOST], &zero, &t->host, BPF_ANY))
		return st_bpf_errno(err, errno, "bpf map update", "host");
	return 0;
}

static int tree_maps_open(struct st_tree *t, struct st_err *err)
{
	int i, ret;

	for (i = 0; i < ST_M_COUNT; i++) {
		ret = pin_open(t, i, err);
		if (ret < 0)
			return ret;
		t->fd[i] = ret;
	}
	ret = host_read(t, err);
	if (ret)
		return ret;
	t->sess_len = (size_t)STB_MAX_SESSIONS * sizeof(struct stb_sess);
	t->sess = mmap(NULL, t->sess_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       t->fd[ST_M_SESSIONS], 0);
	if (t->sess == MAP_FAILED) {
		t->sess = NULL;
		return st_bpf_errno(err, errno, "mmap", "sessions");
	}
	return 0;
}

/* Takes or lets go of the lock; the host entry is read again under it. */
int st_tree_lock(struct st_tree *t, int how, struct st_err *err)
{
	while (flock(t->dir, how)) {
		if (errno == EINTR)
			continue;
		return st_bpf_errno(err, errno, "flock", ST_TREE);
	}
	t->locked = how == LOCK_UN ? 0 : how;
	if (how != LOCK_UN && t->fd[ST_M_HOST] >= 0)
		return host_read(t, err);
	return 0;
}

static void tree_init(struct st_tree *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->dir = -1;
	for (i = 0; i < ST_M_COUNT; i++)
		t->fd[i] = -1;
}

/* Makes the tree's maps unless another systracectl just did; under LOCK_EX. */
static int tree_ensure(struct st_tree *t, struct st_err *err)
{
	unsigned int pins;
	bool keep;
	int ret;

	ret = st_tree_lock(t, LOCK_EX, err);
	if (ret)
		return ret;
	ret = tree_scan(t->dir, &pins, &keep, err);
	if (!ret && !(pins & (1U << ST_M_HOST))) {
		ret = tree_unmake(t, pins, err);
		if (!ret)
			ret = tree_make(t, err);
	}
	st_tree_lock(t, LOCK_UN, err);
	return ret;
}

/* The directory @held, opened again (a file of its own); gone when it was removed. */
static int held_open(int held, struct st_err *err)
{
	struct stat st;
	int dir;

	if (fstat(held, &st))
		return st_bpf_errno(err, errno, "stat", ST_TREE);
	if (st.st_nlink == 0) {
		st_err_set(err, ST_ERR_NOSESSION, ESTALE, ST_TREE,
			   "the pin tree this command read was removed since (rm -r " ST_TREE
			   "): its sessions are gone");
		return -ESTALE;
	}
	dir = openat(held, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return st_bpf_errno(err, errno, "open", ST_TREE);
	return dir;
}

int st_tree_hold(const struct st_tree *t)
{
	return t->dir >= 0 ? openat(t->dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
}

int st_tree_open(struct st_tree *t, bool create, bool *exists, struct st_err *err)
{
	return st_tree_open_held(t, -1, create, exists, err);
}

int st_tree_open_held(struct st_tree *t, int held, bool create, bool *exists,
		      struct st_err *err)
{
	unsigned int pins;
	int bpffs = -1, ret;
	bool keep;

	tree_init(t);
	if (exists)
		*exists = false;
	if (held >= 0) {
		t->dir = held_open(held, err);
	} else {
		ret = bpffs_open(create, &bpffs, err);
		if (ret || bpffs < 0)
			return ret;
		t->dir = dir_open(bpffs, create, err);
		close(bpffs);
	}
	if (t->dir == -ENOENT && held < 0) {
		t->dir = -1;
		return 0;
	}
	if (t->dir < 0) {
		ret = t->dir;
		t->dir = -1;
		return ret;
	}
	ret = dir_check(t->dir, err);
	if (ret)
		goto fail;
	ret = tree_scan(t->dir, &pins, &keep, err);
	if (ret)
		goto fail;
	if (!(pins & (1U << ST_M_HOST))) {
		if (!create) {
			st_tree_close(t);
			return 0;
		}
		ret = tree_ensure(t, err);
		if (ret)
			goto fail;
	}
	ret = tree_maps_open(t, err);
	if (ret)
		goto fail;
	if (exists)
		*exists = true;
	return 0;
fail:
	st_tree_close(t);
	return ret;
}

void st_bpf_stop_point(const char *point)
{
	const char *want = getenv("SYSTRACE_BPF_STOP");

	if (want && !strcmp(want, point))
		raise(SIGSTOP);
}

void st_tree_close(struct st_tree *t)
{
	int i;

	if (t->sess)
		munmap(t->sess, t->sess_len);
	for (i = 0; i < ST_M_COUNT; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	if (t->dir >= 0) {
		if (t->locked)
			flock(t->dir, LOCK_UN);
		close(t->dir);
	}
	tree_init(t);
}

int st_tree_inner(const struct st_tree *t, enum st_tree_map which, uint32_t key,
		  struct st_err *err)
{
	uint32_t id;
	int fd;

	if (bpf_map_lookup_elem(t->fd[which], &key, &id)) {
		if (errno == ENOENT)
			return -ENOENT;
		return st_bpf_errno(err, errno, "bpf map lookup", pin_names[which]);
	}
	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		return st_bpf_errno(err, errno, "bpf map get", pin_names[which]);
	}
	return fd;
}
