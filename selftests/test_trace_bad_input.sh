#!/usr/bin/env bash
# Bad requests get a clean error and a message: unknown session ids (CLI
# exit 4), a pid that does not exist (ESRCH), a pid already traced
# (EBUSY), names at and over the limit, out-of-range and wrongly typed
# attributes on the session and dump commands; the module works after.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog nlraw
need_prog spin
need_prog sites
on_exit mod_unload_quiet
mod_load

NL=$PROGS/nlraw
# Commands and attributes (include/uapi/linux/systrace.h).
NEW=2 DEL=3 SGET=4 PGET=5 TGET=6
A_SID=8 A_PID=9 A_NAME=10 A_COUNTERS=12

# nl WHAT ERE ARGS...: nlraw's one-line answer must match ERE.
nl() {
	local what=$1 want=$2 out
	shift 2
	out=$("$NL" "$@" 2>&1)
	expect_match "$out" "$want" "$what (nlraw $*)"
}

# --- the CLI -----------------------------------------------------------
for args in "dump 999" "dump 999 --sites" "dump 999 --json" "reset 999"; do
	# shellcheck disable=SC2086
	ctl $args
	expect_eq "$CTL_RC" 4 "systracectl $args: exit status"
	expect_contains "$CTL_ERR" "no session with that id" "systracectl $args: message"
	expect_eq "$CTL_OUT" "" "systracectl $args: stdout"
done
ctl dump nosuchname
expect_eq "$CTL_RC" 4 "systracectl dump nosuchname: exit status"
expect_contains "$CTL_ERR" 'no session with id or name "nosuchname"' "systracectl dump nosuchname: message"
ctl start --name "$(printf 'n%.0s' {1..32})" -- /bin/true
expect_eq "$CTL_RC" 1 "systracectl start with a 32-byte name: exit status (usage)"

# --- unknown session ids, straight to the kernel -----------------------
nl "SESSION_GET of id 999" '^error 2 ENOENT systrace: no session with that id$' $SGET $A_SID:u32:999
nl "SESSION_DEL of id 999" '^error 2 ENOENT systrace: no session with that id$' $DEL $A_SID:u32:999
nl "PROC_GET dump of id 999" '^error 2 ENOENT systrace: no session with that id$' --dump $PGET $A_SID:u32:999
nl "SITE_GET dump of id 999" '^error 2 ENOENT systrace: no session with that id$' --dump $TGET $A_SID:u32:999
nl "PROC_GET dump without an id" '^error 22 EINVAL systrace: missing session id$' --dump $PGET
nl "SITE_GET dump of id 0" '^error 34 ERANGE integer out of range$' --dump $TGET $A_SID:u32:0
nl "PROC_GET dump with a u64 id" '^error 22 EINVAL [^-]' --dump $PGET $A_SID:u64:1
nl "SITE_GET dump with a string id" '^error 22 EINVAL [^-]' --dump $TGET $A_SID:str:1
nl "SESSION_GET with a u8 id" '^error 22 EINVAL [^-]' $SGET $A_SID:u8:1

# --- SESSION_NEW -------------------------------------------------------
# A pid in range (pid_max) that no process has.
nopid=$(($(cat /proc/sys/kernel/pid_max) - 1))
while [ -e /proc/$nopid ]; do nopid=$((nopid - 1)); done
nl "SESSION_NEW for pid $nopid (none)" '^error 3 ESRCH systrace: .*pid' $NEW $A_PID:u32:$nopid
nl "SESSION_NEW for pid 4194305 (over PID_MAX_LIMIT)" '^error 34 ERANGE integer out of range$' $NEW $A_PID:u32:4194305
nl "SESSION_NEW with a u64 pid" '^error 22 EINVAL [^-]' $NEW $A_PID:u64:1
nl "SESSION_NEW with counters 99" '^error 34 ERANGE integer out of range$' $NEW $A_PID:u32:1 $A_COUNTERS:u32:99
nl "SESSION_NEW with a 32-byte name" '^error 22 EINVAL [^-]' $NEW $A_PID:u32:1 $A_NAME:fill:32
nl "SESSION_NEW with a name without NUL" '^error 22 EINVAL [^-]' $NEW $A_PID:u32:1 $A_NAME:raw:abc

# A 31-byte name is fine: a session for a sleeping process of ours.
sleep 60 &
sl=$!
on_exit "kill $sl 2>/dev/null"
name=$(printf 'a%.0s' {1..31})
nl "SESSION_NEW with a 31-byte name" '^reply 1.ack$' $NEW $A_PID:u32:$sl $A_NAME:fill:31
# ... and that process is now traced: it cannot root another session.
nl "SESSION_NEW for a traced pid" '^error 16 EBUSY systrace: .*already traced' $NEW $A_PID:u32:$sl
ctl reset "$name"
expect_eq "$CTL_RC" 0 "systracectl reset of the 31-byte name ($CTL_ERR)"

# A process traced by systracectl start: its child cannot root a session
# either (the inner start fails, exit 4, with the kernel's message).
trace -- "$SYSTRACECTL" start --counters none -- /bin/true
expect_eq "$TRACE_RC" 4 "systracectl start inside a traced tree: exit status"
expect_contains "$TRACE_ERR" "kernel rejected SESSION_NEW: systrace: the process is already traced by a session (Device or resource busy)" "systracectl start inside a traced tree: message"

"$SYSTRACECTL" start --counters none -- "$PROGS/spin" "$T/stop" 0 >"$T/spin.out" 2>"$T/spin.err" &
sp=$!
on_exit "touch $T/stop; kill $sp 2>/dev/null"
for ((i = 0; i < 300; i++)); do
	[ -e "$T/stop.started" ] && break
	sleep 0.1
done
[ -e "$T/stop.started" ] || fail "spin did not start: $(cat "$T/spin.err")"
spid=$(sed -n 's/.*: tracing .* (pid \([0-9][0-9]*\))$/\1/p' "$T/spin.err")
nl "SESSION_NEW for a pid traced by start" '^error 16 EBUSY systrace: .*already traced' $NEW $A_PID:u32:"$spid"
touch "$T/stop"
wait $sp
expect_eq $? 0 "spin under systracectl start: exit status"

# Everything still works.
ctl status
expect_eq "$CTL_RC" 0 "status after the bad requests"
trace -- "$PROGS/sites" 10 5 3
assert_eq "$TRACE_RC" 0 "a trace after the bad requests: exit status"
pycheck test_trace_bad_input.py "$D"
