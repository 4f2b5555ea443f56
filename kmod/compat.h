/* SPDX-License-Identifier: GPL-2.0 */
/* Differences between the kernels under test (6.1 and 6.12), in one place. */
#ifndef _SYSTRACE_COMPAT_H
#define _SYSTRACE_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <net/genetlink.h>

/*
 * Built for a kernel outside 6.1 to 6.12, the ones this module was
 * verified on, with SYSTRACE_ALLOW_UNTESTED_KERNEL=1 (kmod/Kbuild).
 */
#ifdef SYSTRACE_UNTESTED_KERNEL
#define st_untested_kernel	true
#else
#define st_untested_kernel	false
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define st_dump_attrs(cb) (genl_info_dump(cb)->attrs)
#else
#define st_dump_attrs(cb) (genl_dumpit_info(cb)->attrs)
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
static inline u64 st_inode_mtime_ns(const struct inode *inode)
{
	return timespec64_to_ns(&(struct timespec64){
		.tv_sec = inode_get_mtime_sec(inode),
		.tv_nsec = inode_get_mtime_nsec(inode) });
}
#else
static inline u64 st_inode_mtime_ns(const struct inode *inode)
{
	return timespec64_to_ns(&inode->i_mtime);
}
#endif

/*
 * A reference to the file in an RCU-protected slot (mm->exe_file), or NULL;
 * under rcu_read_lock(). Since 6.7 files are SLAB_TYPESAFE_BY_RCU and the
 * kernel's helper rechecks the slot after taking the reference.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define st_get_file_rcu(slot) get_file_rcu(slot)
#else
static inline struct file *st_get_file_rcu(struct file __rcu **slot)
{
	struct file *f = rcu_dereference(*slot);

	return f && get_file_rcu(f) ? f : NULL;
}
#endif

#endif
