#!/usr/bin/env bash
# Per-task perf counters: --counters task-clock over 4 threads that each
# burn 200 ms of CPU sums 5 tasks' counters into the process row, agrees
# with the threads' own CPU clocks and with user_time_ns + sys_time_ns.
# --counters instructions
# and cycles without a PMU: the session says why, the columns are empty,
# tracing is exact.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog burn
need_prog sites
need_prog nlraw
on_exit mod_unload_quiet
mod_load

trace --counters task-clock -- "$PROGS/burn" 4 200
assert_eq "$TRACE_RC" 0 "burn: exit status"
log "$TRACE_OUT"
# counter_tasks is not a CLI column: read the row from the kernel. In a
# PROC row, 27 is COUNTER_VALUE and 28 COUNTER_TASKS.
row=$("$PROGS/nlraw" --dump --show 5 8:u32:"$SID" | grep '^row ')
log "the kernel's row: $row"
ctasks=$(tr ' ' '\n' <<<"$row" | sed -n 's/^28=//p')
cvalue=$(tr ' ' '\n' <<<"$row" | sed -n 's/^27=//p')
burn=$D
log "summary: $(grep -E 'task-clock|counters' <<<"$TRACE_ERR")"

trace --counters instructions -- "$PROGS/sites" 1000 250 37
assert_eq "$TRACE_RC" 0 "instructions: exit status"
insn=$D
ctl status
echo "$CTL_OUT" >"$T/status.txt"
trace --counters cycles -- "$PROGS/sites" 10 20 30
assert_eq "$TRACE_RC" 0 "cycles: exit status"
cyc=$D

pycheck test_trace_counters.py "$burn" "$T/status.txt" "$ctasks" "$cvalue" "$insn" "$cyc" "$PROGS/sites"
