/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86-64 file calls whose path a session counts: strace's %file
 * class, by its first path argument (symlink and symlinkat: the target;
 * mount: the target; quotactl: the device). One list for both backends:
 * the module's probes (paths.h) and the BPF programs
 * (user/bpf/systrace.bpf.c) expand it into their switch. It includes
 * nothing, so that either side may include it.
 *
 * ST_FILE_CALLS(X) expands X(NR, ARG, NULL_OK) for each call: ARG is the
 * path's argument (0: the first, in rdi; 1: the second, in rsi; 4: the
 * fifth, in r8); NULL_OK is 1 where a NULL pointer is no path but a
 * meaning of its own (the call then takes no path, and no row is made):
 * acct(NULL) ends accounting, quotactl's Q_SYNC syncs every device,
 * utimensat, fanotify_mark, and since Linux 6.11 newfstatat and statx
 * with AT_EMPTY_PATH, act on the descriptor. Any other NULL is an
 * unreadable path.
 */
#ifndef _SYSTRACE_FILE_CALLS_H
#define _SYSTRACE_FILE_CALLS_H

#define ST_FILE_CALLS(X)						\
	X(2, 0, 0)	/* open */					\
	X(4, 0, 0)	/* stat */					\
	X(6, 0, 0)	/* lstat */					\
	X(21, 0, 0)	/* access */					\
	X(59, 0, 0)	/* execve */					\
	X(76, 0, 0)	/* truncate */					\
	X(80, 0, 0)	/* chdir */					\
	X(82, 0, 0)	/* rename */					\
	X(83, 0, 0)	/* mkdir */					\
	X(84, 0, 0)	/* rmdir */					\
	X(85, 0, 0)	/* creat */					\
	X(86, 0, 0)	/* link */					\
	X(87, 0, 0)	/* unlink */					\
	X(88, 0, 0)	/* symlink */					\
	X(89, 0, 0)	/* readlink */					\
	X(90, 0, 0)	/* chmod */					\
	X(92, 0, 0)	/* chown */					\
	X(94, 0, 0)	/* lchown */					\
	X(132, 0, 0)	/* utime */					\
	X(133, 0, 0)	/* mknod */					\
	X(134, 0, 0)	/* uselib */					\
	X(137, 0, 0)	/* statfs */					\
	X(155, 0, 0)	/* pivot_root */				\
	X(161, 0, 0)	/* chroot */					\
	X(163, 0, 1)	/* acct */					\
	X(165, 1, 0)	/* mount */					\
	X(166, 0, 0)	/* umount2 */					\
	X(167, 0, 0)	/* swapon */					\
	X(168, 0, 0)	/* swapoff */					\
	X(179, 1, 1)	/* quotactl */					\
	X(188, 0, 0)	/* setxattr */					\
	X(189, 0, 0)	/* lsetxattr */					\
	X(191, 0, 0)	/* getxattr */					\
	X(192, 0, 0)	/* lgetxattr */					\
	X(194, 0, 0)	/* listxattr */					\
	X(195, 0, 0)	/* llistxattr */				\
	X(197, 0, 0)	/* removexattr */				\
	X(198, 0, 0)	/* lremovexattr */				\
	X(235, 0, 0)	/* utimes */					\
	X(254, 1, 0)	/* inotify_add_watch */				\
	X(257, 1, 0)	/* openat */					\
	X(258, 1, 0)	/* mkdirat */					\
	X(259, 1, 0)	/* mknodat */					\
	X(260, 1, 0)	/* fchownat */					\
	X(261, 1, 0)	/* futimesat */					\
	X(262, 1, 1)	/* newfstatat */				\
	X(263, 1, 0)	/* unlinkat */					\
	X(264, 1, 0)	/* renameat */					\
	X(265, 1, 0)	/* linkat */					\
	X(266, 0, 0)	/* symlinkat */					\
	X(267, 1, 0)	/* readlinkat */				\
	X(268, 1, 0)	/* fchmodat */					\
	X(269, 1, 0)	/* faccessat */					\
	X(280, 1, 1)	/* utimensat */					\
	X(301, 4, 1)	/* fanotify_mark */				\
	X(303, 1, 0)	/* name_to_handle_at */				\
	X(316, 1, 0)	/* renameat2 */					\
	X(322, 1, 0)	/* execveat */					\
	X(332, 1, 1)	/* statx */					\
	X(428, 1, 0)	/* open_tree */					\
	X(429, 1, 0)	/* move_mount */				\
	X(437, 1, 0)	/* openat2 */					\
	X(439, 1, 0)	/* faccessat2 */				\
	X(442, 1, 0)	/* mount_setattr */				\
	X(452, 1, 0)	/* fchmodat2 */

#endif
