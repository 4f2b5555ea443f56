// SPDX-License-Identifier: GPL-2.0
/*
 * systrace: per-process and per-call-site syscall statistics of a traced
 * process tree, kept in the kernel and exported over generic netlink.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/mm.h>
#include "core.h"
#include "compat.h"

unsigned int st_max_sessions = 16;
module_param_named(max_sessions, st_max_sessions, uint, 0644);
MODULE_PARM_DESC(max_sessions, "Sessions that may exist at once");

unsigned int st_max_procs = 1 << 20;
module_param_named(max_procs, st_max_procs, uint, 0644);
MODULE_PARM_DESC(max_procs, "Process rows per session");

unsigned int st_max_sites = 1 << 22;
module_param_named(max_sites, st_max_sites, uint, 0644);
MODULE_PARM_DESC(max_sites, "Site rows per session");

unsigned long st_max_mem = 1UL << 30;
module_param_named(max_mem, st_max_mem, ulong, 0644);
MODULE_PARM_DESC(max_mem, "Bytes of memory per session");

/* 0 at load: an eighth of RAM. */
unsigned long st_max_mem_total;
module_param_named(max_mem_total, st_max_mem_total, ulong, 0644);
MODULE_PARM_DESC(max_mem_total,
		 "Bytes of memory of all sessions together (0 at load: 1/8 of RAM)");

#ifdef SYSTRACE_TESTING
bool st_force_late_resolve;
module_param_named(force_late_resolve, st_force_late_resolve, bool, 0644);
MODULE_PARM_DESC(force_late_resolve,
		 "Testing: resolve every new site as if the mmap lock were busy at its first hit");

unsigned int st_test_walk_gone;
module_param_named(test_walk_gone, st_test_walk_gone, uint, 0600);
MODULE_PARM_DESC(test_walk_gone,
		 "Testing: the attach's tree walk takes the process after each one it adds as gone, this many times");

unsigned int st_test_walk_stuck;
module_param_named(test_walk_stuck, st_test_walk_stuck, uint, 0600);
MODULE_PARM_DESC(test_walk_stuck,
		 "Testing: the attach's tree walk takes every process it visits as gone, this many times");

unsigned int st_test_work_delay_ms;
module_param_named(test_work_delay_ms, st_test_work_delay_ms, uint, 0600);
MODULE_PARM_DESC(test_work_delay_ms,
		 "Testing: each exit read of a counter and each unregistration of the probes waits this long first (ms)");

unsigned int st_test_grow_fail;
module_param_named(test_grow_fail, st_test_grow_fail, uint, 0600);
MODULE_PARM_DESC(test_grow_fail,
		 "Testing: every grow of a hash table finds no memory");
#endif

static int __init st_init(void)
{
	int ret;

	/*
	 * On PREEMPT_RT a spinlock_t sleeps, and the probes take them and
	 * allocate memory with preemption off: every traced fork, exec, exit
	 * and new site would sleep in atomic context.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		pr_err("not loaded: this kernel is PREEMPT_RT, where the probes would sleep in atomic context; trace with the BPF backend instead (systracectl start --backend bpf)\n");
		return -EOPNOTSUPP;
	}
	if (st_untested_kernel)
		pr_warn("Linux %u.%u is outside the kernels this module was verified on (6.1 to 6.12), and it was built anyway (SYSTRACE_ALLOW_UNTESTED_KERNEL=1): its probes may not be safe here; prefer the BPF backend (systracectl start --backend bpf)\n",
			LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL);
	if (!st_max_mem_total)
		st_max_mem_total = (totalram_pages() << PAGE_SHIFT) / 8;
	ret = st_tables_init();
	if (ret)
		return ret;
	ret = st_counters_init();
	if (ret)
		goto err_counters;
	ret = st_hooks_init();
	if (ret)
		goto err_hooks;
	st_debugfs_init();
	ret = st_netlink_init();
	if (ret)
		goto err_netlink;
	pr_info("version %s loaded\n", SYSTRACE_VERSION);
	if (SYSTRACE_BENCH_SKIP)
		pr_warn("a bench-only build (skip mask %#x): its counts are wrong\n",
			SYSTRACE_BENCH_SKIP);
	return 0;

err_netlink:
	st_debugfs_exit();
err_hooks:
	st_counters_exit();
err_counters:
	st_tables_exit();
	return ret;
}

static void __exit st_exit(void)
{
	st_netlink_exit();
	st_debugfs_exit();
	st_hooks_exit();
	st_session_del_all();
	/* An exit read may be the last task of a session: it queues the put. */
	st_counters_exit();
	st_hooks_flush();
	/* No task may still be returning from one of our task_work calls. */
	synchronize_rcu_tasks();
	rcu_barrier();
	st_tables_exit();
}

module_init(st_init);
module_exit(st_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("In-kernel syscall statistics per process and call site");
MODULE_VERSION(SYSTRACE_VERSION);
