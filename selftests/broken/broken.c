// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken module: each load commits the one bug named by
 * bug=, so that scripts/debug-selftest can prove that the debug kernel
 * reports it. Never load it anywhere but a throwaway VM.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "the bug to commit at load: sleep, lock or leak");

static DEFINE_SPINLOCK(session_lock);
static DEFINE_MUTEX(table_lock);
static DEFINE_MUTEX(dump_lock);

/* A GFP_KERNEL allocation may sleep: not allowed under a spinlock. */
static void sleep_in_atomic(void)
{
	void *p;

	spin_lock(&session_lock);
	p = kmalloc(64, GFP_KERNEL);
	spin_unlock(&session_lock);
	kfree(p);
}

/*
 * One path takes table then dump, another dump then table. Run one after
 * the other they never deadlock, but lockdep sees the cycle.
 */
static void lock_inversion(void)
{
	mutex_lock(&table_lock);
	mutex_lock(&dump_lock);
	mutex_unlock(&dump_lock);
	mutex_unlock(&table_lock);

	mutex_lock(&dump_lock);
	mutex_lock(&table_lock);
	mutex_unlock(&table_lock);
	mutex_unlock(&dump_lock);
}

static void leak(void)
{
	char *p = kstrdup("broken: leaked on purpose", GFP_KERNEL);

	if (p)
		pr_info("leaking %zu bytes\n", strlen(p) + 1);
}

static const struct {
	const char *name;
	void (*commit)(void);
} bugs[] = {
	{ "sleep", sleep_in_atomic },
	{ "lock", lock_inversion },
	{ "leak", leak },
};

static int __init broken_init(void)
{
	int i;

	if (!*bug) {
		pr_info("loaded with no bug\n");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(bugs); i++) {
		if (!strcmp(bug, bugs[i].name)) {
			bugs[i].commit();
			pr_info("committed bug=%s\n", bug);
			return 0;
		}
	}
	pr_err("unknown bug=%s: want sleep, lock or leak\n", bug);
	return -EINVAL;
}

static void __exit broken_exit(void)
{
}

module_init(broken_init);
module_exit(broken_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Deliberately broken module for the debug-kernel self-test");
