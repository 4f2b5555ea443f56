#!/usr/bin/env bash
# A caller without CAP_PERFMON or CAP_SYS_ADMIN (nobody) is refused by the
# module itself: EPERM with the module's extack text for each command, do
# requests (nlbad, nlraw) and dumps of an existing session (nlraw: the
# dump's error) alike; `systracectl status`, `list`, `dump` and `start` as
# nobody print that text and a hint naming CAP_PERFMON, and exit 3. A
# malformed request is refused by the genl core's policy first (EINVAL).
# tags: foundation
. "$(dirname "$0")/lib.sh"
need_root
need_cmd setpriv
need_prog nlbad
need_prog nlraw
need_prog sites
on_exit mod_unload_quiet
mod_load

DENIED="systrace: permission denied: needs CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace"
HINT="systracectl: hint: you are not root: run systracectl as root, or give it CAP_PERFMON (as perf needs)"
# Commands and attributes (include/uapi/linux/systrace.h).
STATUS=1 NEW=2 DEL=3 SGET=4 PGET=5 TGET=6 A_SID=8 A_PID=9

# A session of root's, which nobody must neither read nor delete.
ctl_ok start --counters none --name mine -- "$PROGS/sites" 7 3 2
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*/\1/p' <<<"$CTL_ERR" | head -n 1)
assert_match "$sid" '^[0-9]+$' "root's session id"
ctl_ok list
list_before=$CTL_OUT
ctl_ok dump "$sid" --json --sites --no-symbols
dump_before=$CTL_OUT
assert_eq "$(csvq --json len processes <<<"$dump_before")" 1 "process rows of root's session"

# The kernel refuses, with its own text (nlbad's control case is a valid STATUS).
as_nobody "$PROGS/nlbad" status_ok
expect_eq "$CTL_RC" 0 "nlbad as nobody: exit code"
expect_eq "$CTL_OUT" "status_ok errno=-1 EPERM msg=\"$DENIED\" offs=- miss=-" "nlbad STATUS as nobody"

nobody_nl() { # WHAT ARGS...: nlraw as nobody must answer EPERM with the text
	local what=$1
	shift
	as_nobody "$PROGS/nlraw" "$@"
	expect_eq "$CTL_RC" 0 "nlraw $* as nobody: exit code"
	expect_eq "$CTL_OUT" "error 1 EPERM $DENIED" "$what as nobody (nlraw $*)"
}
nobody_nl "STATUS" $STATUS
nobody_nl "SESSION_NEW of its own pid" $NEW $A_PID:u32:$$
nobody_nl "SESSION_GET of root's session" $SGET $A_SID:u32:"$sid"
nobody_nl "SESSION_DEL of root's session" $DEL $A_SID:u32:"$sid"
nobody_nl "SESSION_GET dump" --dump $SGET
nobody_nl "PROC_GET dump of root's session" --dump $PGET $A_SID:u32:"$sid"
nobody_nl "SITE_GET dump of root's session" --dump $TGET $A_SID:u32:"$sid"
# The genl core checks attributes before the module checks privilege: a
# malformed request gets the policy's EINVAL, which says nothing of sessions.
as_nobody "$PROGS/nlraw" $SGET $A_SID:u8:1
expect_match "$CTL_OUT" '^error 22 EINVAL [^-]' "SESSION_GET with a u8 id as nobody"
expect_not_contains "$CTL_OUT" "permission" "SESSION_GET with a u8 id as nobody"

# The CLI prints the kernel's text, then the hint, and exits 3.
nobody_ctl() { # OP ARGS...: systracectl ARGS as nobody, refused at request OP
	local op=$1
	shift
	as_nobody "$SYSTRACECTL" "$@"
	expect_eq "$CTL_RC" 3 "systracectl $* as nobody: exit code (3: permission denied)"
	expect_eq "$CTL_ERR" "systracectl: kernel rejected $op: $DENIED (Operation not permitted)
$HINT" "systracectl $* as nobody: stderr"
	expect_eq "$CTL_OUT" "" "systracectl $* as nobody: stdout"
}
nobody_ctl STATUS status
nobody_ctl STATUS status --json
nobody_ctl SESSION_GET list
nobody_ctl SESSION_GET dump "$sid" --csv
nobody_ctl SESSION_DEL reset "$sid"
nobody_ctl SESSION_NEW start --counters none -- /bin/true

# Root still gets through afterwards, and root's session is intact.
ctl_ok list
expect_eq "$CTL_OUT" "$list_before" "systracectl list after nobody's attempts"
ctl_ok dump "$sid" --json --sites --no-symbols
expect_eq "$CTL_OUT" "$dump_before" "root's session (dump --json --sites) after nobody's attempts"
