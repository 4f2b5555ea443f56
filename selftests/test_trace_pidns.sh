#!/usr/bin/env bash
# A session reports pids as its creator's pid namespace sees them. Inside:
# systracectl start run as pid 1 of a new pid namespace (unshare -p -f
# --mount-proc) traces pidwait as pid 2, ppid 1 (pidwait says so too), even
# when read from outside; the namespace's pid 1, whose parent it cannot
# see, has ppid 0. Outside: a session created outside for a tree
# that enters a child pid namespace (start -- unshare -p -f --mount-proc
# pidwait) reports outside pids: pidwait's from /proc/PID/status NSpid
# while it waits, unshare's, and systracectl's as the root's parent.
# tags: trace
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_cmd unshare
need_prog pidwait
need_prog nlraw
on_exit mod_unload_quiet
mod_load

PW=$PROGS/pidwait
UNSHARE=$(readlink -f "$(command -v unshare)")
off_pid=$(elf_offset "$PW" site_pid_insn) || exit 1
off_ppid=$(elf_offset "$PW" site_ppid_insn) || exit 1

# --- inside: the session's creator is pid 1 of the new namespace --------
D=$T/inside
mkdir -p "$D"
unshare -p -f --mount-proc "$SYSTRACECTL" start --counters none --name inside -- "$PW" \
	>"$D/start.out" 2>"$D/start.err"
expect_eq "$?" 0 "unshare -p -f --mount-proc systracectl start -- pidwait: exit status"
expect_eq "$(cat "$D/start.out")" "pid=2 ppid=1" "pidwait inside: what it saw"
expect_line "$(cat "$D/start.err")" '^systracectl: session [0-9]+ "inside": tracing .* \(pid 2\)$' \
	"systracectl inside: the pid it forked, as it sees it"
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*/\1/p' "$D/start.err" | head -n 1)
assert_match "$sid" '^[0-9]+$' "session id inside: $(cat "$D/start.err")"
trace_dump "$sid"
inside=$D

# --- inside: a parent the creator's namespace cannot see is 0 ----------
# nlraw, pid 2 inside, makes a session for pid 1 (sh, whose parent is
# outside); sh then execs pidwait. Read with csvq: a session made by
# SESSION_NEW of a running process is not a start session, whose
# invariants check_invariants checks.
# shellcheck disable=SC2016
unshare -p -f --mount-proc sh -c '"$1" 2 9:u32:1 10:str:pidinit && exec "$2"' sh "$PROGS/nlraw" "$PW" \
	>"$T/pidinit.out" 2>&1
expect_eq "$?" 0 "unshare -p -f --mount-proc sh -c 'nlraw SESSION_NEW of pid 1, exec pidwait': exit status"
expect_eq "$(cat "$T/pidinit.out")" $'reply 1\nack\npid=1 ppid=0' "nlraw's answer, then what pidwait saw as pid 1"
ctl_ok dump pidinit --json --no-symbols
expect_eq "$(csvq --json get session.root_pid processes.0.pid processes.0.ppid processes.0.end \
	processes.1.pid processes.1.ppid processes.1.prev_id processes.1.exe <<<"$CTL_OUT" | tr '\n' ' ')" \
	"1 1 0 exec 1 0 1 $PW " "session for the namespace's pid 1: root_pid; sh's pid, ppid, end; pidwait's pid, ppid, prev_id, exe"

# --- outside: the tree enters a child pid namespace ---------------------
D=$T/outside
mkdir -p "$D"
mkfifo "$T/go"
"$SYSTRACECTL" start --counters none --name outside -- "$UNSHARE" -p -f --mount-proc "$PW" "$T/go" \
	>"$D/start.out" 2>"$D/start.err" &
ctl_pid=$!
on_exit "kill $ctl_pid 2>/dev/null"
for _ in $(seq 300); do [ -s "$D/start.out" ] && break; sleep 0.1; done
assert_eq "$(cat "$D/start.out")" "pid=1 ppid=0" "pidwait in its own pid namespace: what it saw"
# pidwait's pid as the init namespace sees it: NSpid "OUTSIDE 1".
pw_pid=$(awk '$1 == "Name:" { n = $2 } $1 == "NSpid:" && n == "pidwait" && NF == 3 && $3 == 1 { print $2 }' \
	/proc/[0-9]*/status 2>/dev/null)
assert_match "$pw_pid" '^[0-9]+$' "outside pid of pidwait (NSpid)"
pw_ppid=$(awk '$1 == "PPid:" { print $2 }' "/proc/$pw_pid/status")
log "pidwait: pid $pw_pid, ppid $pw_ppid outside; systracectl: pid $ctl_pid"
# shellcheck disable=SC2016
timeout 10 sh -c 'echo go >"$1"' sh "$T/go" || fail "pidwait did not read $T/go"
wait $ctl_pid
expect_eq "$?" 0 "systracectl start -- unshare -p -f --mount-proc pidwait: exit status"
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*/\1/p' "$D/start.err" | head -n 1)
root_pid=$(sed -n 's/^systracectl: session .*: tracing .* (pid \([0-9][0-9]*\))$/\1/p' "$D/start.err")
assert_match "$sid:$root_pid" '^[0-9]+:[0-9]+$' "session id and pid outside: $(cat "$D/start.err")"
expect_eq "$pw_ppid" "$root_pid" "pidwait's parent outside: unshare, the pid systracectl forked"
trace_dump "$sid"

pycheck test_trace_pidns.py "$inside" "$D" "$PW" "$UNSHARE" "$off_pid" "$off_ppid" "$root_pid" "$ctl_pid" "$pw_pid"
