# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_counters.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, ge, le, log, Trace

ARGS = begin()
d, status, ctasks, cvalue, dinsn, dcyc, sites = ARGS
out = dict(l.split() for l in open(d + "/start.out").read().splitlines())
tcpu, ttick = int(out["threads_cpu_ns"]), int(out["threads_tick_ns"])
mcpu, mtick = int(out["main_cpu_ns"]), int(out["main_tick_ns"])
ms = 1000000
t = Trace(d)
eq(t.session["counters"], "task-clock", "burn: session counters")
eq(t.session["counters_error"], None, "burn: session counters_error")
p = t.root()
eq(len(t.procs), 1, "burn: process rows")
eq(p["threads"], 5, "burn: threads")
eq(ctasks, "5", "burn: counter_tasks (main + 4 threads)")
tc = p["task_clock_ns"]
expect(tc is not None, "burn: task_clock_ns is empty")
eq(str(tc), cvalue, "burn: task_clock_ns vs the kernel's COUNTER_VALUE")
eq(t.session["task_clock_ns"], tc, "burn: the session's task_clock_ns")
eq((p["instructions"], p["cycles"]), (None, None), "burn: instructions, cycles")
cpu = p["user_time_ns"] + p["sys_time_ns"]
log("task_clock %.1f ms; user+sys %.1f ms; the threads' clocks %.1f ms, their utime+stime %.1f ms; "
    "main's clock %.1f ms, utime+stime %.1f ms (since its fork)"
    % (tc / ms, cpu / ms, tcpu / ms, ttick / ms, mcpu / ms, mtick / ms))
if tc is not None:
    # Each thread's counter counts from its first return to user mode to
    # its exit, a little more than the thread's own clock saw up to its
    # last reading; the main thread adds its time since the exec, less than
    # its clock since the fork. Slack: 10 ms per task (the clone child's
    # way to user mode, the threads' taskstats query and exit, stretched
    # when the host preempts the vCPU).
    ge(tc, tcpu - 4 * 10 * ms, "burn: task_clock_ns vs the threads' own CPU clocks")
    le(tc, tcpu + mcpu + 5 * 10 * ms, "burn: task_clock_ns vs the threads' and the main thread's CPU clocks")
if ttick >= 0 and mtick >= 0:
    # user_time_ns + sys_time_ns are the tasks' tick-sampled utime + stime,
    # which taskstats reports too: at least the threads' (read just before
    # they exited), at most that plus the main thread's since its fork, plus
    # 2 ticks (8 ms at HZ=250) per task read after the taskstats query.
    ge(cpu, ttick, "burn: user+sys vs the threads' utime+stime (taskstats)")
    le(cpu, ttick + mtick + 5 * 8 * ms, "burn: user+sys vs all tasks' utime+stime (taskstats)")
    # utime + stime are samples of whole 4 ms ticks: over a few hundred ms
    # they match the task clock within about a tick per task, when the
    # kernel accounted every tick. Under TCG on a busy host a vCPU loses
    # ticks while the host runs something else, and the precise clocks
    # (task clock, CLOCK_THREAD_CPUTIME_ID) still advance. The threads
    # measured that loss themselves (their utime + stime against their
    # clocks): the row's user+sys must be the task clock scaled by it.
    if tc is not None and expect(tcpu > 0, "burn: the threads' CPU clocks are empty"):
        kept = ttick / tcpu
        want = tc * kept
        tol = tc // 10 + 20 * ms
        log("the guest's tick accounting kept %.0f%% of the threads' CPU time" % (100 * kept))
        expect(abs(cpu - want) <= tol,
               "burn: user+sys %d vs task_clock_ns %d scaled by the ticks kept (%.2f): %d; "
               "differ by more than 10%% + 20 ms (%d)" % (cpu, tc, kept, want, tol))
else:
    log("NOTE: no taskstats: user+sys not checked")

for dd, mode, n, m, k in ((dinsn, "instructions", 1000, 250, 37), (dcyc, "cycles", 10, 20, 30)):
    t = Trace(dd)
    w = mode + ": "
    eq(t.session["counters"], mode, w + "session counters")
    err = t.session["counters_error"]
    if err:
        # No PMU (the VMs here): said why, no values anywhere.
        expect(len(err) > 10, w + "counters_error %r says why" % err)
        eq([p[mode] for p in t.procs], [None] * len(t.procs), w + "the rows' " + mode)
        eq(t.session[mode], None, w + "session " + mode)
        log(w + "unavailable: " + err)
        if mode == "instructions":
            expect("counters: %s, unavailable: %s" % (mode, err) in open(status).read(),
                   w + "status says why")
        expect("systracectl: %s: unavailable: %s" % (mode, err) in open(dd + "/start.err").read(),
               w + "start's summary says why")
    else:
        expect(all(p[mode] and p[mode] > 0 for p in t.procs), w + "a PMU: every row counted")
    eq(t.calls(nr=110), n + m, w + "getppid calls")
    eq(t.errors(nr=3, path=sites), k, w + "close(-1) errors")
    eq(t.session["dropped_counters"], 0, w + "dropped_counters")
done()
