#!/usr/bin/env bash
# The run store (docs/store.md), on the BPF backend, in a bpffs of its own:
#   same bytes  a session dumped live (--no-save) as CSV (processes, sites)
#               and JSON, then saved: the store's dumps are byte-identical,
#               the kernel holds no session, and the sqlite3 CLI reads
#               sites 7 3 2's exact calls (getppid 10, close 2 all EBADF)
#   names       a name given twice names its latest run; run ids differ
#   70 runs     70 starts in a row each exit 0 and are saved (sqlite3: 70
#               runs of a true process); then status lists no session,
#               mem_bytes 0, keep/ is empty, and of the tree's maps (bpftool,
#               through bpfq) none but the tree's own and the spares: under
#               2 MiB without the spares, which status counts apart
#               (spare_bytes, exactly their bytes_memlock) and which
#               SYSTRACE_BPF_SPARE_TTL=0 drops: then under 2 MiB in all
#   at once     two starts ending together are both saved
#   full        a store on a full tmpfs: start exits 6, says the session
#               stays in the kernel, and it does; with room, save saves it
#   kill -9     start killed while CMD runs: the next list saves the run
#   saving      start stopped (SYSTRACE_SAVE_STOP) with the run's rows
#               written but not committed, and with the run committed but
#               the session not yet deleted; killed by SIGKILL (exit 137) or
#               sent SIGTERM (saves on, exit 0): the next list shows it saved
#               and the kernel holds no session; one run, whose calls and
#               errors per syscall are strace -f -c's for sites 6 0 2
#   log, top    of a stored run: log converts the file the store names
#               (its getppid events: the sites' calls), top shows its
#               calls as the store has them
#   migration   a store of schema 1 is migrated to 3, its runs kept
#   sql         each SQL block of docs/store.md, its exact answer
#   export      the two stores exported as hosts m1 and m2 into one tree:
#               headers the dump's; Dask (a LocalCluster of 2 worker
#               processes, test_bpf_store.py) finds every run and the
#               per-syscall, per-site and per-path totals the sqlite3 CLI
#               gives
# tags: bpf
# timeout: 900
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_cmd sqlite3
need_prog sites
in_private_bpffs "$@"
on_exit mod_unload_quiet
unset SYSTRACE_NO_SAVE
export SYSTRACE_STORE=$T/runs.db
P=$PROGS/sites
q() { sqlite3 -batch "$SYSTRACE_STORE" "$1"; }
# The maps of the pin tree, as bpftool shows them (bpfq maps).
tree_maps() {
	"$TOP/selftests/bpfq" "$(bpftool -j map show pinned "$BPF_TREE/tasks" | csvq --json get id)" maps "$BPF_TREE" ||
		fail "bpfq maps"
}

# --- same bytes --------------------------------------------------------------------
ctl_ok start --backend bpf --counters none -q --no-save --name same -- "$P" 7 3 2
ctl_ok dump same -o "$T/live.csv"
ctl_ok dump same --sites -o "$T/live_sites.csv"
ctl_ok dump same --json -o "$T/live.json"
ctl_ok save same
assert_line "$CTL_ERR" "systracectl: session 1 saved as run 1 in $SYSTRACE_STORE" "save's note"
ctl_ok list
expect_eq "$(echo "$CTL_OUT" | awk 'NR > 1 { print $1, $2, $3 }')" "1 same saved" "list after save"
ctl_ok dump same -o "$T/st.csv"
ctl_ok dump same --sites -o "$T/st_sites.csv"
ctl_ok dump 1 --json -o "$T/st.json"
for f in .csv _sites.csv .json; do
	cmp "$T/live$f" "$T/st$f" || _lib_report "dump$f from the store differs from the live dump"
done
expect_eq "$(q "SELECT syscall, sum(calls), sum(errors) FROM sites WHERE run_id = 1 AND comm = 'sites' AND syscall IN ('getppid', 'close') AND (syscall = 'getppid' OR errors > 0) GROUP BY syscall ORDER BY syscall")" \
	"close|2|2
getppid|10|0" "sqlite3: sites 7 3 2's calls"
expect_eq "$(q "SELECT errnos FROM sites WHERE run_id = 1 AND syscall = 'close' AND comm = 'sites' AND errors > 0")" "EBADF(9)=2" "sqlite3: close's errnos"
expect_eq "$(q "SELECT s.syscalls = (SELECT sum(syscalls) FROM processes p WHERE p.run_id = 1) FROM sessions s WHERE run_id = 1")" 1 "sqlite3: the session's syscalls are its processes' sum"
expect_eq "$(q 'PRAGMA journal_mode')" wal "the store's journal mode"
expect_eq "$(stat -c %a "$SYSTRACE_STORE")" 600 "the store's mode"

# --- names ---------------------------------------------------------------------------
ctl_ok start --backend bpf --counters none -q --name same -- "$P" 1 0 0
ctl_ok start --backend bpf --counters none -q --name same -- "$P" 2 0 0
expect_eq "$(q "SELECT group_concat(run_id) FROM runs WHERE name = 'same'")" "1,2,3" "the runs named same"
ctl_ok dump same --sites
expect_eq "$(echo "$CTL_OUT" | awk -F, 'NR > 1 && $4 == "sites" && $8 == "getppid" { n += $12 } END { print n }')" 2 \
	"dump same: the latest run's getppid calls"

# --- log and top of a stored run ----------------------------------------------------
ctl_ok start --backend bpf --counters none -q --name logged --log "$T/l.csv" -- "$P" 3 0 1
expect_eq "$(q "SELECT log_path FROM runs WHERE name = 'logged'")" "$T/l.csv" "the stored run's log_path"
expect_eq "$(kernel_sessions)" "" "the sessions in the kernel after start --log"
ctl_ok log logged -o "$T/l2.jsonl"
expect_contains "$CTL_ERR" "from $T/l.csv to $T/l2.jsonl" "log of a stored run: what it converted"
expect_eq "$(grep -c '"syscall":"getppid"' "$T/l2.jsonl")" 3 "the converted log's getppid events"
expect_eq "$(sed -n 's/.*"event":"syscall",.*"syscall":"\([a-z0-9_]*\)".*/\1/p' "$T/l2.jsonl" | LC_ALL=C sort | uniq -c | awk '{ print $2 "|" $1 }')" \
	"$(q "SELECT syscall, sum(calls) FROM sites JOIN runs USING (run_id) WHERE name = 'logged' GROUP BY syscall ORDER BY syscall")" \
	"the converted log's syscall events against the stored run's calls, per syscall"
ctl_ok top logged
expect_line "$CTL_OUT" '^session [0-9]+ "logged": finished, 1 processes' "top of a stored run: its session"
expect_line "$CTL_OUT" " $(q "SELECT sum(calls) FROM sites JOIN runs USING (run_id) WHERE name = 'logged' AND syscall = 'getppid'") +3 +x64 +110 +getppid\$" \
	"top of a stored run: getppid's 3 calls, as the store has them"

# --- 70 runs -----------------------------------------------------------------------
for ((i = 0; i < 70; i++)); do
	"$SYSTRACECTL" start --backend bpf --counters none -q -- /bin/true 2>"$T/r.err" ||
		fail "start $i of 70: $(cat "$T/r.err")"
done
expect_eq "$(q 'SELECT count(*), max(run_id) FROM runs')" "74|74" "the runs after 70 more"
expect_eq "$(q "SELECT count(DISTINCT run_id) FROM processes WHERE comm = 'true'")" 70 "the 70 runs' true processes"
ctl_ok list --json
expect_eq "$(echo "$CTL_OUT" | tr -d ' \n' | grep -o '"sessions":\[\]')" '"sessions":[]' "list: no live session"
# What the kernel holds then: the tree's own maps, and the spares the last
# keeper made for the next start (status counts them apart, spare_bytes).
bpf_wait_keepers 10
expect_eq "$(kernel_sessions)" "" "status: the sessions in the kernel after 70 runs"
expect_eq "$(find "$BPF_TREE/keep" -mindepth 1 | wc -l)" 0 "keep/: no session's pin after 70 runs"
tree_maps >"$T/maps"
ctl_ok status --json
expect_eq "$(csvq --json get mem_bytes <<<"$CTL_OUT")" 0 "status mem_bytes after 70 runs"
expect_eq "$(csvq --json get spare_bytes <<<"$CTL_OUT")" "$(awk '$5 ~ /^spare-/ { n += $4 } END { print n + 0 }' "$T/maps")" \
	"status spare_bytes: bpftool's bytes_memlock of the spare pins"
log "the tree's maps after 70 runs (id type name bytes_memlock pin):
$(cat "$T/maps")"
# Every map but a spare is one of the tree's own (pinned at its root, or
# its programs' own: their scratch, and the read-only data (.rodata*) the
# compiler gave them): no hash map, ring or log of any session is left.
expect_eq "$(awk '$5 !~ /^spare-/ && $5 == "-" && $3 != "st_scratch" && $3 !~ /^\.rodata/' "$T/maps")" "" \
	"maps of no pin after 70 runs, but the programs' scratch"
expect_le "$(awk '$5 !~ /^spare-/ { n += $4 } END { print n }' "$T/maps")" $((2 << 20)) \
	"bytes_memlock of the tree's maps after 70 runs, the spares apart"
# The spares expire: with SYSTRACE_BPF_SPARE_TTL=0 the next command drops them.
SYSTRACE_BPF_SPARE_TTL=0 ctl_ok status --json
expect_eq "$(csvq --json get spare_bytes <<<"$CTL_OUT")" 0 "status spare_bytes with SYSTRACE_BPF_SPARE_TTL=0"
tree_maps >"$T/maps"
expect_eq "$(awk '$5 ~ /^spare-/ || $3 ~ /_s$/' "$T/maps")" "" "spare maps left with SYSTRACE_BPF_SPARE_TTL=0"
expect_le "$(awk '{ n += $4 } END { print n }' "$T/maps")" $((2 << 20)) \
	"bytes_memlock of all the tree's maps after 70 runs, the spares expired"

# --- at once -------------------------------------------------------------------------
"$SYSTRACECTL" start --backend bpf --counters none -q --name x -- "$P" 3 0 0 2>"$T/x.err" & x=$!
"$SYSTRACECTL" start --backend bpf --counters none -q --name y -- "$P" 4 0 0 2>"$T/y.err" & y=$!
wait $x || fail "start x: $(cat "$T/x.err")"
wait $y || fail "start y: $(cat "$T/y.err")"
expect_eq "$(q "SELECT name, sum(calls) FROM sites JOIN runs USING (run_id) WHERE name IN ('x', 'y') AND syscall = 'getppid' GROUP BY name ORDER BY name")" \
	"x|3
y|4" "two saves at once"

# --- full --------------------------------------------------------------------------
mkdir "$T/full"
mount -t tmpfs -o size=1m tmpfs "$T/full" || fail "mount a 1 MiB tmpfs"
on_exit "umount -l $T/full"
SYSTRACE_STORE=$T/full/runs.db "$SYSTRACECTL" save 2>/dev/null
dd if=/dev/zero of="$T/full/filler" bs=4k 2>/dev/null
"$SYSTRACECTL" --store "$T/full/runs.db" start --backend bpf --counters none -q --name full -- "$P" 5 0 0 2>"$T/full.err"
expect_eq "$?" 6 "start onto a full store: exit status"
grep -q "stays in the kernel, not saved: nothing is lost" "$T/full.err" ||
	_lib_report "start onto a full store: no clear error: $(cat "$T/full.err")"
ctl_ok list
expect_eq "$(echo "$CTL_OUT" | awk '$2 == "full" { print $3 }')" finished "the full store's session, in the kernel"
rm "$T/full/filler"
ctl_ok --store "$T/full/runs.db" save full
expect_eq "$(sqlite3 "$T/full/runs.db" "SELECT sum(calls) FROM sites JOIN runs USING (run_id) WHERE name = 'full' AND syscall = 'getppid'")" 5 \
	"the session saved once there was room"

# --- kill -9 -----------------------------------------------------------------------
"$SYSTRACECTL" start --backend bpf --counters none -q --name killed -- "$P" 6 0 0 "$T/go" 2>"$T/k.err" & k=$!
for ((i = 0; i < 200; i++)); do
	pgrep -f "^$P 6 0 0" >/dev/null && break
	sleep 0.05
done
kill -9 $k
wait $k 2>/dev/null
touch "$T/go"
for ((i = 0; i < 200; i++)); do
	pgrep -f "^$P 6 0 0" >/dev/null || break
	sleep 0.05
done
# The next command to see the session finished (the tracer notes the end
# a moment after the last task) saves it.
for ((i = 0; i < 100; i++)); do
	ctl_ok list
	[ "$(echo "$CTL_OUT" | awk '$2 == "killed" { print $3 }')" = saved ] && break
	sleep 0.1
done
expect_eq "$(echo "$CTL_OUT" | awk '$2 == "killed" { print $3 }')" saved "the killed start's session, after list"
expect_eq "$(q "SELECT sum(calls) FROM sites JOIN runs USING (run_id) WHERE name = 'killed' AND syscall = 'getppid'")" 6 \
	"the killed start's run"

# --- kills while saving ------------------------------------------------------------
# start stopped by SYSTRACE_SAVE_STOP at a point of its save: "commit" (the
# run's rows written, not committed) or "free" (committed, the session not
# yet deleted from the kernel); then killed by SIGKILL, or sent SIGTERM and
# let go on. The next list saves or frees what it left: one run, whole.
# sites 6 0 2's calls, per syscall, as strace -f -c counts them (but for
# execve, before the trace begins, and exit_group, which never returns).
strace -f -qq -c -U name,calls,errors -o "$T/strace.txt" "$P" 6 0 2 >/dev/null || fail "strace -f -c $P 6 0 2: exit $?"
awk 'NR > 2 && $1 !~ /^(-+|total|execve)$/ { print $1 "|" $2 "|" ($3 == "" ? 0 : $3) }' "$T/strace.txt" | LC_ALL=C sort >"$T/strace.want"
expect_eq "$(grep -c '^getppid|6|0$' "$T/strace.want")" 1 "strace -f -c: sites 6 0 2's getppid calls"
for sig in KILL TERM; do
	for point in commit free; do
		n=$point$sig
		SYSTRACE_SAVE_STOP=$point "$SYSTRACECTL" start --backend bpf --counters none -q --name "$n" -- "$P" 6 0 2 2>"$T/v.err" &
		k=$!
		bpf_stopped $k || fail "$n: start never stopped at $point: $(cat "$T/v.err")"
		expect_match "$(kernel_sessions)" "^[0-9]+:$n:finished\$" "$n: the session, finished in the kernel, at the stop"
		expect_eq "$(q "SELECT count(*) FROM runs WHERE name = '$n'")" "$([ $point = free ] && echo 1 || echo 0)" \
			"$n: its runs that a reader sees at the stop"
		kill -s $sig $k
		[ $sig = KILL ] || kill -s CONT $k
		wait $k 2>/dev/null
		expect_eq "$?" "$([ $sig = KILL ] && echo 137 || echo 0)" "$n: start's exit status"
		ctl_ok list
		expect_eq "$(awk -v n="$n" '$2 == n { print $3 }' <<<"$CTL_OUT")" saved "$n: its row in list"
		expect_eq "$(kernel_sessions)" "" "$n: the sessions in the kernel after list"
		expect_eq "$(q "SELECT count(*) FROM runs WHERE name = '$n'")" 1 "$n: its runs in the store"
		expect_eq "$(q "SELECT syscall, sum(calls), sum(errors) FROM sites JOIN runs USING (run_id)
			WHERE name = '$n' AND syscall != 'exit_group' GROUP BY syscall ORDER BY syscall")" \
			"$(cat "$T/strace.want")" "$n: the stored run's calls and errors per syscall against strace -f -c"
	done
done

# --- migration ---------------------------------------------------------------------
cp "$SYSTRACE_STORE" "$T/v1.db"
sqlite3 "$T/v1.db" "DROP TABLE paths; ALTER TABLE runs DROP COLUMN paths_mode;
	ALTER TABLE runs DROP COLUMN dropped_paths; ALTER TABLE runs DROP COLUMN log_path;
	ALTER TABLE runs DROP COLUMN bytes; DROP TABLE pending; PRAGMA user_version = 1;" ||
	fail "making a schema 1 store"
ctl_ok --store "$T/v1.db" dump 1 --json -o "$T/v1.json"
cmp "$T/live.json" "$T/v1.json" || _lib_report "run 1 of the migrated store differs"
expect_eq "$(sqlite3 "$T/v1.db" 'PRAGMA user_version')" 3 "the migrated store's schema"
expect_eq "$(sqlite3 "$T/v1.db" "SELECT count(*) FROM pragma_table_info('runs') WHERE name IN ('log_path', 'bytes',
	'paths_mode', 'dropped_paths')")" 4 "the migrated runs table's new columns"
expect_eq "$(sqlite3 "$T/v1.db" "SELECT count(*) FROM paths")" 0 "the migrated store's paths table, empty"

# --- the five questions of docs/store.md ------------------------------------------
# Each ```sql block of docs/store.md, run as it is by the sqlite3 CLI.
export SYSTRACE_STORE=$T/sql.db
sql() { # N: the answer of docs/store.md's Nth SQL block
	awk -v n="$1" '/^```sql$/ { k++; on = k == n; next } /^```$/ { on = 0 } on' "$TOP/docs/store.md" >"$T/q$1.sql"
	[ -s "$T/q$1.sql" ] || fail "docs/store.md has no SQL block $1"
	sqlite3 -batch "$SYSTRACE_STORE" <"$T/q$1.sql" || fail "docs/store.md's SQL block $1 failed"
}
for args in "7 3 2" "4 1 2" "1 6 0"; do
	# shellcheck disable=SC2086 # the three counts
	ctl_ok start --backend bpf --counters none -q --name q -- "$P" $args
done
ctl_ok start --backend bpf --counters none -q --name slow -- sh -c 'sleep 0.4 & sleep 0.2; wait'
mapfile -t r < <(q "SELECT run_id FROM runs WHERE name = 'q' ORDER BY run_id")
a1=$(sql 1)
expect_eq "$(cut -d'|' -f3- <<<"$a1")" "getppid|7
getppid|5
close|2" "docs/store.md question 1: the top sites of the last 2 runs of q"
expect_eq "$(cut -d'|' -f1 <<<"$a1" | sort -u)" "$P" "question 1: the sites' file"
expect_eq "$(cut -d'|' -f2 <<<"$a1" | sort -u | wc -l)" 3 "question 1: three offsets"
expect_eq "$(sql 2)" "close|-2
getppid|2" "docs/store.md question 2: what changed between the last 2 runs of q"
expect_eq "$(sql 3)" "${r[0]}|close|EBADF(9)=2|2
${r[1]}|close|EBADF(9)=2|2" "docs/store.md question 3: failing calls by errno over q's runs"
a4=$(sql 4)
expect_eq "$(cut -d'|' -f2 <<<"$a4" | paste -sd' ')" "sh sleep sleep" "docs/store.md question 4: the slowest processes of slow"
ctl_ok dump slow --sort wall_ns --top 3
expect_eq "$a4" "$(awk -F, 'NR > 1 { print $5 "|" $8 "|" $12 }' <<<"$CTL_OUT")" \
	"question 4 against dump slow --sort wall_ns --top 3"
expect_eq "$(sql 5 | cut -d'|' -f1)" "$(q 'SELECT run_id FROM sites GROUP BY run_id ORDER BY sum(total_ns) DESC, run_id LIMIT 5')" \
	"docs/store.md question 5: runs by syscall time, against their sites' total_ns"
expect_eq "$(sql 5 | wc -l)" 4 "question 5: the 4 runs"

# --- export, read by Dask -----------------------------------------------------------
[ -d /usr/lib/python3/dist-packages/distributed ] || missing "python3-distributed (Dask's scheduler)"
X=$T/export
for h in m1:runs m2:sql; do
	# shellcheck disable=SC2016 # $1 to $4 are sh -c's own arguments
	unshare -u sh -c 'hostname "$1" && exec "$2" --store "$3" export --dir "$4"' sh \
		"${h%%:*}" "$SYSTRACECTL" "$T/${h#*:}.db" "$X" 2>"$T/export.err" ||
		fail "export of $h: $(cat "$T/export.err")"
done
run=$(q 'SELECT max(run_id) FROM runs')
expect_eq "$(zcat "$X/sites/host=m2/run=$run/part-0.csv.gz" | head -n 1)" \
	"$("$SYSTRACECTL" dump "$run" --sites --no-symbols 2>/dev/null | head -n 1)" "the export's sites header"
expect_eq "$(zcat "$X/processes/host=m2/run=$run/part-0.csv.gz" | head -n 1)" \
	"$("$SYSTRACECTL" dump "$run" 2>/dev/null | head -n 1)" "the export's processes header"
both() { # TABLE COLUMNS REST: SELECT over "t" (the two stores' TABLE), after AS t
	sqlite3 -batch "$T/runs.db" "ATTACH '$T/sql.db' AS b;
		SELECT $2 FROM (SELECT * FROM main.$1 UNION ALL SELECT * FROM b.$1) AS t $3"
}
{ sqlite3 -batch "$T/runs.db" "SELECT 'm1|' || run_id FROM runs"
  sqlite3 -batch "$T/sql.db" "SELECT 'm2|' || run_id FROM runs"; } >"$T/want_runs"
both sites "syscall, sum(calls), sum(errors)" "GROUP BY syscall ORDER BY syscall" >"$T/want_syscalls"
both sites "coalesce(path, ''), coalesce(offset, ''), syscall, sum(calls)" \
	"GROUP BY 1, 2, 3 ORDER BY 1, 2, 3" >"$T/want_sites"
both paths "kind, coalesce(path, ''), syscall, coalesce(errno_name, ''), sum(count)" \
	"GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4" >"$T/want_paths"
[ -s "$T/want_paths" ] || fail "the two stores hold no path of a file call (the loader's probes)"
# Debian's python3, whose packages hold Dask (not one of a python3 ahead in PATH).
"$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)" "$TOP/selftests/test_bpf_store.py" "$X" "$T/want_runs" "$T/want_syscalls" "$T/want_sites" "$T/want_paths" ||
	_lib_report "Dask's totals of the export differ from the stores' SQL"
