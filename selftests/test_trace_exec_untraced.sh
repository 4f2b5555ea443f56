#!/usr/bin/env bash
# An exec into an image that the session's creator could not ptrace ends
# tracing there (issue 34, D), as perf stops counting such an image: the
# old image's row ends "exec-untraced", the new image gets no row and none
# of its syscalls is counted, and the session finishes when it is gone.
# The command, sh -c 'exec IMAGE 7 3 2', with IMAGE a copy of
# selftests/progs/sites (7 and 3 getppid() from two sites, 2 close(-1)):
#   - nobody holding only CAP_PERFMON, IMAGE setuid root: one row (sh,
#     exec-untraced), no site in IMAGE, the session's execs 1 (the root's);
#   - the same user, IMAGE a plain copy: two rows, IMAGE's 3 sites with
#     7, 3 and 2 calls (so it is the setuid bit, not the user, that counts);
#   - nobody holding CAP_PERFMON and CAP_SYS_PTRACE, and root: IMAGE
#     setuid and traced whole, with the same 3 sites.
# That the kernel honoured the setuid bit where the test runs is shown
# independently: a setuid copy of cat, run by nobody, reads Uid 65534 0 0 0
# from its /proc/self/status.
# tags: foundation debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_cmd setpriv
need_prog sites
on_exit mod_unload_quiet
mod_load

N=$T/nobody
mkdir -p "$N"
chmod 755 "$N"
cp "$SYSTRACECTL" "$PROGS/sites" /bin/cat "$N/"
cp "$PROGS/sites" "$N/sites_suid"
cp /bin/cat "$N/cat_suid"
chown root:root "$N/sites_suid" "$N/cat_suid"
chmod 755 "$N"/*
chmod 4755 "$N/sites_suid" "$N/cat_suid"

_lib_run setpriv --reuid=65534 --regid=65534 --clear-groups "$N/cat_suid" /proc/self/status
assert_eq "$(grep '^Uid:' <<<"$CTL_OUT")" "Uid:	65534	0	0	0" \
	"a setuid-root cat run by nobody: its credentials (/proc/self/status)"

# run_as CAPS IMAGE: start as nobody holding CAPS (or as root: CAPS is
# root), tracing sh -c 'exec IMAGE 7 3 2'; its dumps into $D, as trace.
n=0
run_as() {
	local caps=$1 image=$2 who=()
	[ "$caps" = root ] || who=(setpriv --reuid=65534 --regid=65534 --clear-groups
		"--inh-caps=$caps" "--ambient-caps=$caps")
	n=$((n + 1))
	D=$T/run.$n
	mkdir -p "$D"
	# shellcheck disable=SC2016 # $0 is sh's, in the single quotes
	_lib_run "${who[@]}" "$N/systracectl" start --counters none --backend kmod -- \
		/bin/sh -c 'exec "$0" 7 3 2' "$image"
	assert_eq "$CTL_RC" 0 "start as $caps of $image: exit status (the image's)"
	SID=$(sed -n 's/^systracectl: session \([0-9][0-9]*\).*: tracing .*/\1/p' <<<"$CTL_ERR" | head -n 1)
	[ -n "$SID" ] || fail "start as $caps: no session id on stderr: $CTL_ERR"
	trace_dump "$SID"
}

# sites_of IMAGE: "calls" of each of IMAGE's site rows, in order of calls.
sites_of() { q "$D/sites.csv" get calls "path=$1" | sort -n | tr '\n' ' '; }

run_as +perfmon "$N/sites_suid"
expect_eq "$(q "$D/procs.csv" count)" 1 "nobody (CAP_PERFMON), setuid image: rows"
expect_eq "$(q "$D/procs.csv" get end)" exec-untraced "nobody (CAP_PERFMON), setuid image: the sh row's end"
expect_eq "$(q "$D/procs.csv" get comm)" sh "nobody (CAP_PERFMON), setuid image: the row's comm"
expect_eq "$(q "$D/sites.csv" count "path=$N/sites_suid")" 0 "nobody (CAP_PERFMON), setuid image: its sites"
expect_eq "$(csvq -f "$D/dump.json" --json get session.execs session.state)" "1
finished" "nobody (CAP_PERFMON), setuid image: session execs (the root's), state"

run_as +perfmon "$N/sites"
expect_eq "$(q "$D/procs.csv" get end | sort | tr '\n' ' ')" "exec exited " "nobody (CAP_PERFMON), plain image: the rows' ends"
expect_eq "$(sites_of "$N/sites")" "2 3 7 " "nobody (CAP_PERFMON), plain image: its sites' calls"

run_as +perfmon,+sys_ptrace "$N/sites_suid"
expect_eq "$(q "$D/procs.csv" get end | sort | tr '\n' ' ')" "exec exited " "nobody (CAP_PERFMON, CAP_SYS_PTRACE), setuid image: the rows' ends"
expect_eq "$(sites_of "$N/sites_suid")" "2 3 7 " "nobody (CAP_PERFMON, CAP_SYS_PTRACE), setuid image: its sites' calls"

run_as root "$N/sites_suid"
expect_eq "$(q "$D/procs.csv" get end | sort | tr '\n' ' ')" "exec exited " "root, setuid image: the rows' ends"
expect_eq "$(sites_of "$N/sites_suid")" "2 3 7 " "root, setuid image: its sites' calls"
expect_eq "$(q "$D/sites.csv" sum errors "path=$N/sites_suid")" 2 "root, setuid image: its errors (close(-1): EBADF)"

for d in "$T"/run.*; do
	check_invariants "$d" || _lib_report "the rows of $d do not add up (trace_check.py invariants)"
done
ctl_ok reset --all
