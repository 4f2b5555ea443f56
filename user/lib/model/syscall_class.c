// SPDX-License-Identifier: GPL-2.0
/*
 * strace's syscall classes. The lists are what `strace -e trace=%CLASS`
 * (strace 6.1) traces of a program that makes every x86_64 syscall
 * (user/tests/test_syscall_class.sh checks them that way); a syscall newer
 * than strace 6.1 (number 451 on) is in none. Each list is sorted (strcmp).
 */
#include <stdlib.h>
#include <string.h>
#include "syscall_class.h"

static const char *const file_names[] = {
	"access", "acct", "chdir", "chmod", "chown", "chroot", "creat", "execve",
	"execveat", "faccessat", "faccessat2", "fanotify_mark", "fchmodat", "fchownat",
	"fsconfig", "fspick", "futimesat", "getcwd", "getxattr", "inotify_add_watch",
	"lchown", "lgetxattr", "link", "linkat", "listxattr", "llistxattr",
	"lremovexattr", "lsetxattr", "lstat", "mkdir", "mkdirat", "mknod", "mknodat",
	"mount", "mount_setattr", "move_mount", "name_to_handle_at", "newfstatat",
	"open", "open_tree", "openat", "openat2", "pivot_root", "quotactl", "readlink",
	"readlinkat", "removexattr", "rename", "renameat", "renameat2", "rmdir",
	"setxattr", "stat", "statfs", "statx", "swapoff", "swapon", "symlink",
	"symlinkat", "truncate", "umount2", "unlink", "unlinkat", "uselib", "utime",
	"utimensat", "utimes",
};

static const char *const process_names[] = {
	"clone", "clone3", "execve", "execveat", "exit", "exit_group", "fork", "kill",
	"pidfd_send_signal", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "tgkill", "tkill",
	"vfork", "wait4", "waitid",
};

static const char *const network_names[] = {
	"accept", "accept4", "bind", "connect", "getpeername", "getpmsg", "getsockname",
	"getsockopt", "listen", "putpmsg", "recvfrom", "recvmmsg", "recvmsg", "sendfile",
	"sendmmsg", "sendmsg", "sendto", "setsockopt", "shutdown", "socket",
	"socketpair",
};

static const char *const signal_names[] = {
	"io_uring_enter", "kill", "pause", "pidfd_send_signal", "rt_sigaction",
	"rt_sigpending", "rt_sigprocmask", "rt_sigqueueinfo", "rt_sigreturn",
	"rt_sigsuspend", "rt_sigtimedwait", "rt_tgsigqueueinfo", "sigaltstack",
	"signalfd", "signalfd4", "tgkill", "tkill",
};

static const char *const ipc_names[] = {
	"msgctl", "msgget", "msgrcv", "msgsnd", "semctl", "semget", "semop",
	"semtimedop", "shmat", "shmctl", "shmdt", "shmget",
};

static const char *const desc_names[] = {
	"bpf", "close", "copy_file_range", "creat", "dup", "dup2", "dup3",
	"epoll_create", "epoll_create1", "epoll_ctl", "epoll_pwait", "epoll_pwait2",
	"epoll_wait", "eventfd", "eventfd2", "execveat", "faccessat", "faccessat2",
	"fadvise64", "fallocate", "fanotify_init", "fanotify_mark", "fchdir", "fchmod",
	"fchmodat", "fchown", "fchownat", "fcntl", "fdatasync", "fgetxattr",
	"finit_module", "flistxattr", "flock", "fremovexattr", "fsconfig", "fsetxattr",
	"fsmount", "fsopen", "fspick", "fstat", "fstatfs", "fsync", "ftruncate",
	"futimesat", "getdents", "getdents64", "inotify_add_watch", "inotify_init",
	"inotify_init1", "inotify_rm_watch", "io_uring_enter", "io_uring_register",
	"io_uring_setup", "ioctl", "kexec_file_load", "landlock_add_rule",
	"landlock_create_ruleset", "landlock_restrict_self", "linkat", "lseek",
	"memfd_create", "memfd_secret", "mkdirat", "mknodat", "mmap", "mount_setattr",
	"move_mount", "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive",
	"mq_timedsend", "name_to_handle_at", "newfstatat", "open", "open_by_handle_at",
	"open_tree", "openat", "openat2", "perf_event_open", "pidfd_getfd", "pidfd_open",
	"pidfd_send_signal", "pipe", "pipe2", "poll", "ppoll", "pread64", "preadv",
	"preadv2", "process_madvise", "process_mrelease", "pselect6", "pwrite64",
	"pwritev", "pwritev2", "quotactl_fd", "read", "readahead", "readlinkat", "readv",
	"renameat", "renameat2", "select", "sendfile", "setns", "signalfd", "signalfd4",
	"splice", "statx", "symlinkat", "sync_file_range", "syncfs", "tee",
	"timerfd_create", "timerfd_gettime", "timerfd_settime", "unlinkat",
	"userfaultfd", "utimensat", "vmsplice", "write", "writev",
};

static const char *const memory_names[] = {
	"brk", "get_mempolicy", "io_destroy", "io_setup", "io_uring_register", "madvise",
	"mbind", "migrate_pages", "mincore", "mlock", "mlock2", "mlockall", "mmap",
	"move_pages", "mprotect", "mremap", "msync", "munlock", "munlockall", "munmap",
	"pkey_mprotect", "remap_file_pages", "set_mempolicy", "set_mempolicy_home_node",
	"shmat", "shmdt",
};

#define LIST(a) { a, sizeof(a) / sizeof(a[0]) }

static const struct {
	const char *const *names;
	size_t n;
} lists[] = {
	LIST(file_names), LIST(process_names), LIST(network_names),
	LIST(signal_names), LIST(ipc_names), LIST(desc_names),
	LIST(memory_names), LIST(network_names),
};

/* In the order of lists; %net is strace's other name of %network. */
const char *const st_syscall_classes[] = {
	"%file", "%process", "%network", "%signal", "%ipc", "%desc", "%memory", "%net",
};
const size_t st_nsyscall_classes = sizeof(st_syscall_classes) / sizeof(st_syscall_classes[0]);

int st_syscall_class(const char *name)
{
	size_t i;

	for (i = 0; i < st_nsyscall_classes; i++)
		if (!strcmp(st_syscall_classes[i], name))
			return (int)i;
	return -1;
}

static int by_name(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

bool st_syscall_in_class(int cls, const char *syscall)
{
	if (cls < 0 || (size_t)cls >= st_nsyscall_classes || !syscall)
		return false;
	return bsearch(syscall, lists[cls].names, lists[cls].n, sizeof(char *), by_name);
}
