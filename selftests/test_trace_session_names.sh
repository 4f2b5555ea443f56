#!/usr/bin/env bash
# Session names, as the module rules them: an empty name is refused
# (EINVAL, with its message, no session made); a name a live session has
# is refused (EEXIST: by SESSION_NEW straight, and by attach and start,
# exit 4 with the message), whether that session is running or was made
# by start; once it has finished, or is detached, the name may be given
# again; unnamed sessions are as many as one likes.
# tags: trace debug
# timeout: 200
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog nlraw
[ "${SYSTRACE_BACKEND:-kmod}" = kmod ] || skip "module rules (the BPF backend has its own test)"
on_exit mod_unload_quiet
mod_load

NL=$PROGS/nlraw
# Commands and attributes (include/uapi/linux/systrace.h).
NEW=2 A_PID=9 A_NAME=10

# nl WHAT ERE ARGS...: nlraw's one-line answer must match ERE.
nl() {
	local what=$1 want=$2 out
	shift 2
	out=$("$NL" "$@" 2>&1)
	expect_match "$out" "$want" "$what (nlraw $*)"
}

# sessions: the number of sessions the module has.
sessions() {
	ctl_ok list
	tail -n +2 <<<"$CTL_OUT" | grep -c .
}

sleeper() {
	sleep 300 &
	SL=$!
	on_exit "kill $SL 2>/dev/null"
}

# --- empty ---------------------------------------------------------------
sleeper
nl "SESSION_NEW with an empty name" \
	'^error 22 EINVAL systrace: the session name is empty: give a name, or none$' \
	$NEW $A_PID:u32:$SL $A_NAME:fill:0
expect_eq "$(sessions)" 0 "sessions after the empty name"

# --- taken by a running session ------------------------------------------
ctl_ok attach -q --counters none --name dup "$SL"
s1=$CTL_OUT
sl1=$SL
sleeper
nl "SESSION_NEW with the name of a running session" \
	'^error 17 EEXIST systrace: a live session already has that name$' \
	$NEW $A_PID:u32:$SL $A_NAME:str:dup
ctl attach --counters none --name dup "$SL"
expect_eq "$CTL_RC" 4 "attach --name dup: exit status"
expect_contains "$CTL_ERR" "a live session already has that name" "attach --name dup: message"
expect_eq "$CTL_OUT" "" "attach --name dup: stdout"
ctl start --counters none --name dup -- /bin/true
expect_eq "$CTL_RC" 4 "start --name dup: exit status"
expect_contains "$CTL_ERR" "a live session already has that name" "start --name dup: message"
expect_eq "$(sessions)" 1 "sessions after the refusals"
# Another name, and no name at all, twice: fine.
ctl_ok attach -q --counters none --name dup2 "$SL"
s2=$CTL_OUT
sleeper
ctl_ok attach -q --counters none "$SL"
sleeper
ctl_ok attach -q --counters none "$SL"
expect_eq "$(sessions)" 4 "sessions: dup, dup2 and two unnamed"

# --- free again once the session is detached, or has finished ------------
ctl_ok detach "$s2"
sleeper
ctl_ok attach -q --counters none --name dup2 "$SL"
s3=$CTL_OUT
kill "$sl1"
for ((i = 0; i < 100; i++)); do
	ctl_ok list
	grep -qE "^ *$s1 +dup +finished " <<<"$CTL_OUT" && break
	sleep 0.1
done
expect_line "$CTL_OUT" "^ *$s1 +dup +finished " "the first dup session has finished"
sleeper
ctl_ok attach -q --counters none --name dup "$SL"
s4=$CTL_OUT
ctl_ok list
expect_line "$CTL_OUT" "^ *$s3 +dup2 +running " "dup2 given again after a detach"
expect_line "$CTL_OUT" "^ *$s4 +dup +running " "dup given again after it finished"
# A name picks the newest session that has it.
ctl_ok dump dup --json
expect_eq "$(csvq --json get session.id <<<"$CTL_OUT")" "$s4" "dump dup: the newest session named dup"

# --- a session made by start is live until its command ends -------------
"$SYSTRACECTL" start --counters none --name byst -- sleep 300 >/dev/null 2>"$T/byst.err" &
st=$!
on_exit "kill $st 2>/dev/null"
for ((i = 0; i < 100; i++)); do
	ctl_ok list
	grep -qE "^ *[0-9]+ +byst +running " <<<"$CTL_OUT" && break
	sleep 0.1
done
expect_line "$CTL_OUT" "^ *[0-9]+ +byst +running " "start --name byst runs"
sleeper
ctl attach --counters none --name byst "$SL"
expect_eq "$CTL_RC" 4 "attach with the name of start's running session: exit status"
expect_contains "$CTL_ERR" "a live session already has that name" "attach --name byst: message"
