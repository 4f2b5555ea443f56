#!/usr/bin/env bash
# The BPF backend's per-process counters, CPU times and max_mem, as the
# module's:
#   task-clock   burn 4 200: the row's counter is the 5 tasks' CPU time
#                (at least the threads' own CLOCK_THREAD_CPUTIME_ID, and
#                the scheduler's runtime of them all, user+sys, within 3%
#                + 10 ms), and the session's is the rows' sum
#   no PMU       instructions and cycles where the CPU has no counter: the
#                session says why, the columns are null, the calls exact
#                (with a PMU: counted)
#   CPU times    rusage 4 300: the row's user and system time are what the
#                process's own getrusage(2) says (the kernel's runtime split
#                by its ticks), not the raw tick samples: the sum within 2%
#                + 10 ms, the split within 12% + 10 ms
#   max_mem      below what a session holds from its start: refused with
#                the numbers; a few bytes above it: the root's row is not
#                made, 1 process and 1 allocation dropped, nothing else
# tags: bpf bpf-quick
# timeout: 180
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_bpf
need_prog burn
need_prog rusage
need_prog sites
on_exit mod_unload_quiet
mod_load

# --- task-clock ------------------------------------------------------------------
trace --counters task-clock -- "$PROGS/burn" 4 200
assert_eq "$TRACE_RC" 0 "burn 4 200: exit status"
tcpu=$(sed -n 's/^threads_cpu_ns //p' <<<"$TRACE_OUT")
mcpu=$(sed -n 's/^main_cpu_ns //p' <<<"$TRACE_OUT")
row=$(q "$D/procs.csv" get task_clock_ns)
rt=$(( $(q "$D/procs.csv" get user_time_ns) + $(q "$D/procs.csv" get sys_time_ns) ))
log "burn 4 200: task_clock_ns $row, user+sys $rt; the threads' own CPU clocks $tcpu, the main thread's $mcpu ns"
# Each task's count runs from its first switch-in to its exit, a little
# more than its own clock saw when it last read it (the threads' taskstats
# query and exit follow): slack of 10 ms per task, as the module's test.
expect_ge "$row" $((tcpu - 40000000)) "burn's task_clock_ns against the threads' own CPU clocks"
# The same time as the scheduler's exact runtime of the row's tasks, which
# user+sys add up to (a guest loses none of it, unlike its ticks), within
# the module's test's bound, 10% + 20 ms: the per-CPU counter is read at
# each switch, and on a loaded host (a CI run beside its guests) it read
# 864 ms for 802 ms of runtime (8%), where an idle host gives 0.2%.
expect_le "$(( row > rt ? row - rt : rt - row ))" $((rt / 10 + 20000000)) \
	"burn's task_clock_ns ($row) against its user+sys ($rt): within 10% + 20 ms"
expect_eq "$(csvq -f "$D/dump.json" --json get session.task_clock_ns)" "$row" "the session's task_clock_ns (its row's)"
expect_eq "$(csvq -f "$D/dump.json" --json get session.counters_error)" "" "counters_error with task-clock"

# --- no PMU ---------------------------------------------------------------------
for mode in instructions cycles; do
	trace --counters "$mode" -- "$PROGS/sites" 7 3 2
	assert_eq "$TRACE_RC" 0 "sites 7 3 2 --counters $mode: exit status"
	expect_eq "$(q "$D/sites.csv" sum calls nr=110)" 10 "--counters $mode: getppid calls"
	if perf stat -x, -e "$mode" true 2>&1 | grep -q "not supported"; then
		expect_eq "$(csvq -f "$D/dump.json" --json get session.counters_error)" \
			"the CPU exposes no hardware performance counter for this event (no PMU, e.g. in a VM)" \
			"--counters $mode without a PMU: counters_error"
		expect_eq "$(q "$D/procs.csv" get "$mode")" "" "--counters $mode without a PMU: the column"
		expect_eq "$(csvq -f "$D/dump.json" --json get "session.$mode")" "" "--counters $mode without a PMU: the session's"
	else
		expect_ge "$(q "$D/procs.csv" get "$mode")" 1 "--counters $mode: the count"
	fi
done

# --- CPU times ------------------------------------------------------------------
trace -- "$PROGS/rusage" 4 300
assert_eq "$TRACE_RC" 0 "rusage 4 300: exit status"
ru_user=$(sed -n 's/^ru_user_ns //p' <<<"$TRACE_OUT")
ru_sys=$(sed -n 's/^ru_sys_ns //p' <<<"$TRACE_OUT")
user=$(q "$D/procs.csv" get user_time_ns)
sys=$(q "$D/procs.csv" get sys_time_ns)
log "rusage 4 300: row user $user sys $sys ns; its getrusage user $ru_user sys $ru_sys ns"
# The row also holds what the process did after its getrusage: its exit.
# user+sys is the scheduler's exact runtime; the split follows the tick
# samples, which a guest under TCG loses in bursts (VM.md): the split is
# held to a looser bound than the sum.
tot=$((user + sys))
rtot=$((ru_user + ru_sys))
tol=$((rtot / 50 + 10000000))
expect_le "$(( tot > rtot ? tot - rtot : rtot - tot ))" "$tol" \
	"the row's user+sys ($tot) against getrusage's ($rtot), within $tol ns"
tol=$((rtot * 12 / 100 + 10000000))
expect_le "$(( user > ru_user ? user - ru_user : ru_user - user ))" "$tol" \
	"the row's user_time_ns ($user) against getrusage's ($ru_user), within $tol ns"

# --- max_mem ---------------------------------------------------------------------
page=$(getconf PAGESIZE)
# 16 bytes per bucket: 16 process rows, 64 site rows, 16384 files, 8192 argv chunks
# (twice max_procs, at least 8192), 16384 paths rows; a page to tell the keeper.
fixed=$((16 * 16 + 16 * 64 + 16 * 16384 + 16 * 8192 + 16 * 16384 + page))
export SYSTRACE_MAX_PROCS=16 SYSTRACE_MAX_SITES=64
SYSTRACE_MAX_MEM=$((fixed - 1)) ctl start --backend bpf --counters none -- "$PROGS/sites" 7 3 2
expect_eq "$CTL_RC" 4 "max_mem one byte under a session's fixed part: exit status"
expect_contains "$CTL_ERR" "max_mem ($((fixed - 1)) bytes) is less than what a session holds from its start ($fixed bytes" \
	"max_mem one byte under a session's fixed part: message"
export SYSTRACE_MAX_MEM=$((fixed + 100))
trace -- "$PROGS/sites" 7 3 2
unset SYSTRACE_MAX_MEM
expect_eq "$TRACE_RC" 0 "max_mem 100 bytes over the fixed part: exit status"
s=$(csvq -f "$D/dump.json" --json get session)
expect_eq "$(csvq --json len processes <"$D/dump.json")" 0 "max_mem 100 bytes over the fixed part: process rows"
expect_eq "$(csvq --json get dropped_procs <<<"$s")" 1 "max_mem 100 bytes over: dropped_procs (the root's row)"
expect_eq "$(csvq --json get dropped_nomem <<<"$s")" 1 "max_mem 100 bytes over: dropped_nomem"
expect_eq "$(csvq --json get mem_bytes <<<"$s")" "$((5 * 16))" "max_mem 100 bytes over: mem_bytes (its 5 maps cut to a bucket each; its notify ring gone)" ||
	log "session: $s"
ctl_ok status --json
expect_eq "$(csvq --json get params.max_mem_bytes <<<"$CTL_OUT")" 1073741824 "status: max_mem_bytes (default)"
SYSTRACE_MAX_MEM=12345678 ctl_ok status --json
expect_eq "$(csvq --json get params.max_mem_bytes params.max_procs params.max_sites params.max_sessions <<<"$CTL_OUT" | tr '\n' ' ')" \
	"12345678 16 64 64 " "status: the limits a new session gets"
