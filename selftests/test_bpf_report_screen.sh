#!/usr/bin/env bash
# Each report's default text fits a screen on an 85-process tree, and
# --by process holds the per-process rows. The tree: a dash loop running
# progs/errnos 84 times (85 processes, 169 images: the root, and each
# child's fork image and errnos image; each errnos makes 42 failing openat,
# 37 ENOENT and 5 EACCES, and 3 close(-1), EBADF), traced once, and run
# once more under strace -f -c and once under strace -f.
#   - amortize, short, phases, syscalls, errors, timeline and paths: at
#     most 60 lines and 80 columns on an 80-column terminal (script(1),
#     stty cols 80), at most 60 lines into a pipe; the per-process tables
#     are not there, a line says how to show them
#   - report syscalls --by process --all: one row per image, 169; the 84
#     errnos rows each have openat and close with the calls strace -f saw
#     that pid make; report syscalls --json: each syscall's calls and
#     errors equal strace -f -c's
#   - report errors --json: each syscall's errnos object plus errno_other
#     adds up to strace -f -c's errors; openat has EACCES 420 (84 x 5),
#     close EBADF 252 (84 x 3)
# tags: bpf
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_bpf
need_prog errnos
need_cmd strace
need_cmd script
need_cmd stty
on_exit mod_unload_quiet
mod_load

P=$PROGS/errnos
# shellcheck disable=SC2016 # the loop's variables are dash's
LOOP='i=0; while [ $i -lt 84 ]; do "$0" "$1" || exit 1; i=$((i + 1)); done'
mkdir -p "$T/files" "$T/files2" "$T/files3"
trace -- /bin/dash -c "$LOOP" "$P" "$T/files"
assert_eq "$TRACE_RC" 0 "the loop's exit status (every errnos as it should): $TRACE_ERR"

R=$T/report
mkdir -p "$R"
for r in amortize short phases syscalls errors timeline paths; do
	script -qec "stty cols 80; $(printf '%q ' "$SYSTRACECTL") report $r $SID 2>/dev/null" /dev/null \
		</dev/null | tr -d '\r' >"$R/$r.tty" || fail "report $r on a terminal: exit $?"
	"$SYSTRACECTL" report "$r" "$SID" >"$R/$r.txt" 2>"$R/$r.err" ||
		fail "report $r into a pipe: exit $?: $(cat "$R/$r.err")"
done
"$SYSTRACECTL" report syscalls "$SID" --by process --all --wide -o "$R/by_process.txt" 2>"$R/bp.err" ||
	fail "report syscalls --by process --all: exit $?: $(cat "$R/bp.err")"
"$SYSTRACECTL" report syscalls "$SID" --json -o "$R/syscalls.json" 2>"$R/sj.err" ||
	fail "report syscalls --json: exit $?: $(cat "$R/sj.err")"
"$SYSTRACECTL" report errors "$SID" --json -o "$R/errors.json" 2>"$R/ej.err" ||
	fail "report errors --json: exit $?: $(cat "$R/ej.err")"

strace -f -c -o "$T/strace_c.txt" /bin/dash -c "$LOOP" "$P" "$T/files2" ||
	fail "strace -f -c of the loop: exit $?"
strace -f -qq -o "$T/strace_f.txt" /bin/dash -c "$LOOP" "$P" "$T/files3" ||
	fail "strace -f of the loop: exit $?"

pycheck test_bpf_report_screen.py "$D" "$R" "$T/strace_c.txt" "$T/strace_f.txt"
