#!/usr/bin/env bash
# CPU times are the kernel's own, as getrusage(2) and wait4(2) report them:
# cpuwait burn 4 200 5 runs burn (4 threads that each burn 200 ms, then 5
# short children one after the other) and reaps it with wait4; burn prints
# its own getrusage(RUSAGE_SELF) at its end, each child prints its own just
# before it exits, and burn reaps each child with wait4. Every row lies
# between what its process had used when it asked, and all it used (wait4):
# exactly for the children (short: a few hundred µs, never 0 when the
# kernel says otherwise), within the exits of burn's threads for burn (see
# test_trace_cputime.py).
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog burn
need_prog cpuwait
on_exit mod_unload_quiet
mod_load

trace -- "$PROGS/cpuwait" "$PROGS/burn" 4 200 5
assert_eq "$TRACE_RC" 0 "cpuwait burn: exit status"
log "$TRACE_OUT"
pycheck test_trace_cputime.py "$D" "$PROGS/burn"
