# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_reset_running.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
t = Trace(ARGS[0])
eq(t.calls(nr=110), 15, "a trace after the reset: getppid calls")
eq(t.errors(nr=3), 3, "a trace after the reset: close errors")
done()
