#!/usr/bin/env bash
# The BPF backend's own behaviour: the session says "bpf" and lives in the
# pin tree until reset deletes it; max_sites and max_procs drop exactly
# the site rows and processes past the limit, and count them; -EPERM (-1)
# counts as an error; a log session has a ring per possible CPU, sized as
# the module's log, and its memory counts; the rings of all CPUs may take
# half of max_mem. Its messages and exit codes:
#   nobody        start, list and reset 1: 3, "needs root (CAP_SYS_ADMIN"
#   capabilities  root with only CAP_SYS_ADMIN traces; root without it: 3,
#                 with a hint that says this root process lacks it
#   no session    no module, no session: list prints nothing (0), status
#                 shows the BPF backend (0), dump says so (4): no "insmod"
#   refusals      systracectl's own never read "kernel rejected"; log of a
#                 session without a log says so
# tags: bpf bpf-quick
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_bpf
need_prog sites
need_prog forks
need_cmd setpriv
on_exit mod_unload_quiet
mod_load

# --- no session --------------------------------------------------------------------
ctl_ok list
expect_eq "$CTL_OUT" "ID     NAME             STATE      ROOT_PID     PROCS     SYSCALLS   DROPPED" "list with no session"
ctl_ok status
expect_line "$CTL_OUT" "^module version: +bpf \(libbpf .*; no module loaded\)$" "status with no module: the backend"
expect_line "$CTL_OUT" "^sessions live: +0$" "status with no session: sessions"
expect_line "$CTL_OUT" "^probes active: +no$" "status with no session: probes"
ctl dump
expect_eq "$CTL_RC" 4 "dump with no session: exit status"
expect_contains "$CTL_ERR" "no sessions (start one with: systracectl start -- CMD)" "dump with no session: message"
for c in list status dump; do
	ctl $c
	expect_not_contains "$CTL_ERR" "insmod" "$c with no module and no session: no insmod"
done

trace -- "$PROGS/sites" 7 3 2
assert_eq "$TRACE_RC" 0 "sites 7 3 2: exit status"
full=$D
ctl_ok list
assert_line "$CTL_OUT" "^$SID " "list shows session $SID"
ctl_ok status --json
assert_eq "$(csvq --json get sessions_live <<<"$CTL_OUT")" 1 "status: sessions_live"
ctl_ok reset "$SID"
ctl_ok list
expect_eq "$(grep -c '^[0-9]' <<<"$CTL_OUT")" 0 "sessions after the reset"
ctl dump "$SID"
assert_eq "$CTL_RC" 4 "dump of the reset session: exit status"
assert_contains "$CTL_ERR" "no session with that id" "dump of the reset session: message"

# At most 5 site rows: the first 5 sites of the run above, the rest dropped.
SYSTRACE_MAX_SITES=5 "$SYSTRACECTL" start --backend bpf --counters none --quiet -- "$PROGS/sites" 7 3 2 2>"$T/limit.err"
assert_eq "$?" 0 "sites 7 3 2 with max_sites 5: exit status"
ctl_ok dump --json --no-symbols -o "$T/sites5.json"
ctl_ok reset --all

# At most 3 process rows: forks 5's own, and those of its first 2 children.
SYSTRACE_MAX_PROCS=3 "$SYSTRACECTL" start --backend bpf --counters none --quiet -- "$PROGS/forks" 5 2>"$T/forks.err"
assert_eq "$?" 3 "forks 5 with max_procs 3: exit status (the program's)"
ctl_ok dump --json --no-symbols -o "$T/procs3.json"
ctl_ok reset --all

# One kill(1, 0) by nobody: one call, one error (-EPERM, -1: the edge of the range).
"$SYSTRACECTL" start --backend bpf --counters none --quiet -- \
	setpriv --reuid=65534 --regid=65534 --clear-groups kill -0 1 2>"$T/kill.err"
assert_eq "$?" 1 "nobody's kill -0 1: exit status"
ctl_ok dump --json --no-symbols -o "$T/kill.json"
ctl_ok reset --all

# --- nobody, capabilities ----------------------------------------------------------
for c in "start --backend bpf -- /bin/true" "list" "reset 1"; do
	# shellcheck disable=SC2086 # the subcommand and its arguments
	as_nobody "$SYSTRACECTL" $c
	expect_eq "$CTL_RC" 3 "nobody: $c: exit status"
	expect_contains "$CTL_ERR" "the BPF backend needs root (CAP_SYS_ADMIN" "nobody: $c: message"
	expect_contains "$CTL_ERR" "hint: you are not root" "nobody: $c: hint"
	expect_not_contains "$CTL_ERR" "kernel rejected" "nobody: $c: a refusal of systracectl's"
done
setpriv --bounding-set=-all,+sys_admin "$SYSTRACECTL" start --backend bpf --counters task-clock --quiet -- \
	"$PROGS/sites" 7 3 2 >"$T/cap.out" 2>"$T/cap.err"
expect_eq "$?" 0 "root with only CAP_SYS_ADMIN: start's exit status ($(cat "$T/cap.err"))"
ctl_ok reset --all
setpriv --bounding-set=-sys_admin "$SYSTRACECTL" start --backend bpf --counters none -- /bin/true >"$T/nocap.out" 2>"$T/nocap.err"
expect_eq "$?" 3 "root without CAP_SYS_ADMIN: exit status"
expect_contains "$(cat "$T/nocap.err")" "CAP_SYS_ADMIN, which this process lacks" "root without CAP_SYS_ADMIN: message"
expect_contains "$(cat "$T/nocap.err")" "hint: this root process lacks CAP_SYS_ADMIN" "root without CAP_SYS_ADMIN: hint"
ctl_ok reset --all

# --- the temporal log ----------------------------------------------------------------
# A ring buffer per possible CPU, of the size asked per CPU rounded down to
# a power of 2, while the session runs; a finished session whose log was
# drained holds none, and reset removes them with the rest. (test_trace_log
# checks the events.)
ncpus=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1 } } END { print c }' \
	/sys/devices/system/cpu/possible)
# rings: the ids of the log rings in the tree, one per line.
rings() {
	bpftool -j map dump pinned "$BPF_TREE/logs" | csvq --json le . value
}
"$SYSTRACECTL" start --backend bpf --counters none --quiet --log-buffer 1536K -- \
	"$PROGS/sites" 7 3 2 "$T/lgo" 2>"$T/lr.err" &
lr=$!
for ((i = 0; i < 200; i++)); do
	[ "$(rings 2>/dev/null | wc -l)" = "$ncpus" ] && break
	sleep 0.05
done
expect_eq "$(rings | wc -l)" "$ncpus" "the log rings of a running session ($ncpus possible CPUs)"
for id in $(rings); do
	expect_eq "$(bpftool -j map show id "$id" | csvq --json get max_entries)" 1048576 \
		"ring $id: bytes (1536K rounded down to a power of 2)"
done
ctl_ok reset --all
expect_eq "$(rings 2>/dev/null | wc -l)" 0 "the log rings after the reset of a log session"
touch "$T/lgo"
wait "$lr"
trace --log "$T/bpf.log.csv" --log-buffer 1536K -- "$PROGS/sites" 7 3 2
assert_eq "$TRACE_RC" 0 "sites 7 3 2 with --log: exit status"
logged=$D
expect_eq "$(rings 2>/dev/null | wc -l)" 0 "the log rings of session $SID, finished, its log drained"
ctl_ok reset "$SID"

# The rings of all possible CPUs may take half of max_mem, as the module's.
SYSTRACE_MAX_MEM=$((2 * ncpus * 1048576 - 2)) "$SYSTRACECTL" start --backend bpf --counters none --quiet \
	--log-buffer 1M -- /bin/true 2>"$T/cap.err"
expect_eq "$?" 4 "--log-buffer 1M, max_mem just under 2 x $ncpus MiB: exit status"
expect_contains "$(cat "$T/cap.err")" "log buffer times CPUs over half of max_mem" "--log-buffer over half of max_mem: message"
expect_not_contains "$(cat "$T/cap.err")" "kernel rejected" "--log-buffer over half of max_mem: a refusal of systracectl's"
expect_eq "$(SYSTRACE_BACKEND=bpf "$SYSTRACECTL" list | grep -c '^[0-9]')" 0 "--log-buffer over half of max_mem: no session left"
# (Small tables: the session's hash buckets count against max_mem too.)
SYSTRACE_MAX_PROCS=16 SYSTRACE_MAX_SITES=64 SYSTRACE_MAX_MEM=$((2 * ncpus * 1048576)) \
	"$SYSTRACECTL" start --backend bpf --counters none --quiet --log-buffer 1M -- /bin/true 2>"$T/cap2.err"
expect_eq "$?" 0 "--log-buffer 1M, max_mem 2 x $ncpus MiB: exit status ($(cat "$T/cap2.err"))"
ctl_ok reset --all
# log of a session that keeps no log says exactly that (it read "kernel
# rejected log: ... (No such file or directory)"), exit 4, and writes nothing.
"$SYSTRACECTL" start --backend bpf --counters none --no-save -- /bin/true 2>"$T/nolog.err"
nolog=$(bpf_sid "$T/nolog.err")
"$SYSTRACECTL" log "$nolog" -o "$T/nolog.csv" 2>"$T/nolog.err"
expect_eq "$?|$(cat "$T/nolog.err")|$(ls "$T"/nolog.csv* 2>/dev/null)" \
	"4|systracectl: session $nolog keeps no log: start it with --log FILE or --log-buffer SIZE|" \
	"log of a session without a log: exit 4, the reason, no file"
ctl_ok reset --all

pycheck test_bpf_backend.py "$full" "$T/sites5.json" "$T/procs3.json" "$PROGS/sites" "$T/kill.json" \
	"$(stat -L -c '%i %d %.9Y' "$PROGS/sites") $(stat -f -L -c %T "$PROGS/sites")" "$logged" "$T/bpf.log.csv" "$ncpus"
