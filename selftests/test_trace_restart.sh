#!/usr/bin/env bash
# Syscalls interrupted by signals: an SA_RESTART read counts twice at its
# site (-ERESTARTSYS is an error, the restart a success) plus one
# rt_sigreturn; without SA_RESTART once, as an error; a nanosleep stopped
# by SIGSTOP goes on as restart_syscall from the same site.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog restart
on_exit mod_unload_quiet
mod_load

P=$PROGS/restart
off=$(elf_offset "$P" block_site_insn) || exit 1
dirs=()
for mode in restart eintr stop; do
	trace -- "$P" $mode
	assert_eq "$TRACE_RC" 0 "$mode: exit status (0: the call returned what the mode expects)"
	dirs+=("$D")
done
pycheck "$P" "$off" "${dirs[@]}" <<'EOF'
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
EOF
