#!/usr/bin/env bash
# A thread's first and only exit syscall lies in a file new to the session
# while a sibling churns the mmap lock (progs/exitmap): its site is
# resolved late, after the thread has lost its files and fs, so the work
# goes to a live sibling. Once with force_late_resolve (every round takes
# that path; the old module dereferenced the exiting thread's NULL fs in
# d_path and panicked), then the natural race, repeated. Each file gives
# exactly one exit site row, in that file at the known offset, called once;
# nothing stays unknown but a forced exit_group. 8 forced rounds; natural
# rounds: SYSTRACE_EXITMAP_ROUNDS, 40 by default (the old module panicked
# within the first 40, with the parameter and without). The natural race
# must happen: after exitmap's warm-up only the exit sites are new, so the
# session's late_resolves counts the exits that found the mmap lock taken;
# a trace in which none did is run again, up to SYSTRACE_EXITMAP_TRIES
# times (5), and the test fails if the race never happened.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog exitmap
on_exit mod_unload_quiet
mod_load force_late_resolve=1
assert_eq "$(mod_param force_late_resolve)" Y "force_late_resolve after insmod"

P=$PROGS/exitmap
# Rounds: a worker thread each, a file each.
KF=8
KN=${SYSTRACE_EXITMAP_ROUNDS:-40}

mkdir "$T/forced" "$T/natural"
trace -- "$P" "$T/forced" "$KF"
assert_eq "$TRACE_RC" 0 "forced: exit status ($TRACE_ERR)"
assert_line "$TRACE_OUT" '^exit_site_offset 0x107$' "forced: the program's exit site offset"
dforced=$D
# Its invariants are checked by test_trace_exit_newfile.py, as a forced trace's.
TRACE_DIRS=${TRACE_DIRS/"$dforced"$'\n'/}

echo 0 >/sys/module/systrace/parameters/force_late_resolve
tries=${SYSTRACE_EXITMAP_TRIES:-5}
for ((try = 1; ; try++)); do
	rm -rf "$T/natural"
	mkdir "$T/natural"
	trace -- "$P" "$T/natural" "$KN"
	assert_eq "$TRACE_RC" 0 "natural: exit status ($TRACE_ERR)"
	late=$(csvq -f "$D/dump.json" --json get session.late_resolves)
	log "natural trace $try of at most $tries: $late late resolves in $KN rounds"
	if [ "$late" -gt 0 ] || [ "$try" -ge "$tries" ]; then
		break
	fi
done
dnatural=$D

pycheck test_trace_exit_newfile.py "$P" "$dforced" "$T/forced" "$KF" "$dnatural" "$T/natural" "$KN" "$try"
