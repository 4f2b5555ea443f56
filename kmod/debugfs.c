// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: systrace/files shows the shape of each session's table of
 * mapped files (objs.c), which a traced program fills with the files it
 * maps: files, buckets and the longest chain, for the test suite
 * (test_trace_files_hash). A debugging aid, not an interface.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/rculist.h>
#include "core.h"

static struct dentry *st_debugfs_dir;

static int st_files_show(struct seq_file *m, void *v)
{
	u32 files, buckets, longest;
	struct st_session *s;

	seq_puts(m, "session files buckets longest_chain\n");
	/* A session is freed only a grace period after it left the list. */
	rcu_read_lock();
	list_for_each_entry_rcu(s, &st_sessions, node) {
		spin_lock(&s->lock);
		files = s->nobjs;
		buckets = s->objs.nbuckets;
		longest = st_chash_longest(&s->objs);
		spin_unlock(&s->lock);
		seq_printf(m, "%u %u %u %u\n", s->id, files, buckets, longest);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(st_files);

/**
 * st_debugfs_init() - create systrace/ in debugfs, when there is one
 */
void st_debugfs_init(void)
{
	st_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("files", 0400, st_debugfs_dir, NULL,
			    &st_files_fops);
}

/**
 * st_debugfs_exit() - remove it; waits for its readers
 */
void st_debugfs_exit(void)
{
	debugfs_remove_recursive(st_debugfs_dir);
}
