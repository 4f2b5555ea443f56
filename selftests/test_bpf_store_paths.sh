#!/usr/bin/env bash
# The paths of file calls in the run store (docs/store.md's paths table,
# issue 35), on the BPF backend, in a bpffs of its own:
#   errors    progs/pathprobe's known calls (paths_lib.sh) traced --no-save,
#             then saved: the sqlite3 CLI reads exactly openat ENOENT
#             /nonexistent/a 3 and /nonexistent/b 5, access ENOENT
#             /nonexistent/c 4, openat ENOTDIR /etc/passwd/x 2, newfstatat
#             ENOENT long 1, openat EFAULT unreadable 1, each row at a site
#             of the sites table and of pathprobe's process row; the run's
#             paths_mode and dropped_paths; the whole table (the loader's
#             probes too) equal to `strace -f -e trace=%file`'s failed calls;
#             report paths of the stored run (text, CSV, JSON, --errors,
#             --syscall, --top) byte for byte the live session's
#   all, off  the same with --paths all (the successes too: openat
#             /etc/passwd ok 6; strace's whole table) and --paths off (no
#             row, paths_mode off)
#   export    paths/host=H/run=R/part-0.csv.gz: its header the paths
#             table's columns, its rows the table's (python3's gzip and
#             csv, test_bpf_store_paths.py)
#   schema 2  a store of schema 2 (no paths table, runs without its two
#             columns) opens, says it migrated, is at schema 3 with its runs
#             kept (dump --json the live bytes; report paths says none
#             counted), and a run saved then keeps its paths
#   schema 4  a newer store: list refuses it, saying why (exit 6), and
#             leaves it as it is
# tags: bpf
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/paths_lib.sh"
need_bpf
need_cmd sqlite3
need_cmd strace
need_cmd python3
need_prog pathprobe
in_private_bpffs "$@"
on_exit mod_unload_quiet
export SYSTRACE_STORE=$T/runs.db SYSTRACE_NO_SAVE=1
P=$PROGS/pathprobe
q() { sqlite3 -batch "$SYSTRACE_STORE" "$1"; }
# The path as report paths shows it: the path read, or why none.
SHOWN="CASE kind WHEN 'long' THEN '<longer than 255 bytes>' WHEN 'unreadable' THEN '<unreadable>' ELSE path END"
# "COUNT<TAB>PATH<TAB>SYSCALL<TAB>ERRNO_NAME" lines of run NAME's paths table, sorted (strace_rows' form).
table_rows() {
	q "SELECT sum(count) || char(9) || $SHOWN || char(9) || syscall || char(9) || errno_name
		FROM paths JOIN runs USING (run_id) WHERE name = '$1' GROUP BY $SHOWN, syscall, errno_name" | sort
}
# report paths of SESSION into DIR, in every form the test compares.
reports() { # SESSION DIR
	mkdir -p "$2"
	ctl_ok report paths "$1" -o "$2/paths.txt"
	ctl_ok report paths "$1" --csv -o "$2/paths.csv"
	ctl_ok report paths "$1" --json -o "$2/paths.json"
	ctl_ok report paths "$1" --csv --errors --top 3 -o "$2/top.csv"
	ctl_ok report paths "$1" --json --syscall access -o "$2/access.json"
}
# Run NAME traced with OPTS, reported live, saved, reported from the store: the same bytes.
run_saved() { # NAME OPTS...
	local n=$1 f
	shift
	ctl_ok start --backend bpf --counters none -q --name "$n" "$@" -- "$P" ok
	reports "$n" "$T/$n.live"
	ctl_ok dump "$n" --json -o "$T/$n.live/dump.json"
	ctl_ok save "$n"
	expect_eq "$(kernel_sessions)" "" "$n: no session in the kernel after save"
	reports "$n" "$T/$n.st"
	for f in paths.txt paths.csv paths.json top.csv access.json; do
		cmp "$T/$n.live/$f" "$T/$n.st/$f" ||
			_lib_report "$n: report paths ($f) of the stored run differs from the live one: $(diff "$T/$n.live/$f" "$T/$n.st/$f" | head -20)"
	done
}

strace -f -qq -s 4096 -e trace=%file -o "$T/strace.out" "$P" ok >/dev/null 2>&1 ||
	fail "strace -f -e trace=%file $P ok: exit $?"

# --- errors (the default) ------------------------------------------------------------
run_saved pe
expect_eq "$(q "SELECT syscall, errno_name, $SHOWN, sum(count), count(*) FROM paths JOIN runs USING (run_id)
	WHERE name = 'pe' AND (path LIKE '/nonexistent/%' OR path = '/etc/passwd/x' OR kind != 'read')
	GROUP BY 1, 2, 3 ORDER BY 1, 2, 3")" \
	"access|ENOENT|/nonexistent/c|4|1
newfstatat|ENOENT|<longer than 255 bytes>|1|1
openat|EFAULT|<unreadable>|1|1
openat|ENOENT|/nonexistent/a|3|1
openat|ENOENT|/nonexistent/b|5|1
openat|ENOTDIR|/etc/passwd/x|2|1" "errors: sqlite3: pathprobe's failed calls, each one row"
expect_eq "$(q "SELECT paths_mode, dropped_paths FROM runs WHERE name = 'pe'")" "errors|0" "errors: the run's paths_mode and dropped_paths"
expect_eq "$(q "SELECT count(*) FROM paths WHERE errno = 0 OR errno_name = 'ok'")" 0 "errors: no row of a success"
expect_eq "$(q "SELECT DISTINCT r.comm FROM paths p JOIN processes r ON r.run_id = p.run_id AND r.id = p.proc_id
	WHERE path LIKE '/nonexistent/%'")" pathprobe "errors: the rows' process row"
expect_eq "$(q "SELECT count(*) FROM paths p WHERE NOT EXISTS (SELECT 1 FROM sites s WHERE s.run_id = p.run_id
	AND s.proc_id = p.proc_id AND s.addr = p.addr AND s.abi = p.abi AND s.nr = p.nr AND s.errors >= p.count)")" 0 \
	"errors: every path row at a site row of its failures"
expect_eq "$(table_rows pe)" "$(strace_rows "$T/strace.out" | awk -F'\t' '$4 != "ok"')" \
	"errors: the stored table equals strace's failed %file calls"
expect_contains "$(cat "$T/pe.st/paths.txt")" "dropped: 0 calls" "errors: the stored run's drop count, shown"

# --- all, off ----------------------------------------------------------------------
run_saved pa --paths all
expect_eq "$(q "SELECT sum(count) FROM paths JOIN runs USING (run_id) WHERE name = 'pa' AND path = '/etc/passwd'
	AND syscall = 'openat' AND errno = 0 AND errno_name = 'ok'")" 6 "all: sqlite3: openat /etc/passwd ok"
expect_eq "$(q "SELECT paths_mode FROM runs WHERE name = 'pa'")" all "all: the run's paths_mode"
expect_eq "$(table_rows pa)" "$(strace_rows "$T/strace.out")" "all: the stored table equals strace's %file calls"
run_saved po --paths off
expect_eq "$(q "SELECT paths_mode, (SELECT count(*) FROM paths WHERE paths.run_id = runs.run_id) FROM runs
	WHERE name = 'po'")" "off|0" "off: the run's paths_mode, no row"
expect_contains "$(cat "$T/po.st/paths.txt")" "paths: off (start --paths off)" "off: the stored run's note"

# --- export ------------------------------------------------------------------------
ctl_ok export --dir "$T/x"
for n in pe pa po; do
	run=$(q "SELECT run_id FROM runs WHERE name = '$n'")
	f=$(echo "$T"/x/paths/host=*/run="$run"/part-0.csv.gz)
	[ -f "$f" ] || fail "export: no $T/x/paths/host=*/run=$run/part-0.csv.gz"
	expect_eq "$(zcat "$f" | head -n 1)" "$(q "SELECT group_concat(name, ',') FROM pragma_table_info('paths') WHERE name != 'run_id'")" \
		"export $n: the paths header, the table's columns"
	python3 "$TOP/selftests/test_bpf_store_paths.py" "$f" >"$T/x.$n" || fail "test_bpf_store_paths.py $f: exit $?"
	expect_eq "$(sort "$T/x.$n")" "$(q "SELECT proc_id, addr, syscall, errno, errno_name, kind, coalesce(path, ''), count FROM paths
		WHERE run_id = $run" | sort)" "export $n: the paths rows, the table's"
done
expect_eq "$(awk -F'|' '$7 ~ /^\/nonexistent\// { n += $8 } END { print n }' "$T/x.pe")" 12 \
	"export: pe's /nonexistent/ calls (3 + 5 + 4)"

# --- schema 2 ----------------------------------------------------------------------
cp "$SYSTRACE_STORE" "$T/v2.db"
sqlite3 "$T/v2.db" "DROP TABLE paths; ALTER TABLE runs DROP COLUMN paths_mode;
	ALTER TABLE runs DROP COLUMN dropped_paths; PRAGMA user_version = 2;" || fail "making a schema 2 store"
ctl_ok --store "$T/v2.db" dump pe --json -o "$T/v2.json"
expect_contains "$CTL_ERR" "migrated the store $T/v2.db from schema 2 to 3, its runs kept" "schema 2: the note"
cmp "$T/pe.live/dump.json" "$T/v2.json" || _lib_report "schema 2: run pe of the migrated store differs from the live dump"
expect_eq "$(sqlite3 "$T/v2.db" 'PRAGMA user_version')" 3 "schema 2: the migrated store's schema"
expect_eq "$(sqlite3 "$T/v2.db" "SELECT count(*) FROM runs")" 3 "schema 2: the migrated store's runs"
ctl_ok --store "$T/v2.db" report paths pe
expect_contains "$CTL_OUT" "paths: not counted" "schema 2: report paths of a run saved before the paths"
expect_eq "$CTL_ERR" "" "schema 2: migrated once, then opened with no note"
ctl_ok --store "$T/v2.db" start --backend bpf --counters none -q --name p2 -- "$P" ok
ctl_ok --store "$T/v2.db" save p2
expect_eq "$(sqlite3 "$T/v2.db" "SELECT sum(count) FROM paths JOIN runs USING (run_id) WHERE name = 'p2' AND path LIKE '/nonexistent/%'")" \
	12 "schema 2: a run saved after the migration keeps its paths"
log "pe's stored paths (count path syscall errno): $(table_rows pe | tr '\t\n' ' ;')"
log "pa's stored paths: $(table_rows pa | wc -l) rows, $(q "SELECT sum(count) FROM paths JOIN runs USING (run_id) WHERE name = 'pa'") calls"

# --- a newer schema ----------------------------------------------------------------
# Refused with the reason, the file left as it is (list once crashed there).
cp "$T/v2.db" "$T/v4.db"
sqlite3 "$T/v4.db" "PRAGMA user_version = 4" || fail "making a schema 4 store"
ctl --store "$T/v4.db" list
expect_eq "$CTL_RC" 6 "schema 4: list's exit status"
expect_contains "$CTL_ERR" "$T/v4.db has schema 4, newer than this systracectl's 3" "schema 4: list says why"
expect_eq "$(sqlite3 "$T/v4.db" "SELECT count(*) FROM runs")" 4 "schema 4: the store's runs, left as they were"
