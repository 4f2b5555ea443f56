#!/usr/bin/env bash
# argv (issue 24 item 5): each image's argv is what /proc/PID/cmdline said
# inside it, in dump --json (an array) and --csv (a command line bash reads
# back to the same bytes), exactly: a root, an exec with spaces, a quote,
# an empty argument, a byte that is no UTF-8 and a newline; an exec of
# 6062 bytes cut at an argument's end and flagged; forked children share
# their image's argv. The log's exec events carry it, in CSV, JSONL,
# Chrome and Perfetto (decoded by protoc, each exec's argv and
# argv_truncated annotations exact). A max_mem that leaves no room for one argv (of a
# program whose only other syscall is pause): the row has none,
# dropped_argv and dropped_nomem say 1, mem_bytes is less by exactly the
# argv's bytes (12 + its length), and nothing else changes.
# tags: trace debug
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog argvexec
need_cmd protoc protobuf-compiler
on_exit mod_unload_quiet
mod_load

P=$PROGS/argvexec
out=$T/out
mkdir -p "$out"

trace --log "$T/argv.csv" -- "$P" run "$out"
assert_eq "$TRACE_RC" 0 "argvexec run: exit status"
run=$D
for f in argv.jsonl argv.chrome.json argv.pftrace; do
	"$SYSTRACECTL" log --input "$T/argv.csv" -o "$T/$f" 2>"$T/conv.err"
	expect_eq "$?" 0 "log --input argv.csv -o $f: exit status ($(cat "$T/conv.err"))"
done
# The Perfetto trace as protoc reads it against Perfetto's field numbers
# (user/tests/perfetto_subset.proto): the .py takes argv from its fields.
protoc --proto_path="$TOP/user/tests" --decode=perfetto.protos.Trace perfetto_subset.proto \
	<"$T/argv.pftrace" >"$T/argv.pftrace.txt" 2>"$T/protoc.err"
expect_eq "$?" 0 "protoc --decode=perfetto.protos.Trace of the Perfetto log: exit status ($(cat "$T/protoc.err"))"

# The mem test: argvpause makes no syscall but pause() after its exec;
# once it waits there, its session's mem_bytes is all it will hold (M).
# Its argv (A bytes, charged 12 + A) is read after the exec, the one site
# (pause's, P bytes) made after that. At the exec the waiting root's record
# and the new one are both charged for a moment (O more bytes). With
# max_mem = M - (12 + A) / 2, the argv finds M - (12 + A) - P charged:
# it is refused when P < (12 + A) / 2; the exec's peak and the end,
# without it, fit when O - P <= (12 + A) / 2. A is near 4 KiB, P and O
# a few hundred bytes.
# filler: one argument of 3900 bytes.
need_prog argvpause
filler=$(printf "f%.0s" $(seq 3900))
big() { # DIR: argvpause under a session, dumped while it waits, killed
	local ctl pid sid
	"$SYSTRACECTL" start --counters none -- "$PROGS/argvpause" "$filler" \
		>"$1/start.out" 2>"$1/start.err" &
	ctl=$!
	for _ in $(seq 600); do
		sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\).*: tracing .*/\1/p' "$1/start.err")
		[ -n "$sid" ] && pid=$("$SYSTRACECTL" list --json | "$CSVQ" --json pick sessions root_pid "id=$sid") &&
			[ "$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null)" = 34 ] && break
		sleep 0.1
	done
	[ "$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null)" = 34 ] ||
		fail "argvpause did not reach pause() (session ${sid:-none})"
	"$SYSTRACECTL" dump "$sid" --json --no-symbols -o "$1/dump.json" 2>"$1/dump.err" ||
		fail "dump of the live session $sid: $(cat "$1/dump.err")"
	kill -9 "$pid"
	wait "$ctl"
}
mkdir -p "$T/big1" "$T/big2"
big "$T/big1"
mem1=$("$CSVQ" -f "$T/big1/dump.json" --json get session.mem_bytes)
alen=$("$CSVQ" -f "$T/big1/dump.json" --json argvlen processes.0.argv)
log "mem_bytes with the argv: $mem1, argv: $alen bytes"
old_max=$(mod_param max_mem)
echo $((mem1 - (12 + alen) / 2)) >/sys/module/systrace/parameters/max_mem
big "$T/big2"
echo "$old_max" >/sys/module/systrace/parameters/max_mem

pycheck test_trace_argv.py "$run" "$out" "$P" "$T" "$PROGS/argvpause" "$filler"
