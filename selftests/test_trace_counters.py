# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_counters.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, expect, ge, le, log, Trace

ARGS = begin()
d, status, ctasks, cvalue, dinsn, dcyc, sites, dsplit, ptexec, dsuid, suid_sites = ARGS
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
# user_time_ns + sys_time_ns are the kernel's adjusted CPU times (the
# tick samples scaled to the precise runtime, as getrusage reports them;
# test_trace_cputime holds them to it): at least the threads' own clocks,
# with the slack of the task clock above, and the task clock's within 10%
# + 20 ms, whatever ticks the guest lost (the raw tick samples could say
# half of the truth under TCG on a busy host). They count the kernel's
# time too, the threads' taskstats queries and exits after their last
# clock reading among it: no bound by the clocks above.
ge(cpu, tcpu - 4 * 10 * ms, "burn: user+sys vs the threads' own CPU clocks")
if tc is not None:
    tol = tc // 10 + 20 * ms
    expect(abs(tc - cpu) <= tol, "burn: task_clock_ns %d vs user+sys %d: differ by more than 10%% + 20 ms (%d)"
           % (tc, cpu, tol))
if ttick >= 0:
    log("the threads' tick-sampled utime+stime (taskstats): %.1f ms, %.0f%% of their clocks"
        % (ttick / ms, 100 * ttick / tcpu))

t = Trace(dsplit)
w = "split at a stopped exec: "
eq(t.session["state"], "detached", w + "session state")
old = t.proc(w + "the child's image before its exec", exe=ptexec, end="exec")
new = t.proc(w + "the image it exec'd", exe=sites)
if old and new:
    eq(new["prev_id"], old["id"], w + "the new image's prev_id")
    log(w + "old image %s ns, new image %s ns" % (old["task_clock_ns"], new["task_clock_ns"]))
    # The child burned 100 ms before its exec, less a tick of slack.
    ge(old["task_clock_ns"] or 0, 90 * ms, w + "the old image's task_clock_ns")
    # Stopped inside the exec and detached there: the new image ran no
    # instruction, and its counter was read right after the split.
    eq(new["task_clock_ns"], 0, w + "the new image's task_clock_ns")
    # Counted once: the two images' counts are at most all the CPU time
    # the child used (ptexec's wait4), with 10% for the two clocks (perf's
    # task clock, the scheduler's runtime) and the rounding to µs.
    r = [l.split() for l in open(dsplit + "/start.out") if l.startswith("reaped ")]
    if r:
        total = int(r[0][2]) + int(r[0][3])
        le((old["task_clock_ns"] or 0) + (new["task_clock_ns"] or 0), total + total // 10 + 2000,
           w + "the two images' task_clock_ns vs the child's CPU time (wait4: %d ns)" % total)
    else:
        expect(False, w + "ptexec printed no 'reaped' line")

if dsuid:
    t = Trace(dsuid)
    w = "setuid exec: "
    sp = t.proc(w + "setpriv's image", end="exec")
    su = t.proc(w + "the setuid image", exe=suid_sites)
    if sp and su:
        expect(sp["task_clock_ns"] and sp["task_clock_ns"] > 0,
               w + "setpriv's image is counted: %r" % sp["task_clock_ns"])
        eq(su["task_clock_ns"], None, w + "the setuid image's task_clock_ns (perf stops counting it)")
    eq(t.calls(nr=110, path=suid_sites), 15, w + "getppid calls")
    eq(t.errors(nr=3, path=suid_sites), 3, w + "close(-1) errors")

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
