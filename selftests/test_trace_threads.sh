#!/usr/bin/env bash
# Threads count into their process row: 4 threads x 500 getppid, then 16
# threads x 1000; threads, clones, exit calls and the per-site sum exact.
# tags: trace debug debug-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog threads
on_exit mod_unload_quiet
mod_load

P=$PROGS/threads
off=$(elf_offset "$P" thread_site_insn) || exit 1

for run in "4 500" "16 1000"; do
	# shellcheck disable=SC2086
	trace -- "$P" $run
	assert_eq "$TRACE_RC" 0 "$run: exit status"
	pycheck "$D" "$P" "$off" $run <<'EOF'
d, prog, off, nthreads, each = ARGS
t, n, w = int(nthreads), int(each), "%s threads x %s: " % (nthreads, each)
tr = Trace(d)
eq(len(tr.procs), 1, w + "process rows")
p = tr.root()
eq(p["threads"], t + 1, w + "threads (the main one included)")
eq(tr.session["clones"], t, w + "session clones")
eq(tr.session["forks"], 0, w + "session forks")
# One site, every thread's calls summed in it; the main thread makes none.
eq(len(tr.sites_where(nr=110)), 1, w + "getppid site rows")
eq(tr.calls(nr=110, path=prog, offset=off), t * n, w + "getppid calls at thread_site")
eq(tr.errors(nr=110), 0, w + "getppid errors")
# Each thread ends with exit (it returned from its start routine), the
# process with one exit_group; pthread_create is clone3 (or clone).
eq(tr.calls(nr=60), t, w + "exit calls")
eq(tr.calls(nr=231), 1, w + "exit_group calls")
eq(tr.calls(nr=435) + tr.calls(nr=56), t, w + "clone3 + clone calls")
EOF
done
