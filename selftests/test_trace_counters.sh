#!/usr/bin/env bash
# Per-task perf counters: --counters task-clock over 4 threads that each
# burn 200 ms of CPU sums 5 tasks' counters into the process row, agrees
# with the threads' own CPU clocks and with user_time_ns + sys_time_ns.
# An exec's split: a child that burns 100 ms, then stops inside its exec
# (ptrace), where the session is detached: the old image is credited its
# count once, the new image 0 (not the old image's count again). A
# setuid exec (perf takes the task's counter off it): the setuid image's
# row has no value (null), not 0, the image before it has its own.
# --counters instructions and cycles without a PMU: the session says why,
# the columns are empty, tracing is exact.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog burn
need_prog sites
need_prog nlraw
need_prog ptexec
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

# The split at an exec, read by a session's end before the exec returns.
mkfifo "$T/go"
"$SYSTRACECTL" start --counters task-clock --name split -- \
	"$PROGS/ptexec" 100 "$T/go" "$PROGS/sites" 1 1 1 >"$T/split.out" 2>"$T/split.err" &
spid=$!
# Killing ptexec detaches its stopped child, which then goes on.
on_exit "kill $spid 2>/dev/null"
for ((i = 0; i < 600; i++)); do
	grep -q '^stopped ' "$T/split.out" && break
	sleep 0.1
done
grep -q '^stopped ' "$T/split.out" || fail "ptexec's child never stopped in its exec: $(cat "$T/split.err")"
ctl_ok detach split
echo go >"$T/go"
wait $spid
expect_eq "$?" 0 "ptexec: exit status"
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\).*: tracing .*/\1/p' "$T/split.err" | head -n 1)
D=$T/split
mkdir -p "$D"
trace_dump "$sid"
cp "$T/split.out" "$D/start.out"
split=$D

# A setuid exec: nobody runs a setuid-root copy of sites, under setpriv.
S=$T/suid
mkdir -p "$S"
chmod 755 "$S"
cp "$PROGS/sites" "$S/sites"
chown root:root "$S/sites"
chmod 4755 "$S/sites"
suid=
case ",$(findmnt -n -o OPTIONS -T "$S")," in
*,nosuid,*) log "NOTE: $S is on a nosuid mount: no setuid exec there, not checked" ;;
*)
	SETPRIV=$(readlink -f "$(command -v setpriv)")
	trace --counters task-clock -- "$SETPRIV" --reuid=65534 --regid=65534 --clear-groups "$S/sites" 10 5 3
	assert_eq "$TRACE_RC" 0 "setuid sites under setpriv: exit status"
	suid=$D
	;;
esac

trace --counters instructions -- "$PROGS/sites" 1000 250 37
assert_eq "$TRACE_RC" 0 "instructions: exit status"
insn=$D
ctl status
echo "$CTL_OUT" >"$T/status.txt"
trace --counters cycles -- "$PROGS/sites" 10 20 30
assert_eq "$TRACE_RC" 0 "cycles: exit status"
cyc=$D

pycheck test_trace_counters.py "$burn" "$T/status.txt" "$ctasks" "$cvalue" "$insn" "$cyc" "$PROGS/sites" \
	"$split" "$PROGS/ptexec" "$suid" "$S/sites"
