#!/usr/bin/env bash
# The BPF backend keeps each image's argv at its exec: the rows as the
# backend fills the model (user/tests/bpf_rows), against what
# /proc/PID/cmdline said inside each image (argvkeep writes it):
#   exact     the root's argv, then an image whose arguments hold spaces,
#             quotes, an empty one, a non-UTF-8 byte and a newline
#   fork      a child forked without exec has its parent's argv
#   long      an argv of 4100+ bytes is cut after its last whole argument
#             within 4096 bytes, which ends exactly at byte 4096 (all 4096
#             kept: a cut at 4095 loses that argument), with
#             argv_truncated; the others are not
#   max_mem   a session whose max_mem leaves room for everything up to the
#             long image's argv but not for its 22 chunks: that row's argv
#             is unknown, dropped_argv is 1 (dropped_nomem 1, nothing else
#             dropped before it), every other row is exact
#   attach    the attached process's argv, read in its own context at its
#             first syscall exit (the read it was blocked in), exact; its
#             child forked after that shares it; the child's exec has its
#             own, exact
# tags: bpf bpf-quick
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_bpf
need_prog argvkeep
need_prog attachee
ROWS=$TOP/user/tests/bpf_rows
[ -x "$ROWS" ] || missing "$ROWS was not built (make -C user)"
on_exit mod_unload_quiet
mod_load

rows() { "$ROWS" "$1" >"$2" 2>"$T/rows.err" || fail "bpf_rows $1: $(cat "$T/rows.err")"; }

# --- exact, fork, long ---------------------------------------------------------
mkdir -p "$T/a"
trace -- "$PROGS/argvkeep" "$T/a"
assert_eq "$TRACE_RC" 0 "argvkeep: exit status"
rows "$SID" "$T/a.rows"
ctl_ok dump "$SID" --json --no-symbols -o "$T/a.json"

# --- max_mem -------------------------------------------------------------------
# The same run, its last image waiting on stdin: the live session's memory
# then, less the site rows the last image made after its argv, is what the
# next session may hold (minus a byte) for everything up to its argv's end.
waiting() { # DIR OUT: the session's live dump once the last image waits in read(0)
	local i pid
	for ((i = 0; i < 200; i++)); do
		if [ -s "$1/long" ]; then
			pid=$(pgrep -f "argvkeep long $1" | head -n 1)
			if [ -n "$pid" ] && [[ "$(cat "/proc/$pid/syscall" 2>/dev/null)" == "0 0x0 "* ]]; then
				ctl_ok dump --json --no-symbols -o "$2"
				return 0
			fi
		fi
		sleep 0.05
	done
	fail "argvkeep's last image did not come to wait in read(0)"
}
# (--paths off: the rows of failed file calls would charge max_mem after the argv too.)
run_waiting() { # DIR OUT [ENV...]: traces argvkeep DIR, its last image waiting
	local f=$T/fifo.$RANDOM
	mkdir -p "$1"
	mkfifo "$f"
	exec 7<>"$f"
	env ARGVKEEP_WAIT=1 "${@:3}" "$SYSTRACECTL" start --backend bpf --counters none --paths off \
		--quiet -- "$PROGS/argvkeep" "$1" <"$f" >"$2.out" 2>"$2.err" &
	waiting "$1" "$2"
	echo x >&7
	wait $! || fail "argvkeep $1: exit $?: $(cat "$2.err")"
	exec 7>&-
	rm -f "$f"
}
run_waiting "$T/b" "$T/b.json"
sid_b=$(csvq --json get session.id <"$T/b.json")
ctl_ok reset "$sid_b"
limit=$(python3 "$TOP/selftests/test_bpf_argv.py" limit "$T/b.json") || fail "no limit from $T/b.json"
run_waiting "$T/c" "$T/c.json" SYSTRACE_MAX_MEM="$limit"
sid_c=$(csvq --json get session.id <"$T/c.json")
rows "$sid_c" "$T/c.rows"
ctl_ok dump "$sid_c" --json --no-symbols -o "$T/c.final.json"

# --- attach ----------------------------------------------------------------------
# attachee exec 2 1 (see progs/attachee.c): it blocks in read on a FIFO; once
# attached, its child execs `attachee child 1`.
mkfifo "$T/afifo"
"$PROGS/attachee" exec 2 1 <"$T/afifo" >"$T/attachee.out" &
apid=$!
exec 8>"$T/afifo"
on_exit "kill -9 $apid 2>/dev/null"
for ((i = 0; i < 6000; i++)); do
	grep -qx ready "$T/attachee.out" 2>/dev/null &&
		[ "$(cut -d' ' -f1 "/proc/$apid/syscall" 2>/dev/null)" = 0 ] && break
	sleep 0.01
done
ctl_ok attach --counters none "$apid"
sid_d=$CTL_OUT
printf g >&8
for ((i = 0; i < 6000; i++)); do
	grep -qx "done" "$T/attachee.out" 2>/dev/null &&
		[ "$(cut -d' ' -f1 "/proc/$apid/syscall" 2>/dev/null)" = 0 ] && break
	sleep 0.01
done
printf g >&8
exec 8>&-
wait "$apid"
assert_eq "$?" 7 "attachee's exit status"
rows "$sid_d" "$T/d.rows"

pycheck test_bpf_argv.py check "$T/a" "$T/a.rows" "$T/a.json" "$T/c" "$T/c.rows" "$T/c.final.json" "$limit" \
	"$T/d.rows" "$PROGS/attachee"
