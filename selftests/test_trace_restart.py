# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_restart.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, log, Trace

ARGS = begin()
prog, off, drest, deintr, dstop = ARGS


def load(d, mode):
    t = Trace(d)
    r = t.root()
    at = t.sites_where(proc_id=r["id"], path=prog, offset=off)
    log("%s: rows at block_site: %s" % (mode, [(s["syscall"], s["calls"], s["errors"]) for s in at]))
    return t, r, {s["nr"]: s for s in at}


t, r, at = load(drest, "restart")
eq(sorted(at), [0], "restart: syscalls at block_site")
if 0 in at:
    eq(at[0]["calls"], 2, "restart: read calls (interrupted, restarted)")
    eq(at[0]["errors"], 1, "restart: read errors (-ERESTARTSYS)")
eq(t.calls(proc_id=r["id"], nr=15), 1, "restart: rt_sigreturn calls")
eq(t.errors(proc_id=r["id"], nr=15), 0, "restart: rt_sigreturn errors")
eq(t.calls(proc_id=r["id"], nr=1), 1, "restart: write calls (the handler's)")

t, r, at = load(deintr, "eintr")
eq(sorted(at), [0], "eintr: syscalls at block_site")
if 0 in at:
    eq(at[0]["calls"], 1, "eintr: read calls")
    eq(at[0]["errors"], 1, "eintr: read errors")
eq(t.calls(proc_id=r["id"], nr=15), 1, "eintr: rt_sigreturn calls")

t, r, at = load(dstop, "stop")
eq(sorted(at), [35, 219], "stop: syscalls at block_site (nanosleep, restart_syscall)")
if 35 in at:
    eq(at[35]["calls"], 1, "stop: nanosleep calls")
    eq(at[35]["errors"], 1, "stop: nanosleep errors (-ERESTART_RESTARTBLOCK)")
if 219 in at:
    eq(at[219]["calls"], 1, "stop: restart_syscall calls")
    eq(at[219]["errors"], 0, "stop: restart_syscall errors")
eq(t.calls(proc_id=r["id"], nr=15), 0, "stop: rt_sigreturn calls (no handler ran)")
done()
