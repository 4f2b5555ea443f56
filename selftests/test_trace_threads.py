# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_threads.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
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
done()
