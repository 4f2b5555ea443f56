#!/usr/bin/env bash
# attach to a process of many threads (review finding 4 of issue 23): the
# module makes the thread records out of RCU, 32 at a time, with GFP_KERNEL,
# rescheduling between batches, instead of one atomic allocation per thread
# in one RCU read section. progs/threadwall T M (T threads waiting on a
# barrier, the main thread in read(2)): the summary says 1 process, T+1
# live tasks; once let go, the row has T+1 threads, exactly T*M getppid at
# wall_site, T exit calls and 1 exit_group, no clone (the threads existed
# before the attach), nothing dropped. On the debug kernel, no "sleeping
# function" or RCU report (klog patterns).
# tags: trace debug
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog threadwall
[ "${SYSTRACE_BACKEND:-kmod}" = kmod ] || skip "the module's attach"
on_exit mod_unload_quiet
mod_load

P=$PROGS/threadwall
TH=2000 M=3
mkfifo "$T/go"
"$P" "$TH" "$M" <"$T/go" >"$T/tw.out" 2>"$T/tw.err" &
pid=$!
exec 8>"$T/go"
on_exit "kill -9 $pid 2>/dev/null"
for ((i = 0; i < 600; i++)); do
	grep -qx ready "$T/tw.out" && break
	sleep 0.1
done
grep -qx ready "$T/tw.out" || fail "threadwall never got ready: $(cat "$T/tw.err")"
assert_eq "$(awk '$1 == "Threads:" { print $2 }' "/proc/$pid/status")" $((TH + 1)) "threads of threadwall"

ctl_ok attach --counters none --name wall "$pid"
SID=$CTL_OUT
expect_contains "$CTL_ERR" "attached to pid $pid: 1 process, $((TH + 1)) live tasks" "the attach's summary"
head -c 1 /dev/zero >&8
exec 8>&-
wait "$pid"
expect_eq "$?" 0 "threadwall's exit status"
for ((i = 0; i < 300; i++)); do
	ctl_ok list
	grep -qE "^ *$SID +wall +finished " <<<"$CTL_OUT" && break
	sleep 0.1
done
D=$T/dump
mkdir -p "$D"
trace_dump "$SID"
off=$(elf_offset "$P" wall_site_insn) || exit 1
pycheck test_trace_attach_threads.py "$P" "$off" "$TH" "$M" "$D"
