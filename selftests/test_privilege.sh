#!/usr/bin/env bash
# Who may use systrace (docs/semantics.md, "Privilege and namespaces"):
# CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace, held by the
# sender and the socket's opener. Denied with the module's text: root in a
# user namespace (also in a new network namespace, where the family must
# still answer), nobody holding only CAP_NET_ADMIN, root holding only that
# in its own netns (a container's), a socket opened or used by nobody;
# and, for SESSION_NEW, a CAP_PERFMON caller naming a process it
# may not ptrace-read (root's, or its own uid's made non-dumpable). Allowed:
# nobody with CAP_PERFMON tracing its own program (exact rows and calls),
# also through a cap_perfmon+ep copy of systracectl (CMD gets no capability).
# Across a setuid-root exec, a root session goes on counting: the setuid
# image (euid 0, AT_SECURE 1) has its row and its exact sites; the
# CAP_PERFMON caller may read that root session, not delete it (root's:
# test_session_owner).
# tags: foundation debug
# timeout: 450
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_cmd setpriv
need_cmd unshare
need_cmd setcap "libcap2-bin"
need_prog nlraw
need_prog sites
need_prog whoami
on_exit mod_unload_quiet
mod_load

DENIED="systrace: permission denied: needs CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace"
NO_PTRACE="systrace: permission denied: no ptrace read access to that process"
EPERM="(Operation not permitted)"
HINT_NOT_ROOT="systracectl: hint: you are not root: run systracectl as root, or give it CAP_PERFMON (as perf needs)"
HINT_ROOT="systracectl: hint: this root process lacks CAP_PERFMON and CAP_SYS_ADMIN: run systracectl with root's capabilities"
HINT_USERNS="systracectl: hint: you are root only inside a user namespace (a container?), and CAP_PERFMON or CAP_SYS_ADMIN count only in the initial one: run systracectl as root on the host"
# Commands and attributes (include/uapi/linux/systrace.h).
STATUS=1 NEW=2 SGET=4 A_PID=9

# Copies nobody can run, wherever the repo is (a CI clone may be private).
N=$T/nobody
mkdir -p "$N"
chmod 755 "$N"
cp "$SYSTRACECTL" "$PROGS/nlraw" "$PROGS/sites" "$PROGS/whoami" "$N/"
chmod 755 "$N"/*
CTL=$N/systracectl NL=$N/nlraw P=$N/sites W=$N/whoami

run() { _lib_run "$@"; }
# caps CAP CMD...: CMD as nobody (uid/gid 65534, no groups) holding only CAP.
caps() {
	local c=$1
	shift
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps="+$c" --ambient-caps="+$c" "$@"
}
expect_out() { # WANT WHAT: CTL_OUT of a command that must have exited 0
	expect_eq "$CTL_RC" 0 "$2: exit status"
	expect_eq "$CTL_OUT" "$1" "$2"
}
expect_refused() { # OP HINT WHAT: systracectl refused at request OP
	expect_eq "$CTL_RC" 3 "$3: exit status (3: permission denied)"
	expect_eq "$CTL_ERR" "systracectl: kernel rejected $1: $DENIED $EPERM
$2" "$3: stderr"
	expect_eq "$CTL_OUT" "" "$3: stdout"
}
sessions() { ctl_ok list --json; csvq --json len sessions <<<"$CTL_OUT"; }

# --- denied: root in a user namespace, with and without its own netns --
# A kernel without CONFIG_USER_NS (the debug kernel) has no
# /proc/self/ns/user; anywhere else the namespace must be made.
if [ -e /proc/self/ns/user ]; then
	userns_cases="-U -r|-U -r -n"
else
	userns_cases=
	log "NOTE: this kernel has no user namespaces (CONFIG_USER_NS): their cases are not run"
fi
IFS='|' read -r -a userns_cases <<<"$userns_cases"
for ns in "${userns_cases[@]}"; do
	# shellcheck disable=SC2086
	run unshare $ns id -u
	assert_eq "$CTL_OUT" 0 "id -u in unshare $ns"
	# shellcheck disable=SC2086
	run unshare $ns "$NL" $STATUS
	expect_out "error 1 EPERM $DENIED" "STATUS from root in unshare $ns"
	# shellcheck disable=SC2086
	run unshare $ns "$NL" --dump $SGET
	expect_out "error 1 EPERM $DENIED" "SESSION_GET dump from root in unshare $ns"
	# shellcheck disable=SC2086
	run unshare $ns "$NL" $NEW $A_PID:u32:$$
	expect_out "error 1 EPERM $DENIED" "SESSION_NEW from root in unshare $ns"
	# shellcheck disable=SC2086
	run unshare $ns "$CTL" status
	expect_refused STATUS "$HINT_USERNS" "systracectl status in unshare $ns"
	# shellcheck disable=SC2086
	run unshare $ns "$CTL" start --counters none -- "$P" 7 3 2
	expect_refused SESSION_NEW "$HINT_USERNS" "systracectl start in unshare $ns"
done
expect_eq "$(sessions)" 0 "sessions after the user namespaces' attempts"

# --- denied: nobody holding only CAP_NET_ADMIN (the old requirement) ---
caps net_admin grep -E '^Cap(Eff|Amb):' /proc/self/status
expect_eq "$CTL_OUT" $'CapEff:\t0000000000001000\nCapAmb:\t0000000000001000' "capabilities of the CAP_NET_ADMIN caller"
caps net_admin "$NL" $STATUS
expect_out "error 1 EPERM $DENIED" "STATUS from nobody with CAP_NET_ADMIN"
caps net_admin "$NL" --dump $SGET
expect_out "error 1 EPERM $DENIED" "SESSION_GET dump from nobody with CAP_NET_ADMIN"
caps net_admin "$CTL" status
expect_refused STATUS "$HINT_NOT_ROOT" "systracectl status as nobody with CAP_NET_ADMIN"
caps net_admin "$CTL" start --counters none -- "$P" 7 3 2
expect_refused SESSION_NEW "$HINT_NOT_ROOT" "systracectl start as nobody with CAP_NET_ADMIN"
# A container's root as Docker makes it with --cap-add NET_ADMIN and
# without CAP_SYS_ADMIN: uid 0 holding CAP_NET_ADMIN, in its own netns.
container() { run unshare -n setpriv --bounding-set=-all,+net_admin "$@"; }
container grep -E '^Cap(Prm|Eff):' /proc/self/status
expect_eq "$CTL_OUT" $'CapPrm:\t0000000000001000\nCapEff:\t0000000000001000' "capabilities of the container's root"
container "$NL" $STATUS
expect_out "error 1 EPERM $DENIED" "STATUS from a container's root with CAP_NET_ADMIN"
container "$CTL" status
expect_refused STATUS "$HINT_ROOT" "systracectl status by a container's root with CAP_NET_ADMIN"
expect_eq "$(sessions)" 0 "sessions after the CAP_NET_ADMIN callers' attempts"

# --- denied: both the socket's opener and the sender need it -----------
run "$NL" --opener-uid 65534 $STATUS
expect_out "error 1 EPERM $DENIED" "STATUS sent by root on a socket nobody opened"
run "$NL" --sender-uid 65534 $STATUS
expect_out "error 1 EPERM $DENIED" "STATUS sent by nobody on a socket root opened"
run "$NL" $STATUS
expect_out $'reply 0\nack' "STATUS from root (control)"

# --- allowed: nobody holding CAP_PERFMON traces its own program --------
caps perfmon "$NL" $STATUS
expect_out $'reply 0\nack' "STATUS from nobody with CAP_PERFMON"
caps perfmon "$CTL" start --counters none --name perfmon -- "$P" 7 3 2
expect_eq "$CTL_RC" 0 "systracectl start as nobody with CAP_PERFMON: exit status (the program's)"
perf_err=$CTL_ERR
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*: tracing .*/\1/p' <<<"$perf_err")
perf_pid=$(sed -n 's/^systracectl: session .*: tracing .* (pid \([0-9][0-9]*\))$/\1/p' <<<"$perf_err")
assert_match "$sid:$perf_pid" '^[0-9]+:[0-9]+$' "session id and pid in: $perf_err"
D=$T/perfmon
mkdir -p "$D"
trace_dump "$sid"
perfmon=$D
# The same rows read by the CAP_PERFMON caller itself.
caps perfmon "$CTL" dump "$sid" --csv --sites --no-symbols
expect_out "$(cat "$D/sites.csv")" "dump --sites as nobody with CAP_PERFMON (as root reads it)"
ctl_ok list
root_list=$CTL_OUT
caps perfmon "$CTL" list
expect_out "$root_list" "list as nobody with CAP_PERFMON (as root sees it)"
# The way perf is usually granted: a copy of systracectl with the file
# capability cap_perfmon+ep. CMD does not inherit it.
cp "$CTL" "$N/systracectl-cap"
setcap cap_perfmon+ep "$N/systracectl-cap" || fail "setcap cap_perfmon+ep $N/systracectl-cap"
run setpriv --reuid=65534 --regid=65534 --clear-groups "$N/systracectl-cap" start --counters none \
	-- grep -E '^Cap(Prm|Eff|Amb):' /proc/self/status
expect_out $'CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapAmb:\t0000000000000000' \
	"start as nobody by a cap_perfmon+ep systracectl: capabilities of CMD"
expect_line "$CTL_ERR" '^systracectl: session [0-9]+: 1 process, ' \
	"start as nobody by a cap_perfmon+ep systracectl: the summary"

# --- denied: SESSION_NEW of a process it may not ptrace-read -----------
sleep 1000 &
root_sleep=$!
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 1000 &
own_sleep=$!
setpriv --reuid=65534 --regid=65534 --clear-groups "$W" 1 nodump >"$T/nodump.out" &
nodump=$!
on_exit "kill $root_sleep $own_sleep $nodump 2>/dev/null; wait 2>/dev/null"
for _ in $(seq 100); do [ -s "$T/nodump.out" ] && break; sleep 0.1; done
expect_eq "$(cat "$T/nodump.out")" "uid=65534 euid=65534 secure=0 dumpable=0" "whoami nodump as nobody"
# /proc/PID/status of a process that is not dumpable belongs to root.
expect_eq "$(stat -c %u:%g /proc/$own_sleep/status) $(stat -c %u:%g /proc/$nodump/status)" "65534:65534 0:0" \
	"owners of /proc/PID/status of a dumpable and a non-dumpable nobody process"
caps perfmon "$NL" $NEW $A_PID:u32:1
expect_out "error 1 EPERM $NO_PTRACE" "SESSION_NEW of pid 1 by nobody with CAP_PERFMON"
caps perfmon "$NL" $NEW $A_PID:u32:$root_sleep
expect_out "error 1 EPERM $NO_PTRACE" "SESSION_NEW of root's sleep by nobody with CAP_PERFMON"
caps perfmon "$NL" $NEW $A_PID:u32:$nodump
expect_out "error 1 EPERM $NO_PTRACE" "SESSION_NEW of nobody's non-dumpable process by nobody with CAP_PERFMON"
# Controls: its own uid's dumpable process; root (CAP_SYS_PTRACE) may name root's.
before=$(sessions)
caps perfmon "$NL" $NEW $A_PID:u32:$own_sleep
expect_out $'reply 1\nack' "SESSION_NEW of nobody's sleep by nobody with CAP_PERFMON"
run "$NL" $NEW $A_PID:u32:$root_sleep
expect_out $'reply 1\nack' "SESSION_NEW of root's sleep by root"
expect_eq "$(sessions)" $((before + 2)) "sessions: the two allowed SESSION_NEW"
kill $root_sleep $own_sleep $nodump
wait $root_sleep $own_sleep $nodump 2>/dev/null
ctl_ok reset --all

# --- setuid exec inside a root session: counting goes on ---------------
# A tmpfs of its own: $T may lie on a nosuid mount.
S=$T/suid
mkdir -p "$S"
mount -t tmpfs -o mode=755,suid,exec tmpfs "$S" || fail "mount a tmpfs on $S"
on_exit "umount $S"
cp "$PROGS/whoami" "$S/whoami"
chown root:root "$S/whoami"
chmod 4755 "$S/whoami"
case ",$(findmnt -n -o OPTIONS -T "$S")," in
*,nosuid,* | *,noexec,*) fail "the tmpfs on $S is nosuid or noexec: $(findmnt -n -o OPTIONS -T "$S")" ;;
esac
off_euid=$(elf_offset "$S/whoami" site_euid_insn) || exit 1
off_uid=$(elf_offset "$S/whoami" site_uid_insn) || exit 1
SETPRIV=$(readlink -f "$(command -v setpriv)")
trace -- "$SETPRIV" --reuid=65534 --regid=65534 --clear-groups "$S/whoami" 5
expect_eq "$TRACE_RC" 0 "setuid whoami under setpriv: exit status"
expect_eq "$TRACE_OUT" "uid=65534 euid=0 secure=1 dumpable=0" "setuid whoami: what it saw (it ran as root: euid 0, AT_SECURE)"
# Sessions are seen by all: the CAP_PERFMON caller reads root's, and may
# not delete it.
caps perfmon "$CTL" dump "$SID" --csv --processes --no-symbols
expect_out "$(cat "$D/procs.csv")" "dump of root's session by nobody with CAP_PERFMON (as root reads it)"
caps perfmon "$CTL" reset "$SID"
expect_eq "$CTL_RC" 3 "reset of root's session by nobody with CAP_PERFMON: exit status (3: permission denied)"
ctl_ok reset "$SID"
ctl dump "$SID"
expect_eq "$CTL_RC" 4 "dump of root's session after root's reset: exit status (4: no such session)"

pycheck test_privilege.py "$perfmon" "$P" "$(elf_offset "$P" site_a_insn)" "$(elf_offset "$P" site_b_insn)" \
	"$(elf_offset "$P" site_c_insn)" "$perf_pid" \
	"$D" "$SETPRIV" "$S/whoami" "$off_euid" "$off_uid"
