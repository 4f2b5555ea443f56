#!/usr/bin/env bash
# Snapshots of a process whose threads never stop coming and going: 1000
# threads each make one getppid from idle_site and wait, while 4 churners
# make and join threads one after the other (one getppid from churn_site
# each). Meanwhile list, status and the process and site dumps run
# CHURN_ROUNDS (5) times: each must return (a snapshot retries a bounded
# number of times, then takes the row's lock) with exit 0 within 60 s, and
# each live site dump has exactly 1000 calls at idle_site.
# Then the churners stop and say how many threads N they made: the rows
# are exact, one process row, 1 + 1000 + 4 + N threads, 1000 calls at
# idle_site and N at churn_site; the kernel logs no RCU stall or soft
# lockup.
# tags: trace debug
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog churn
on_exit mod_unload_quiet
mod_load

P=$PROGS/churn
off_idle=$(elf_offset "$P" idle_site_insn) || exit 1
idlers=1000 churners=4 rounds=${CHURN_ROUNDS:-5}
w=$T/churn
mkdir -p "$w"
klog_mark

"$SYSTRACECTL" start --counters none --name churn -- "$P" "$w" $idlers $churners \
	>"$T/start.out" 2>"$T/start.err" &
sp=$!
on_exit "touch $w/halt $w/stop; kill $sp 2>/dev/null"
for ((i = 0; i < 3000; i++)); do
	[ -e "$w/ready" ] && break
	kill -0 "$sp" 2>/dev/null || break
	sleep 0.1
done
[ -e "$w/ready" ] || fail "churn did not get ready: $(cat "$T/start.err")"
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*: tracing .*/\1/p' "$T/start.err" | head -n 1)
[ -n "$sid" ] || fail "no session id: $(cat "$T/start.err")"

# Every command of the loop, bounded: a stuck one fails the test.
for ((n = 0; n < rounds; n++)); do
	for cmd in "list" "status" "dump $sid --csv --processes" "dump $sid --csv --sites --no-symbols"; do
		# shellcheck disable=SC2086
		timeout 60 "$SYSTRACECTL" $cmd >"$T/cmd.out" 2>"$T/cmd.err"
		rc=$?
		[ "$rc" -eq 0 ] || fail "systracectl $cmd while threads churn: exit $rc: $(cat "$T/cmd.err")"
	done
	expect_eq "$(q "$T/cmd.out" sum calls nr=110 "offset=$off_idle")" $idlers \
		"round $((n + 1)): live getppid calls at idle_site"
	[ -e "$w/churned" ] && fail "the churners stopped before the commands' round $((n + 1))"
done
touch "$w/halt"
for ((i = 0; i < 600; i++)); do
	[ -s "$w/churned" ] && break
	sleep 0.1
done
made=$(cat "$w/churned")
log "$rounds rounds of list, status and dumps while the threads churned; $made threads churned"
assert_match "$made" '^[0-9]+$' "threads the churners made"
touch "$w/stop"
wait $sp
rc=$?
expect_eq "$rc" 0 "exit status of systracectl start (churn's 0): $(cat "$T/start.err")"

D=$T/dump
mkdir -p "$D"
trace_dump "$sid"
expect_not_contains "$(klog_since)" "rcu_sched self-detected stall" "kernel log: RCU stall"
expect_not_contains "$(klog_since)" "soft lockup" "kernel log: soft lockup"
pycheck test_trace_snapshot_churn.py "$D" "$P" "$off_idle" \
	"$(elf_offset "$P" churn_site_insn)" $idlers $churners "$made"
