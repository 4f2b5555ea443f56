#!/usr/bin/env bash
# Dumps of a running session whose live threads each hold many sites (the
# shape that made the site dump re-walk every live thread's sites for each
# row): 32 threads each call the same 2048 anonymous getppid sites once,
# then stay alive, blocked, while the session is dumped twice. Each live
# dump has the 2048 rows with exactly 32 calls each (the live threads'
# counts merged in), the running state and 33 live tasks; after the
# threads end, the final dump has the same rows. The kernel log of the
# dumps has no RCU stall, soft lockup or hung task (on the debug kernel:
# lockdep and PROVE_RCU watch the dump's walk too). LIVE_THREADS and
# LIVE_SITES change the shape.
# tags: trace debug bpf
# timeout: 900
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog livesites
on_exit mod_unload_quiet
mod_load

nt=${LIVE_THREADS:-32}
ns=${LIVE_SITES:-2048}
w=$T/live
mkdir -p "$w"
klog_from=$(dmesg | wc -l)

"$SYSTRACECTL" start --counters none --backend "${SYSTRACE_BACKEND:-kmod}" --name live -- \
	"$PROGS/livesites" "$nt" "$ns" "$w" >"$T/start.out" 2>"$T/start.err" &
sp=$!
on_exit "touch $w/release; kill $sp 2>/dev/null"
for ((i = 0; i < 3000; i++)); do
	[ -e "$w/ready" ] && break
	kill -0 "$sp" 2>/dev/null || break
	sleep 0.1
done
[ -e "$w/ready" ] || fail "livesites did not get ready: $(cat "$T/start.err")"
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*: tracing .*/\1/p' "$T/start.err" | head -n 1)
[ -n "$sid" ] || fail "no session id: $(cat "$T/start.err")"
base=$(head -n 1 "$T/start.out")
log "$nt threads x $ns sites at $base"

dirs=()
for n in 1 2; do
	mkdir -p "$T/live.$n"
	t0=$(date +%s%N)
	"$SYSTRACECTL" dump "$sid" --json --no-symbols -o "$T/live.$n/dump.json" 2>"$T/live.$n/err"
	rc=$?
	t1=$(date +%s%N)
	expect_eq "$rc" 0 "live dump $n: exit status ($(cat "$T/live.$n/err"))"
	log "live dump $n: $(((t1 - t0) / 1000000)) ms"
	dirs+=("$T/live.$n")
done

touch "$w/release"
wait "$sp"
expect_eq "$?" 0 "systracectl start: exit status ($(cat "$T/start.err"))"
D=$T/final
mkdir -p "$D"
trace_dump "$sid"

dmesg | tail -n +"$((klog_from + 1))" >"$T/klog"
n=$(grep -cE 'rcu.*(stall|detected)|soft lockup|hung task|blocked for more than' "$T/klog")
expect_eq "$n" 0 "kernel log lines of RCU stalls, lockups or hung tasks: $(grep -E 'rcu.*(stall|detected)|soft lockup|hung task' "$T/klog" | head -n 3)"

pycheck test_trace_dump_live.py "$base" "$nt" "$ns" "$D" "${dirs[@]}"
