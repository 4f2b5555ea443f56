# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers of the tracing tests (test_trace_*.sh), on top of lib.sh:
#
#   . "$(dirname "$0")/lib.sh"
#   . "$(dirname "$0")/trace_lib.sh"
#
# trace [START-OPTION...] -- CMD...
#     systracectl start --counters none [START-OPTION...] -- CMD..., then
#     the session's dumps into files. Sets TRACE_RC (systracectl's exit
#     status), TRACE_OUT, TRACE_ERR, SID (the session id) and D, a directory
#     holding procs.csv, sites.csv, syscalls.csv (dump --csv of each table,
#     --no-symbols) and dump.json (dump --json --syscalls). Each dump must
#     exit 0 (the CLI's totals check passed); check_invariants failing
#     fails the test at its end (the test's own checks still run). Dumps of the Nth call of trace go to $T/trace.N.
# check_invariants DIR
#     The rows of a finished session add up, checked independently of the
#     CLI (trace_check.py invariants): session totals = sums of process rows
#     = sums of site rows, per-process sums, the per-syscall table, the
#     session's event counters against the rows (forks, clones, execs,
#     exits, signal_exits, procs == forks + execs), no drops, and the CSV
#     tables hold the same rows and values as the JSON document.
# pycheck FILE.py ARGS...
#     runs selftests/FILE.py with ARGS: the checks of test_X.sh live in
#     test_X.py beside it (a further step in test_X.STEP.py), which starts
#     with ARGS = begin() (the invariants of every trace since the last
#     pycheck, TRACE_DIRS, then ARGS), uses trace_check's helpers (Trace,
#     eq, ge, le, expect, log) and ends with done(); fails the test if a
#     check failed. A test ends with one pycheck after its last trace: a
#     Python start costs one to three seconds in the TCG guest.
# q FILE QUERY...     csvq -f FILE QUERY...
# elf_offset FILE SYMBOL
#     file offset of SYMBOL (nm) through the PT_LOAD headers (readelf -lW).

_trace_n=0
TRACE_DIRS=

trace() {
	local opts=() f
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ "${1:-}" = -- ] || fail "trace: no -- before the command"
	shift
	_trace_n=$((_trace_n + 1))
	D=$T/trace.$_trace_n
	mkdir -p "$D"
	"$SYSTRACECTL" start --counters none --backend "${SYSTRACE_BACKEND:-kmod}" "${opts[@]}" -- "$@" >"$D/start.out" 2>"$D/start.err"
	TRACE_RC=$?
	# shellcheck disable=SC2034 # for the test, as TRACE_RC and TRACE_ERR
	TRACE_OUT=$(cat "$D/start.out")
	TRACE_ERR=$(cat "$D/start.err")
	SID=$(sed -n 's/^systracectl: session \([0-9][0-9]*\).*: tracing .*/\1/p' "$D/start.err" | head -n 1)
	[ -n "$SID" ] || fail "systracectl start -- $*: no session id on stderr (exit $TRACE_RC): $TRACE_ERR"
	trace_dump "$SID"
}

# trace_dump ID: the dumps of session ID into $D, each must exit 0.
trace_dump() {
	local f
	for f in procs:--processes sites:--sites syscalls:--syscalls; do
		"$SYSTRACECTL" dump "$1" --csv "${f#*:}" --no-symbols -o "$D/${f%%:*}.csv" 2>"$D/${f%%:*}.err" ||
			fail "systracectl dump $1 ${f#*:}: exit $?: $(cat "$D/${f%%:*}.err")"
	done
	"$SYSTRACECTL" dump "$1" --json --syscalls --no-symbols -o "$D/dump.json" 2>"$D/json.err" ||
		fail "systracectl dump $1 --json: exit $?: $(cat "$D/json.err")"
	TRACE_DIRS+="$D"$'\n'
}

q() {
	local f=$1
	shift
	"$CSVQ" -f "$f" "$@" || fail "csvq -f $f $*"
}

check_invariants() {
	python3 "$TOP/selftests/trace_check.py" invariants "$1"
}

pycheck() {
	local py=$1
	shift
	TRACE_DIRS=$TRACE_DIRS python3 "$TOP/selftests/$py" "$@" || _lib_report "the checks above failed"
	TRACE_DIRS=	# each trace's invariants are checked once
}

elf_offset() {
	local v off va fsz segs
	v=$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')
	[ -n "$v" ] || fail "nm $1: no symbol $2"
	v=$((16#$v))
	segs=$(readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }')
	while read -r off va fsz; do
		if [ "$v" -ge $((va)) ] && [ "$v" -lt $((va + fsz)) ]; then
			printf '0x%x\n' $((v - va + off))
			return 0
		fi
	done <<<"$segs"
	fail "readelf -lW $1: $2 ($v) is in no PT_LOAD segment"
}

# forest_start: runs $P (progs/forest) "$DEPTH" "$W" "$M" held on the fifo
# $T/go (fd 8 keeps it open: closing it releases the forest), waits for its
# "ready", sets pids to the pids it made (N of them, asserted) and waits
# until each one blocks in read(2) (syscall 0, which is not counted). Every
# process is killed at exit.
forest_start() {
	local i p
	mkfifo "$T/go"
	"$P" "$DEPTH" "$W" "$M" <"$T/go" >"$T/forest.out" 2>"$T/forest.err" &
	top=$!
	exec 8>"$T/go"
	on_exit "kill -9 $top 2>/dev/null"
	for ((i = 0; i < 600; i++)); do
		grep -qx ready "$T/forest.out" && break
		sleep 0.1
	done
	grep -qx ready "$T/forest.out" || fail "forest never got ready: $(cat "$T/forest.err")"
	mapfile -t pids < <(awk '$1 != "ready" { print $2 }' "$T/forest.out")
	on_exit "kill -9 ${pids[*]} 2>/dev/null"
	assert_eq "${#pids[@]}" "$N" "processes forest made"
	for p in "${pids[@]}"; do
		for ((i = 0; i < 600; i++)); do
			[ "$(cut -d' ' -f1 "/proc/$p/syscall" 2>/dev/null)" = 0 ] && break
			sleep 0.05
		done
		[ "$(cut -d' ' -f1 "/proc/$p/syscall" 2>/dev/null)" = 0 ] || fail "pid $p never blocked in read"
	done
}
