# SPDX-License-Identifier: GPL-2.0
"""Checks of test_stress_races.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()
tree, sites = Trace(ARGS[0]), Trace(ARGS[1])
forks, clones, execs, exits = (int(x) for x in ARGS[2:6])
s = tree.session
eq(s["forks"], forks, "racetree: session forks vs racetree's tally")
eq(s["clones"], clones, "racetree: session clones vs racetree's tally")
eq(s["execs"], execs + 1, "racetree: session execs vs racetree's tally + the root's exec")
eq(s["exits"], exits, "racetree: session exits vs racetree's tally")
eq(s["signal_exits"], 0, "racetree: signal exits")
eq(s["processes"], forks + execs + 1, "racetree: process rows")
eq(sites.calls(nr=110), 15, "sites: getppid calls")
eq(sites.errors(nr=3), 3, "sites: close errors")
done()
