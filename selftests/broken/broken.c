// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken module: each load commits the one bug named by
 * bug=, so that scripts/debug-selftest can prove that the debug kernel
 * reports it, and scripts/vm-run-selftest that vm-run stops a guest whose
 * kernel locks up, stalls or oopses. Never load it anywhere but a throwaway
 * VM.
 */
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "the bug to commit at load: sleep, lock, leak, lockup, stall or int3");

static int spin_secs = 300;
module_param(spin_secs, int, 0444);
MODULE_PARM_DESC(spin_secs, "how long lockup and stall keep their CPU (seconds)");

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

/*
 * Keep this CPU for spin_secs seconds without scheduling: the soft lockup
 * detector reports it after 2 * watchdog_thresh seconds, RCU's stall
 * detector (a kernel without the soft lockup one) after
 * rcu_cpu_stall_timeout. The clock is read directly: with interrupts off
 * jiffies may stand still.
 */
static void spin(bool irqs_off)
{
	u64 end = ktime_get_ns() + (u64)spin_secs * NSEC_PER_SEC;
	unsigned long flags = 0;

	pr_info("keeping CPU %d for %d s%s\n", raw_smp_processor_id(),
		spin_secs, irqs_off ? " with interrupts off" : "");
	preempt_disable();
	if (irqs_off)
		local_irq_save(flags);
	while (ktime_get_ns() < end)
		udelay(100);
	if (irqs_off)
		local_irq_restore(flags);
	preempt_enable();
}

static void lockup(void)
{
	spin(false);
}

/*
 * With interrupts off the soft lockup detector's timer cannot run on this
 * CPU, and there is no NMI hard lockup detector under TCG (no PMU): only
 * RCU, from the other CPU, reports the stall. The kernel goes on.
 */
static void stall(void)
{
	spin(true);
}

/* A breakpoint no one set: the trap handler oopses ("int3"). */
static void int3(void)
{
	asm volatile("int3");
}

static const struct {
	const char *name;
	void (*commit)(void);
} bugs[] = {
	{ "sleep", sleep_in_atomic },
	{ "lock", lock_inversion },
	{ "leak", leak },
	{ "lockup", lockup },
	{ "stall", stall },
	{ "int3", int3 },
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
	pr_err("unknown bug=%s: want sleep, lock, leak, lockup, stall or int3\n", bug);
	return -EINVAL;
}

static void __exit broken_exit(void)
{
}

module_init(broken_init);
module_exit(broken_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Deliberately broken module for the debug-kernel self-test");
