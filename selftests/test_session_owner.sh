#!/usr/bin/env bash
# Sessions belong to the user who made them (issue 34, D): without
# CAP_SYS_ADMIN, only that user (its euid) may delete, detach or drain the
# log of a session. nobody holding only CAP_PERFMON (setpriv) is refused
# SESSION_DEL, SESSION_DETACH and LOG_READ of root's session, with EPERM
# and the module's text (systracectl reset exits 3, log says it); the session
# and its log are still whole after (root then drains exactly the session's
# syscalls from the log). nobody may still list and dump root's session
# (CAP_PERFMON observes), and deletes and detaches its own sessions; root
# (CAP_SYS_ADMIN) deletes nobody's.
# tags: foundation debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_cmd setpriv
need_prog nlraw
need_prog sites
on_exit mod_unload_quiet
mod_load

OWNER="systrace: permission denied: the session is another user's; only its owner, or CAP_SYS_ADMIN, may delete, detach or drain it"
EPERM="(Operation not permitted)"
# Commands and attributes (include/uapi/linux/systrace.h).
DEL=3 DETACH=7 LOG=8 A_SID=8

N=$T/nobody
mkdir -p "$N"
chmod 755 "$N"
cp "$SYSTRACECTL" "$PROGS/nlraw" "$PROGS/sites" "$N/"
chmod 755 "$N"/*
CTL=$N/systracectl NL=$N/nlraw P=$N/sites

# perfmon CMD...: CMD as nobody (uid/gid 65534, no groups) holding only CAP_PERFMON.
perfmon() {
	_lib_run setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=+perfmon --ambient-caps=+perfmon "$@"
}
sessions() { ctl_ok list --json; csvq --json len sessions <<<"$CTL_OUT"; }

# Root's session, with a log kept for systracectl log.
trace --log-buffer 1M -- "$P" 7 3 2
assert_eq "$TRACE_RC" 0 "root's session: exit status"
root=$SID
syscalls=$(csvq -f "$D/dump.json" --json get session.syscalls)

perfmon "$NL" $DEL "$A_SID:u32:$root"
expect_eq "$CTL_OUT" "error 1 EPERM $OWNER" "SESSION_DEL of root's session by nobody with CAP_PERFMON"
perfmon "$NL" $DETACH "$A_SID:u32:$root"
expect_eq "$CTL_OUT" "error 1 EPERM $OWNER" "SESSION_DETACH of root's session by nobody with CAP_PERFMON"
perfmon "$NL" --dump $LOG "$A_SID:u32:$root"
expect_eq "$CTL_OUT" "error 1 EPERM $OWNER" "LOG_READ of root's session by nobody with CAP_PERFMON"
perfmon "$CTL" reset "$root"
expect_eq "$CTL_RC" 3 "systracectl reset of root's session by nobody: exit status (3: permission denied)"
expect_line "$CTL_ERR" "^systracectl: kernel rejected SESSION_DEL: $OWNER \\(Operation not permitted\\)$" \
	"systracectl reset of root's session by nobody: stderr"
mkdir -p "$T/nw"
chown 65534:65534 "$T/nw"
perfmon "$CTL" log "$root" -o "$T/nw/log.csv"
log "systracectl log by nobody: exit $CTL_RC: $CTL_ERR"
expect_contains "$CTL_ERR" "$OWNER $EPERM" "systracectl log of root's session by nobody: stderr"
# Refused is refused: exit 3 and no log file, not an empty log (exit 0).
expect_eq "$CTL_RC" 3 "systracectl log of root's session by nobody: exit status"
expect_eq "$(find "$T/nw" -type f | wc -l)" 0 "systracectl log of root's session by nobody: files left in its directory"
# Observing is still everyone's with CAP_PERFMON.
perfmon "$CTL" dump "$root" --csv --sites --no-symbols
expect_eq "$CTL_RC" 0 "dump of root's session by nobody: exit status"
expect_eq "$CTL_OUT" "$(cat "$D/sites.csv")" "dump of root's session by nobody (as root reads it)"
ctl_ok list --json
expect_eq "$(csvq --json get sessions.0.state <<<"$CTL_OUT")" finished "root's session after nobody's attempts: state"
expect_eq "$(sessions)" 1 "sessions after nobody's attempts"

# Root drains the whole log: nothing was taken by nobody's attempt.
ctl_ok log "$root" -o "$T/root.log.csv" --no-symbols
expect_eq "$(q "$T/root.log.csv" count event=syscall)" "$syscalls" "syscall events root drains from its session's log"

# nobody's own sessions: it deletes one and detaches another; root deletes a third.
own=()
for i in 1 2 3; do
	perfmon "$CTL" start --counters none --name "own$i" -- "$P" 7 3 2
	expect_eq "$CTL_RC" 0 "nobody's session $i: exit status"
	own+=("$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*: tracing .*/\1/p' <<<"$CTL_ERR")")
done
log "nobody's sessions: ${own[*]}"
perfmon "$NL" $DEL "$A_SID:u32:${own[0]}"
expect_eq "$CTL_OUT" "ack" "SESSION_DEL of its own session by nobody with CAP_PERFMON"
perfmon "$NL" $DETACH "$A_SID:u32:${own[1]}"
expect_eq "$CTL_OUT" "ack" \
	"SESSION_DETACH of its own session by nobody with CAP_PERFMON"
ctl_ok reset "${own[2]}"
ctl_ok reset "${own[1]}"
ctl_ok reset "$root"
expect_eq "$(sessions)" 0 "sessions at the end"
