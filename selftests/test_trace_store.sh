#!/usr/bin/env bash
# The run store (docs/store.md) on the module (the BPF backend's: bpf_store):
#   names     a name given twice: two runs, the name dumps the latest (sites
#             2 0 0: 2 getppid calls), and top shows it; the module holds
#             no session after
#   rmmod     sites 7 3 2 dumped live (--no-save: CSV, sites, JSON), saved,
#             the module unloaded: dump, from the store alone, gives the same
#             bytes; the sqlite3 CLI reads its calls (getppid 10, close 2 all
#             EBADF)
#   log       start --log: `log RUN -o` of the stored run converts the file
#             the store names (its getppid events: 3, the sites' calls); the
#             file removed, it says so and exits 6; a run saved without a log
#             says that, exit 4
#   full      a store on a full tmpfs: start exits 6, says the session stays
#             in the kernel, and status shows it there; with room, save
#             saves it and the module holds no session
#   kills     start blocked on the store's write lock (BEGIN IMMEDIATE,
#             held by selftests/store_lock.py) while it sets up and while it
#             saves, killed by SIGKILL or sent SIGTERM: once the lock is
#             given back, `list` leaves no session in the module; at set-up
#             killed, no run (no session made); SIGTERM waits until the
#             session is whole, then ends CMD before its exec: one run of
#             no process, start dies of SIGTERM; while saving the run is saved
#             exactly once (sites 6 0 0: 6 getppid)
#   70 runs   max_sessions 16: 70 starts in a row exit 0 and make 70 runs;
#             status: no session, sessions_live 0, every one in the store
# tags: trace full
# timeout: 900
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_cmd sqlite3
need_cmd python3
need_prog sites
[ "${SYSTRACE_BACKEND:-kmod}" = kmod ] || skip "module rules (the BPF backend has its own test: bpf_store)"
on_exit mod_unload_quiet
mod_load
unset SYSTRACE_NO_SAVE
export SYSTRACE_STORE=$T/runs.db
P=$PROGS/sites
q() { sqlite3 -batch "$SYSTRACE_STORE" "$1"; }
live_count() {
	"$SYSTRACECTL" status --json >"$T/status.json" || fail "status --json"
	csvq -f "$T/status.json" --json get sessions_live
}

# --- names ---------------------------------------------------------------------------
ctl_ok start --counters none -q --name twice -- "$P" 1 0 0
ctl_ok start --counters none -q --name twice -- "$P" 2 0 0
expect_eq "$(q "SELECT group_concat(run_id) FROM runs WHERE name = 'twice'")" "1,2" "the runs named twice"
ctl_ok dump twice --sites
expect_eq "$(echo "$CTL_OUT" | awk -F, 'NR > 1 && $4 == "sites" && $8 == "getppid" { n += $12 } END { print n }')" 2 \
	"dump twice: the latest run's getppid calls"
expect_eq "$(kernel_sessions)" "" "the module's sessions after two saved runs"
ctl_ok top twice
expect_line "$CTL_OUT" '^session 2 "twice": finished, 1 processes' "top of a stored run: its session"
expect_line "$CTL_OUT" " $(q "SELECT sum(calls) FROM sites WHERE run_id = 2 AND syscall = 'getppid'") +2 +x64 +110 +getppid\$" \
	"top of a stored run: getppid's 2 calls, as the store has them"

# --- log of a stored run -------------------------------------------------------------
ctl_ok start --counters none -q --name logged --log "$T/l.csv" -- "$P" 3 0 0
expect_eq "$(q "SELECT log_path FROM runs WHERE name = 'logged'")" "$T/l.csv" "the stored run's log_path"
ctl_ok log logged -o "$T/l2.jsonl"
expect_contains "$CTL_ERR" "from $T/l.csv to $T/l2.jsonl" "log of a stored run: what it converted"
expect_eq "$(grep -c '"syscall":"getppid"' "$T/l2.jsonl")" \
	"$(q "SELECT sum(calls) FROM sites JOIN runs USING (run_id) WHERE name = 'logged' AND syscall = 'getppid'")" \
	"the converted log's getppid events against the store's calls"
expect_eq "$(grep -c '"syscall":"getppid"' "$T/l2.jsonl")" 3 "the converted log's getppid events"
rm "$T/l.csv"
ctl log logged -o "$T/l3.csv"
expect_eq "$CTL_RC" 6 "log of a stored run whose file is gone: exit status"
expect_contains "$CTL_ERR" "log $T/l.csv cannot be read" "log of a stored run whose file is gone: the message"
[ ! -e "$T/l3.csv" ] || _lib_report "log of a gone file wrote $T/l3.csv"
ctl log twice -o "$T/l4.csv"
expect_eq "$CTL_RC" 4 "log of a run saved without a log: exit status"
expect_contains "$CTL_ERR" "was saved without a temporal log" "log of a run saved without a log: the message"

# --- full ----------------------------------------------------------------------------
mkdir "$T/full"
mount -t tmpfs -o size=1m tmpfs "$T/full" || fail "mount a 1 MiB tmpfs"
on_exit "umount -l $T/full"
F=$T/full/runs.db
SYSTRACE_STORE=$F "$SYSTRACECTL" save 2>/dev/null
[ -s "$F" ] || fail "save made no store at $F"
dd if=/dev/zero of="$T/full/filler" bs=4k 2>/dev/null
"$SYSTRACECTL" --store "$F" start --counters none -q --name full -- "$P" 5 0 0 2>"$T/full.err"
expect_eq "$?" 6 "start onto a full store: exit status"
grep -q "stays in the kernel, not saved: nothing is lost" "$T/full.err" ||
	_lib_report "start onto a full store: no clear error: $(cat "$T/full.err")"
expect_match "$(kernel_sessions)" '^[0-9]+:full:finished$' "the module's session after a full store"
rm "$T/full/filler"
ctl_ok --store "$F" save full
expect_eq "$(sqlite3 "$F" "SELECT count(*), sum(calls) FROM sites JOIN runs USING (run_id) WHERE name = 'full' AND syscall = 'getppid'")" "1|5" \
	"the session saved once there was room"
expect_eq "$(kernel_sessions)" "" "the module's sessions after the save"

# --- kills at set-up and while saving -------------------------------------------------
# lock_store: store_lock.py holds the store's write lock until $T/unlock exists.
lock_store() {
	rm -f "$T/locked" "$T/unlock"
	"$TOP/selftests/store_lock.py" "$SYSTRACE_STORE" "$T/locked" "$T/unlock" &
	LOCKER=$!
	for ((i = 0; i < 200; i++)); do
		[ -e "$T/locked" ] && return 0
		sleep 0.05
	done
	fail "python3 did not take the store's lock"
}
unlock_store() { touch "$T/unlock"; wait "$LOCKER"; }
# settled NAME: list (which saves what it should) until the module holds no session.
settled() { # NAME
	for ((i = 0; i < 20; i++)); do
		ctl_ok list
		[ -z "$(kernel_sessions)" ] && return 0
		sleep 0.1
	done
	_lib_report "$1: the module still holds $(kernel_sessions)"
}
# in_store_wait PID: PID holds the store open and sleeps in nanosleep (230,
# clock_nanosleep, or 35): SQLite's busy handler, waiting for the lock.
in_store_wait() {
	local nr
	for ((i = 0; i < 200; i++)); do
		nr=$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)
		if { [ "$nr" = 230 ] || [ "$nr" = 35 ]; } &&
			[ "$(readlink "/proc/$1/fd/"* 2>/dev/null | grep -c "^$SYSTRACE_STORE\$")" -gt 0 ]; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}
for sig in KILL TERM; do
	# At set-up: the lock held before start makes its session.
	lock_store
	"$SYSTRACECTL" start --counters none -q --name "setup$sig" -- "$P" 6 0 0 2>"$T/s.err" & k=$!
	in_store_wait $k || _lib_report "setup$sig: start never waited for the store"
	kill -s $sig $k
	unlock_store
	wait $k 2>/dev/null
	rc=$?
	log "setup$sig: start's exit status $rc, stderr: $(cat "$T/s.err")"
	settled "setup$sig"
	# Killed, start made no session, so no run. SIGTERM waits, blocked,
	# until the session is whole (issue 34, point 1), then goes to CMD,
	# which dies before its exec: the session ends with no process, and
	# start saves that run and dies of CMD's signal.
	if [ $sig = TERM ]; then
		expect_eq "$(q "SELECT count(*) FROM runs WHERE name = 'setup$sig'")" 1 "setup$sig: runs"
		expect_eq "$(q "SELECT count(*) FROM processes JOIN runs USING (run_id) WHERE runs.name = 'setup$sig'")" 0 \
			"setup$sig: the run's processes"
		expect_eq "$rc" 143 "setup$sig: start's exit status (CMD's SIGTERM)"
	else
		expect_eq "$(q "SELECT count(*) FROM runs WHERE name = 'setup$sig'")" 0 "setup$sig: no run"
	fi

	# While saving: CMD has run, start blocks on the lock to save.
	"$SYSTRACECTL" start --counters none -q --name "saving$sig" -- "$P" 6 0 0 "$T/go$sig" 2>"$T/v.err" & k=$!
	for ((i = 0; i < 200; i++)); do
		pgrep -f "^$P 6 0 0 $T/go$sig" >/dev/null && break
		sleep 0.05
	done
	lock_store
	touch "$T/go$sig"
	in_store_wait $k || _lib_report "saving$sig: start never waited for the store: $(cat "$T/v.err")"
	expect_match "$(kernel_sessions)" "^[0-9]+:saving$sig:finished\$" "saving$sig: the session, finished, before the kill"
	kill -s $sig $k
	unlock_store
	wait $k 2>/dev/null
	rc=$?
	log "saving$sig: start's exit status $rc, stderr: $(cat "$T/v.err")"
	expect_eq "$rc" "$([ $sig = KILL ] && echo 137 || echo 0)" "saving$sig: start's exit status"
	settled "saving$sig"
	expect_eq "$(q "SELECT count(*), sum(calls) FROM sites JOIN runs USING (run_id) WHERE name = 'saving$sig' AND syscall = 'getppid'")" "1|6" \
		"saving$sig: the run saved once, whole"
done

# --- rmmod ---------------------------------------------------------------------------
ctl_ok start --counters none -q --no-save --name same -- "$P" 7 3 2
ctl_ok dump same -o "$T/live.csv"
ctl_ok dump same --sites -o "$T/live_sites.csv"
ctl_ok dump same --json -o "$T/live.json"
ctl_ok save same
expect_eq "$(kernel_sessions)" "" "the module's sessions after save"
mod_unload
ctl_ok dump same -o "$T/st.csv"
ctl_ok dump same --sites -o "$T/st_sites.csv"
ctl_ok dump same --json -o "$T/st.json"
for f in .csv _sites.csv .json; do
	cmp "$T/live$f" "$T/st$f" || _lib_report "dump$f after rmmod, from the store, differs from the live dump"
done
expect_eq "$(q "SELECT syscall, sum(calls), sum(errors) FROM sites JOIN runs USING (run_id) WHERE name = 'same' AND comm = 'sites' AND syscall IN ('getppid', 'close') AND (syscall = 'getppid' OR errors > 0) GROUP BY syscall ORDER BY syscall")" \
	"close|2|2
getppid|10|0" "sqlite3: sites 7 3 2's calls"
expect_eq "$(q "SELECT errnos FROM sites JOIN runs USING (run_id) WHERE name = 'same' AND syscall = 'close' AND comm = 'sites' AND errors > 0")" \
	"EBADF(9)=2" "sqlite3: close's errnos"

# --- 70 runs -----------------------------------------------------------------------
mod_load
assert_eq "$(mod_param max_sessions)" 16 "max_sessions"
before=$(q 'SELECT count(*) FROM runs')
for ((i = 0; i < 70; i++)); do
	"$SYSTRACECTL" start --counters none -q -- /bin/true 2>"$T/r.err" ||
		fail "start $i of 70: $(cat "$T/r.err")"
done
expect_eq "$(q 'SELECT count(*) FROM runs')" "$((before + 70))" "the runs after 70 starts"
expect_eq "$(q "SELECT count(DISTINCT run_id) FROM processes WHERE comm = 'true'")" 70 "the 70 runs' true processes"
expect_eq "$(kernel_sessions)" "" "status: the module's sessions after 70 runs"
expect_eq "$(live_count)" 0 "status: sessions_live after 70 runs"
