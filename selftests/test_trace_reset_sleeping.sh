#!/usr/bin/env bash
# Deferred work holds no session and does not wait in a sleeping thread. A
# thread whose first call at a site finds the mmap lock busy
# (force_late_resolve makes every first hit so), then blocks in it for good
# (a pipe read, pause, a futex wait; in the main thread or a second one):
#   - reset frees its session at once: status lists no session and
#     mem_bytes is 0 while the thread still sleeps; the site is counted in
#     dropped_resolve (detach keeps the rows to show it);
#   - rmmod works while every such thread sleeps, and they die cleanly
#     after;
#   - 8 start/reset cycles (3 on a KASAN kernel, where kmemleak also
#     looks) with max_mem_total at twice one such session's memory all
#     start with no drop (a session leaked per cycle fails the third),
#     and a trace after them takes the same memory as before them.
# And attach --counters task-clock to a process asleep in read, then
# reset: mem_bytes 0 and rmmod works while it sleeps on. A process attached
# (asleep) by a session with counters, then reset, then attached by one
# without: when it wakes, the second session gets no counter (its memory
# is the same as after a first session without counters).
# tags: trace debug debug-quick
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog blocker
need_prog sites
need_prog attachee
on_exit mod_unload_quiet

B=$PROGS/blocker
# The blocked threads (a kill of one ends its process).
tids=()
# shellcheck disable=SC2016 # expanded when the cleanup runs
on_exit 'kill -9 "${tids[@]}" 2>/dev/null'

# syscall_of TID: the number of the syscall TID blocks in, or "running".
syscall_of() { cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null; }

# blocked OUT NR: wait until the thread named in OUT ("blocking TID")
# blocks in syscall NR; adds it to tids.
blocked() {
	local i tid=
	for ((i = 0; i < 3000; i++)); do
		[ -n "$tid" ] || tid=$(sed -n 's/^blocking \([0-9]*\)$/\1/p' "$1" 2>/dev/null)
		if [ -n "$tid" ] && [ "$(syscall_of "$tid")" = "$2" ]; then
			tids+=("$tid")
			return 0
		fi
		sleep 0.02
	done
	fail "no thread blocked in syscall $2 (output: $(cat "$1"))"
}

# stop_blocked: kill every blocked thread's process; wait for the starts.
stop_blocked() {
	{
		kill -9 "${tids[@]}"
		wait
	} 2>/dev/null
	tids=()
}

# status_is WHAT: status lists no session and mem_bytes is 0.
status_is_empty() {
	ctl_ok status --json
	expect_eq "$(csvq --json len sessions <<<"$CTL_OUT")" 0 "$1: sessions in status"
	expect_eq "$(csvq --json get mem_bytes <<<"$CTL_OUT")" 0 "$1: mem_bytes in status"
}

# start_blocked NAME MODE [thread]: systracectl start of blocker in the
# background, until its thread blocks; sets SID.
declare -A nr=([read]=0 [pause]=34 [futex]=202)
start_blocked() {
	local name=$1 mode=$2 out=$T/$1.out
	"$SYSTRACECTL" start --counters none --name "$name" -- "$B" "${@:2}" >"$out" 2>"$T/$name.err" &
	blocked "$out" "${nr[$mode]}"
	SID=$(sed -n 's/^systracectl: session \([0-9][0-9]*\).*: tracing .*/\1/p' "$T/$name.err" | head -n 1)
	[ -n "$SID" ] || fail "$name: no session id: $(cat "$T/$name.err")"
}

# --- reset while the thread sleeps, in each mode --------------------------
mod_load force_late_resolve=1
for run in read pause futex "read thread" "futex thread"; do
	name=${run// /-}
	# shellcheck disable=SC2086 # the mode and its option
	start_blocked "$name" $run
	ctl_ok dump "$SID" --csv --sites --no-symbols
	log "$name: $(csvq count <<<"$CTL_OUT") sites, $(csvq count map=unknown <<<"$CTL_OUT") unknown"
	ctl_ok reset "$SID"
	status_is_empty "$name: after the reset"
done

# Detach keeps the rows: the blocked call's site is unknown, counted.
start_blocked detached read
ctl_ok detach "$SID"
ctl_ok dump "$SID" --json --no-symbols
dj=$CTL_OUT
ctl_ok dump "$SID" --csv --sites --no-symbols
expect_eq "$(csvq count map=unknown <<<"$CTL_OUT")" 1 "detach: sites left unknown"
expect_eq "$(csvq get syscall map=unknown <<<"$CTL_OUT")" read "detach: the unknown site's syscall"
expect_eq "$(csvq --json get session.dropped_resolve <<<"$dj")" 1 "detach: dropped_resolve"
ctl_ok reset "$SID"
status_is_empty "detach, then reset"

# Every blocker still sleeps, traced by no session: rmmod works.
for t in "${tids[@]}"; do
	[ -n "$(syscall_of "$t")" ] || fail "blocked thread $t is gone"
done
mod_unload
stop_blocked

# --- start/reset cycles against max_mem_total ------------------------------
# What one blocked session and the final trace take, then room for twice
# the larger: a third session that leaked would not fit.
mod_load force_late_resolve=1
start_blocked probe read
ctl_ok status --json
one=$(csvq --json get mem_bytes <<<"$CTL_OUT")
ctl_ok reset "$SID"
status_is_empty "cycles: after the first reset"
trace -- "$PROGS/sites" 10 5 3
two=$(csvq --json get session.mem_bytes <"$D/dump.json")
ctl_ok reset "$SID"
cap=$((2 * (one > two ? one : two)))
log "one blocked session: $one bytes; the trace: $two bytes; max_mem_total: $cap"
echo "$cap" >/sys/module/systrace/parameters/max_mem_total
cycles=8
on_kasan && cycles=3
for ((i = 1; i <= cycles; i++)); do
	start_blocked "cycle$i" read
	ctl_ok dump "$SID" --json --no-symbols
	expect_eq "$(csvq --json get session.dropped_nomem <<<"$CTL_OUT")" 0 "cycle $i: dropped_nomem"
	ctl_ok reset "$SID"
done
status_is_empty "after $cycles cycles"
trace -- "$PROGS/sites" 10 5 3
assert_eq "$TRACE_RC" 0 "a trace after the cycles: exit status ($TRACE_ERR)"
expect_eq "$(q "$D/procs.csv" count)" 1 "the trace after the cycles: process rows"
expect_eq "$(csvq --json get session.dropped_nomem <"$D/dump.json")" 0 "the trace after the cycles: dropped_nomem"
expect_eq "$(csvq --json get session.mem_bytes <"$D/dump.json")" "$two" "the trace after the cycles: mem_bytes"
ctl_ok reset "$SID"
mod_unload
stop_blocked

# --- attach with counters to a process asleep in read ----------------------
mod_load
"$B" read >"$T/attached.out" &
apid=$!
blocked "$T/attached.out" 0
ctl_ok attach --counters task-clock -q "$apid"
SID=$CTL_OUT
ctl_ok reset "$SID"
status_is_empty "attach, then reset"
mod_unload
expect_eq "$(syscall_of "$apid")" 0 "the attached process, after rmmod: blocked in read"
stop_blocked

# --- a counting session's attach, reset, then one without counters ------
# attachee: "ready", a read (the attaches and the reset happen there), K
# getppid, a child, "done", another read (B's memory is read there).
# waiting OUT TEXT PID: OUT has the line TEXT and PID blocks in read.
waiting() {
	local i
	for ((i = 0; i < 3000; i++)); do
		grep -qx "$2" "$1" && [ "$(syscall_of "$3")" = 0 ] && return 0
		sleep 0.02
	done
	fail "attachee never waited in read after '$2' (output: $(cat "$1"))"
}
mod_load
declare -A mem
for first in none task-clock; do
	mkfifo "$T/fifo.$first"
	"$PROGS/attachee" 3 2 <"$T/fifo.$first" >"$T/attachee.$first" &
	apid=$!
	tids+=("$apid")
	exec 8>"$T/fifo.$first"
	waiting "$T/attachee.$first" ready "$apid"
	ctl_ok attach --counters "$first" -q "$apid"
	ctl_ok reset "$CTL_OUT"
	ctl_ok attach --counters none -q "$apid"
	sid=$CTL_OUT
	printf g >&8
	waiting "$T/attachee.$first" "done" "$apid"
	ctl_ok dump "$sid" --json --no-symbols
	mem[$first]=$(csvq --json get session.mem_bytes <<<"$CTL_OUT")
	log "first session with counters $first: the second's mem_bytes ${mem[$first]}"
	printf g >&8
	exec 8>&-
	wait "$apid"
	expect_eq "$?" 7 "attachee (first session with counters $first): exit status"
	ctl_ok reset "$sid"
done
expect_eq "${mem[task-clock]}" "${mem[none]}" "the second session's memory after a first one with counters"
mod_unload
