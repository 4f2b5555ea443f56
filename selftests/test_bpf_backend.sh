#!/usr/bin/env bash
# The BPF backend's own behaviour: the session says "bpf" and lives in
# /sys/fs/bpf/systrace/ID until reset removes it; max_sites and max_procs
# drop exactly the site rows and processes past the limit, and count them;
# -EPERM (-1) counts as an error; an unprivileged caller gets the
# backend's reason and exit status 3; a log session pins a ring per
# possible CPU, sized as the module's log, and its memory counts.
# tags: bpf
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
[ "${SYSTRACE_BACKEND:-kmod}" = bpf ] || skip "a test of the BPF backend: selftests/run bpf bpf_backend"
need_root
need_prog sites
need_prog forks
on_exit mod_unload_quiet
mod_load

pins="exec exit files fork info meta procs sites sys_enter sys_exit tasks"
trace -- "$PROGS/sites" 7 3 2
assert_eq "$TRACE_RC" 0 "sites 7 3 2: exit status"
full=$D
assert_eq "$(cd /sys/fs/bpf/systrace/"$SID" && echo *)" "$pins" "what session $SID pins"
ctl_ok list
assert_line "$CTL_OUT" "^$SID " "list shows session $SID"
ctl_ok status --json
assert_eq "$(csvq --json get sessions_live <<<"$CTL_OUT")" 1 "status: sessions_live"
ctl_ok reset "$SID"
assert_eq "$(ls /sys/fs/bpf/systrace)" "" "what /sys/fs/bpf/systrace holds after the reset"
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
need_cmd setpriv
"$SYSTRACECTL" start --backend bpf --counters none --quiet -- \
	setpriv --reuid=65534 --regid=65534 --clear-groups kill -0 1 2>"$T/kill.err"
assert_eq "$?" 1 "nobody's kill -0 1: exit status"
ctl_ok dump --json --no-symbols -o "$T/kill.json"
ctl_ok reset --all

as_nobody "$SYSTRACECTL" start --backend bpf -- /bin/true
assert_eq "$CTL_RC" 3 "nobody: start --backend bpf: exit status"
assert_contains "$CTL_ERR" "the BPF backend needs root, or CAP_BPF and CAP_PERFMON" "nobody: message"
as_nobody "$SYSTRACECTL" list
assert_eq "$CTL_RC" 3 "nobody: list: exit status"

# The temporal log: a ring buffer per possible CPU, pinned as log0, log1...
# beside the maps, of the size asked per CPU rounded down to a power of 2;
# reset removes them with the rest. (test_trace_log checks the events.)
ncpus=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1 } } END { print c }' \
	/sys/devices/system/cpu/possible)
need_cmd bpftool
trace --log "$T/bpf.log.csv" --log-buffer 1536K -- "$PROGS/sites" 7 3 2
assert_eq "$TRACE_RC" 0 "sites 7 3 2 with --log: exit status"
logged=$D
assert_eq "$(cd /sys/fs/bpf/systrace/"$SID" && printf '%s\n' log* | sort -V | tr '\n' ' ')" \
	"$(for ((i = 0; i < ncpus; i++)); do printf 'log%d ' $i; done)" "the log rings session $SID pins ($ncpus possible CPUs)"
for ((i = 0; i < ncpus; i++)); do
	expect_eq "$(bpftool -j map show pinned /sys/fs/bpf/systrace/"$SID"/log$i | csvq --json get max_entries)" 1048576 \
		"log$i: bytes (1536K rounded down to a power of 2)"
done
ctl_ok reset "$SID"
assert_eq "$(ls /sys/fs/bpf/systrace)" "" "what /sys/fs/bpf/systrace holds after the reset of a log session"

# The rings of all possible CPUs may take half of max_mem, as the module's.
SYSTRACE_MAX_MEM=$((2 * ncpus * 1048576 - 2)) "$SYSTRACECTL" start --backend bpf --counters none --quiet \
	--log-buffer 1M -- /bin/true 2>"$T/cap.err"
expect_eq "$?" 4 "--log-buffer 1M, max_mem just under 2 x $ncpus MiB: exit status"
expect_contains "$(cat "$T/cap.err")" "log buffer times CPUs over half of max_mem" "--log-buffer over half of max_mem: message"
expect_eq "$(ls /sys/fs/bpf/systrace)" "" "--log-buffer over half of max_mem: no session left"
SYSTRACE_MAX_MEM=$((2 * ncpus * 1048576)) "$SYSTRACECTL" start --backend bpf --counters none --quiet \
	--log-buffer 1M -- /bin/true 2>"$T/cap2.err"
expect_eq "$?" 0 "--log-buffer 1M, max_mem 2 x $ncpus MiB: exit status ($(cat "$T/cap2.err"))"
ctl_ok reset --all

pycheck test_bpf_backend.py "$full" "$T/sites5.json" "$T/procs3.json" "$PROGS/sites" "$T/kill.json" \
	"$(stat -L -c '%i %d %.9Y' "$PROGS/sites") $(stat -f -L -c %T "$PROGS/sites")" "$logged" "$T/bpf.log.csv" "$ncpus"
