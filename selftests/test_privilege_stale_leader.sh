#!/usr/bin/env bash
# SESSION_NEW checks ptrace-read access on the threads it would trace, not
# on a group leader that has left (docs/semantics.md, "SESSION_NEW:
# ptrace-read access to the root"). progs/staleleader, started as root,
# has its leader alone drop to nobody (raw setresuid), make the process
# dumpable and end by SYS_exit, while its other thread runs on as root. A
# CAP_PERFMON caller running as nobody naming that pid is refused (EPERM,
# the module's text, no session): the leader's stale credentials are
# nobody's, the thread that would be traced is root's. Root (CAP_SYS_PTRACE)
# may still name it, and its session's one row has 1 live task.
# tags: foundation debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_cmd setpriv
need_prog nlraw
need_prog staleleader
on_exit mod_unload_quiet
mod_load

NO_PTRACE="systrace: permission denied: no ptrace read access to that process"
NEW=2 A_PID=9
N=$T/nobody
mkdir -p "$N"
chmod 755 "$N"
cp "$PROGS/nlraw" "$N/"
chmod 755 "$N/nlraw"
sessions() { ctl_ok list --json; csvq --json len sessions <<<"$CTL_OUT"; }

"$PROGS/staleleader" 65534 65534 >"$T/sl.out" 2>"$T/sl.err" &
pid=$!
on_exit "kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null"
for _ in $(seq 100); do
	[ "$(awk '$1 == "State:" { print $2 }' "/proc/$pid/status" 2>/dev/null)" = Z ] && break
	sleep 0.1
done
assert_eq "$(cat "$T/sl.out")" ready "staleleader's output (stderr: $(cat "$T/sl.err"))"
uids() { awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "$1"; }
assert_eq "$(awk '$1 == "State:" { print $2 }' "/proc/$pid/status")" Z "the leader's state (a zombie)"
mapfile -t tids < <(ls "/proc/$pid/task")
assert_eq "${#tids[@]}" 2 "threads of staleleader"
for tid in "${tids[@]}"; do
	echo "$tid $(uids "/proc/$pid/task/$tid/status")"
done >"$T/uids"
assert_eq "$(sort -n "$T/uids")" "$pid 65534 65534 65534 65534
$(awk -v p="$pid" '$1 != p { print $1 }' "$T/uids") 0 0 0 0" \
	"uids (real, effective, saved, fs) of the leader and of the thread that runs on"

before=$(sessions)
_lib_run setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=+perfmon --ambient-caps=+perfmon "$N/nlraw" $NEW $A_PID:u32:$pid
expect_eq "$CTL_OUT" "error 1 EPERM $NO_PTRACE" \
	"SESSION_NEW by nobody with CAP_PERFMON of a process whose zombie leader is nobody's and whose live thread is root's"
expect_eq "$(sessions)" "$before" "sessions after the refused SESSION_NEW"

# Control: root may read the live thread.
ctl_ok attach --counters none --name stale "$pid"
SID=$CTL_OUT
expect_contains "$CTL_ERR" "attached to pid $pid: 1 process, 1 live task" "root's attach: the summary"
ctl_ok reset "$SID"
