#!/usr/bin/env bash
# The temporal log when things go wrong, and the status line:
#  - a log path that cannot be written fails before CMD runs (exit 6, CMD
#    never started, no session left);
#  - a session reset while start --log records it: start still writes the
#    drained syscalls (no sites, phases or process events), says the
#    session is gone, leaves no FILE.partial;
#  - a full disk (a 1 MiB tmpfs): start exits 6, says so, leaves neither
#    FILE nor FILE.partial, and keeps what it drained as FILE.spool, which
#    log --input reads back;
#  - on the controlling terminal (script's pty, TERM=xterm), when none of
#    CMD's stdin, stdout and stderr is that terminal, start --log keeps a
#    status line (processes, syscalls, their rate, the log's events,
#    drops), erased at the end with terminfo's cr and el (as tput says);
#    never on stderr when it is a file.
# The same on both backends (selftests/run bpf trace_log_failures).
# tags: trace bpf
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog sites
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
B=${SYSTRACE_BACKEND:-kmod}
ctl() { "$SYSTRACECTL" "$@"; }
sessions() { SYSTRACE_BACKEND=$B ctl list --json 2>/dev/null | grep -o '"id":' | wc -l; }

# A path that cannot be written: nothing runs.
n0=$(sessions)
ctl start --counters none --backend "$B" --quiet --log "$T/nodir/x.csv" -- /bin/sh -c ": >'$T/ran'" 2>"$T/nodir.err"
expect_eq "$?" 6 "start --log into a missing directory: exit status"
expect_contains "$(cat "$T/nodir.err")" "log directory: $T/nodir: No such file or directory" "start --log into a missing directory: message"
[ ! -e "$T/ran" ] || fail "start --log into a missing directory ran CMD"
expect_eq "$(sessions)" "$n0" "start --log into a missing directory: no session made"

# A reset while recording: the drained syscalls are written all the same.
mkfifo "$T/go"
ctl start --counters none --backend "$B" --quiet --log "$T/reset.csv" -- \
	/bin/sh -c "$P 3000 0 0; : >'$T/first.done'; read -r x <'$T/go'; $P 2000 0 0" \
	>"$T/reset.out" 2>"$T/reset.err" &
sp=$!
on_exit "kill $sp 2>/dev/null"
for ((i = 0; i < 300; i++)); do
	[ -e "$T/first.done" ] && break
	sleep 0.1
done
[ -e "$T/first.done" ] || fail "sites 3000 did not end: $(cat "$T/reset.err")"
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\).*: tracing .*/\1/p' "$T/reset.err" | head -n 1)
[ -n "$sid" ] || fail "no session id: $(cat "$T/reset.err")"
sleep 0.5
SYSTRACE_BACKEND=$B ctl reset "$sid" 2>"$T/reset2.err" || fail "reset $sid: $(cat "$T/reset2.err")"
# shellcheck disable=SC2016 # $1 is the inner shell's
timeout 30 sh -c 'echo go >"$1"' sh "$T/go" || fail "the shell does not read $T/go"
wait $sp
expect_eq "$?" 0 "start --log of a session reset meanwhile: CMD's exit status"
expect_contains "$(cat "$T/reset.err")" "log: session $sid is gone (reset?)" "start --log of a reset session: says so"
[ ! -e "$T/reset.csv.partial" ] || fail "reset.csv.partial is left"
[ -s "$T/reset.csv" ] || fail "no reset.csv: $(cat "$T/reset.err")"
n=$(awk -F, '$9 == "syscall"' "$T/reset.csv" | wc -l)
expect_eq "$((n >= 3000))" 1 "the log of a reset session has the 3000 calls drained before the reset (it has $n)"
expect_eq "$(awk -F, '$9 != "syscall"' "$T/reset.csv" | wc -l)" 1 "the log of a reset session: the header and syscalls only, no process event (the rows are gone)"
expect_eq "$(awk -F, 'NR > 1 && $16 != ""' "$T/reset.csv" | wc -l)" 0 "the log of a reset session: no site (no map)"

# A full disk: a 1 MiB tmpfs, a log of 100,000 calls.
mkdir -p "$T/small"
mount -t tmpfs -o size=1m none "$T/small" || skip "cannot mount a tmpfs"
on_exit "umount '$T/small' 2>/dev/null"
ctl start --counters none --backend "$B" --quiet --log "$T/small/full.csv" -- "$P" 100000 0 0 \
	>"$T/full.out" 2>"$T/full.err"
expect_eq "$?" 6 "start --log onto a full disk: exit status"
expect_contains "$(cat "$T/full.err")" "No space left on device" "start --log onto a full disk: says why"
expect_contains "$(cat "$T/full.err")" "are kept in $T/small/full.csv.spool" "start --log onto a full disk: says where the drained events are"
[ ! -e "$T/small/full.csv" ] || fail "full.csv exists after a failed write"
[ ! -e "$T/small/full.csv.partial" ] || fail "full.csv.partial is left"
if [ -e "$T/small/full.csv.spool" ]; then
	ctl log --input "$T/small/full.csv.spool" -o "$T/spool.csv" 2>"$T/spool.err"
	expect_eq "$?" 0 "log --input of the kept spool: exit status ($(cat "$T/spool.err"))"
	kept=$(sed -n 's/.*log: the \([0-9]*\) drained syscalls are kept in.*/\1/p' "$T/full.err")
	expect_eq "$(awk -F, '$9 == "syscall"' "$T/spool.csv" | wc -l)" "${kept:-?}" "the kept spool holds the syscalls start said"
else
	fail "no full.csv.spool: $(cat "$T/full.err")"
fi

# The status line: on the terminal, while CMD runs, CMD's fds elsewhere.
need_cmd script
need_cmd tput
TERM=xterm script -qfec "'$SYSTRACECTL' start --counters none --backend $B --log '$T/tty.csv' -- /bin/sh -c '$P 300000 0 0; sleep 1.2' </dev/null >'$T/tty.cmd' 2>&1" \
	/dev/null >"$T/tty.out" </dev/null
expect_eq "$?" 0 "start --log on a terminal: exit status"
grep -q "session [0-9]*: [0-9]* processes, .* syscalls (.*/s), log .* events, [0-9]* dropped" "$T/tty.out" ||
	fail "no status line on the terminal: $(tr '\r' '\n' <"$T/tty.out" | tail -n 5)"
[[ "$(cat "$T/tty.out")" == *"$(tput -T xterm cr)$(tput -T xterm el)" ]] ||
	fail "the status line is not erased at the end with xterm's cr and el: $(tail -c 40 "$T/tty.out" | od -c | head -n 3)"
expect_eq "$(grep -c $'\r' "$T/tty.cmd")" 0 "no status line in CMD's and start's redirected output"
ctl start --counters none --backend "$B" --quiet --log "$T/notty.csv" -- /bin/sh -c "$P 300000 0 0; sleep 1.2" 2>"$T/notty.err"
expect_eq "$(grep -c $'\r' "$T/notty.err")" 0 "no status line when stderr is a file"
