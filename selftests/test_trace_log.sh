#!/usr/bin/env bash
# The temporal log: `start --log` of sites (1000 + 250 getppid, 37 failing
# close) gives exactly that sequence at the three sites' offsets, with dense
# seq, time that never goes back per thread, and a count per (image, site,
# nr) equal to the site rows; a shell running children adds fork, exec and
# exit events with the right links; a 4K buffer under a storm drops, and
# the log plus dropped_events is the rows' calls; a make -j2 build's log
# has each image's calls and process events exactly; `systracectl log` drains
# a session started elsewhere, each event once: a second reader goes on
# where the first stopped; the Chrome trace has consistent slices; bad
# requests fail with their exit codes; start --self-usage reports
# systracectl's own peak RSS, without CMD's. The same on both backends
# (selftests/run bpf trace_log): the module's per-CPU rings and the BPF
# programs' per-CPU ring buffers give the same events.
# tags: trace debug bpf
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog sites
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
off_a=$(elf_offset "$P" site_a_insn) || exit 1
off_b=$(elf_offset "$P" site_b_insn) || exit 1
off_c=$(elf_offset "$P" site_c_insn) || exit 1

trace --log "$T/sites.csv" -- "$P" 1000 250 37
assert_eq "$TRACE_RC" 0 "start --log: exit status"
d_sites=$D
trace --log "$T/sites.jsonl" --log-format jsonl -- "$P" 7 3 2
d_jsonl=$D
trace --log "$T/shell.csv" -- /bin/sh -c '/bin/true; /bin/true; (exit 3); /bin/sh -c "kill -9 \$\$"; exit 0'
d_shell=$D
trace --log "$T/storm.csv" --log-buffer 4K -- "$P" 200000 0 0
d_storm=$D
trace --log "$T/sites.chrome.json" --log-format chrome -- /bin/sh -c "$P 20 10 5; /bin/true"
d_chrome=$D

# A real build: make -j2 of two objects and a link (make, cc, cc1, as, ld...).
need_cmd make
need_cmd cc
W=$T/build
mkdir -p "$W"
printf 'int f1(void);\nint main(void) { return f1(); }\n' >"$W/main.c"
printf 'int f1(void) { return 0; }\n' >"$W/f1.c"
# shellcheck disable=SC2016 # make's variables
printf 'prog: main.o f1.o\n\t$(CC) -o $@ main.o f1.o\n' >"$W/Makefile"
trace --log "$T/build.csv" -- make -s -j2 -C "$W"
assert_eq "$TRACE_RC" 0 "make -j2 under start --log: exit status"
d_build=$D

# A session whose log nobody drains while it runs: `log` takes it all after.
trace --log-buffer 1M -- "$P" 500 0 3
d_late=$D
"$SYSTRACECTL" log "$SID" -o "$T/late.csv" 2>"$T/late.err"
assert_eq "$?" 0 "systracectl log of a finished session: exit status ($(cat "$T/late.err"))"
"$SYSTRACECTL" log "$SID" -o "$T/late2.csv" 2>"$T/late2.err"
assert_eq "$?" 0 "systracectl log of a drained session: exit status ($(cat "$T/late2.err"))"

# Two readers of a running session, one after the other: sites 300, then
# (once the first reader has stopped) sites 200. The first reader is
# stopped by SIGINT while the shell waits on a fifo; the second goes on
# from there.
mkfifo "$T/go"
"$SYSTRACECTL" start --counters none --backend "${SYSTRACE_BACKEND:-kmod}" --log-buffer 1M --quiet -- \
	/bin/sh -c "$P 300 0 0; : >'$T/first.done'; read -r x <'$T/go'; $P 200 0 0" \
	>"$T/two.out" 2>"$T/two.err" &
tp=$!
on_exit "kill $tp 2>/dev/null"
for ((i = 0; i < 300; i++)); do
	[ -e "$T/first.done" ] && break
	sleep 0.1
done
[ -e "$T/first.done" ] || fail "sites 300 did not end: $(cat "$T/two.err")"
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\).*: tracing .*/\1/p' "$T/two.err" | head -n 1)
[ -n "$sid" ] || fail "no session id: $(cat "$T/two.err")"
# SIGINT once the reader catches it (SigCgt bit 2 in its status), not after
# a fixed time: a slow guest may not have reached its handler by then.
"$SYSTRACECTL" log "$sid" -o "$T/part1.csv" 2>"$T/part1.err" &
lp=$!
for ((i = 0; i < 600; i++)); do
	cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$lp/status" 2>/dev/null)
	[ -n "$cgt" ] && (((16#$cgt >> 1) & 1)) && break
	sleep 0.1
done
sleep 1
kill -INT "$lp"
wait "$lp"
assert_eq "$?" 0 "systracectl log stopped by SIGINT: exit status ($(cat "$T/part1.err"))"
# shellcheck disable=SC2016 # $1 is the inner shell's
timeout 30 sh -c 'echo go >"$1"' sh "$T/go" || fail "the shell does not read $T/go"
wait $tp
assert_eq "$?" 0 "start of the two-reader session: exit status ($(cat "$T/two.err"))"
"$SYSTRACECTL" log "$sid" -o "$T/part2.csv" 2>"$T/part2.err"
assert_eq "$?" 0 "the second systracectl log: exit status ($(cat "$T/part2.err"))"
D=$T/trace.two
mkdir -p "$D"
trace_dump "$sid"
d_two=$D

# --self-usage: systracectl's own peak RSS (RUSAGE_SELF), not CMD's: CMD
# touches 200 MiB and prints its own ru_maxrss; the line is stderr's last,
# --quiet or not.
trace --quiet --self-usage --log "$T/self.csv" -- "$PROGS/bigrss" 200
assert_eq "$TRACE_RC" 0 "start --self-usage: exit status ($TRACE_ERR)"
last=$(tail -n 1 "$D/start.err")
assert_match "$last" '^systracectl: self: peak RSS [0-9]+ KiB, user [0-9]+\.[0-9]{3} s, system [0-9]+\.[0-9]{3} s \(systracectl alone, not CMD\)$' \
	"start --self-usage: its line, last"
self_rss=$(sed -n 's/^systracectl: self: peak RSS \([0-9]*\) KiB.*/\1/p' <<<"$last")
expect_ge "$TRACE_OUT" 204800 "start --self-usage: CMD's own peak RSS, KiB"
expect_le "$self_rss" $((TRACE_OUT / 4)) "start --self-usage: systracectl's peak RSS leaves CMD's out (CMD's: $TRACE_OUT KiB)"
expect_ge "$self_rss" 1 "start --self-usage: systracectl's peak RSS"

# Refusals.
trace -- "$P" 1 0 0
"$SYSTRACECTL" log "$SID" -o "$T/none.csv" 2>"$T/none.err"
expect_eq "$?" 4 "log of a session without a log: exit status"
expect_contains "$(cat "$T/none.err")" "keeps no log" "log of a session without a log: message"
"$SYSTRACECTL" start --log "$T/x.csv" --log-buffer 1K -- /bin/true 2>"$T/small.err"
expect_eq "$?" 1 "--log-buffer 1K: exit status"
expect_contains "$(cat "$T/small.err")" "4K to 256M" "--log-buffer 1K: message"
"$SYSTRACECTL" start --log "$T/x.csv" --log-format xml -- /bin/true 2>"$T/fmt.err"
expect_eq "$?" 1 "--log-format xml: exit status"
"$SYSTRACECTL" start --log-format jsonl -- /bin/true 2>"$T/nolog.err"
expect_eq "$?" 1 "--log-format without --log: exit status"
"$SYSTRACECTL" log 999999 -o "$T/x.csv" 2>"$T/nosession.err"
expect_eq "$?" 4 "log of an unknown session: exit status"

pycheck test_trace_log.py "$T" "$P" "$off_a" "$off_b" "$off_c" \
	"$d_sites" "$d_jsonl" "$d_shell" "$d_storm" "$d_chrome" "$d_late" "$d_build" "$d_two"
