#!/usr/bin/env bash
# Dumps of 600+ site rows (600 anonymous-memory sites) resume correctly
# through a tiny receive buffer (the CLI's SYSTRACE_RCVBUF and
# SYSTRACE_MSGBUF, and raw), and a socket closed in the middle of a dump,
# 20 times, leaves the module working and every session freed.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog manysites
need_prog nlraw
on_exit mod_unload_quiet
mod_load

trace -- "$PROGS/manysites" 600
assert_eq "$TRACE_RC" 0 "exit status"
read -r base calls <<<"$TRACE_OUT"
log "stubs at $base, $calls calls"
pycheck test_trace_dump_rcvbuf.py "$D" "$base" "$calls"

# The same rows however small the buffers.
for env in SYSTRACE_RCVBUF=1 SYSTRACE_MSGBUF=64 "SYSTRACE_RCVBUF=1 SYSTRACE_MSGBUF=16"; do
	for f in procs:--processes sites:--sites syscalls:--syscalls; do
		# shellcheck disable=SC2086
		env $env "$SYSTRACECTL" dump "$SID" --csv "${f#*:}" --no-symbols -o "$T/small.csv" 2>"$T/small.err"
		expect_eq "$?" 0 "$env dump ${f#*:}: exit status ($(cat "$T/small.err"))"
		cmp -s "$T/small.csv" "$D/${f%%:*}.csv" || _lib_report "$env dump ${f#*:}: differs from the normal dump"
	done
	# shellcheck disable=SC2086
	env $env "$SYSTRACECTL" dump "$SID" --json --syscalls --no-symbols -o "$T/small.json" 2>"$T/small.err"
	expect_eq "$?" 0 "$env dump --json: exit status"
	cmp -s "$T/small.json" "$D/dump.json" || _lib_report "$env dump --json: differs from the normal dump"
done

nsites=$(sed -n '2s/^"session":{.*"sites":\([0-9]*\),.*/\1/p' "$D/dump.json")
for rb in 0 1; do
	opts=()
	[ $rb = 0 ] || opts=(--rcvbuf 1)
	out=$("$PROGS/nlraw" --dump "${opts[@]}" 6 8:u32:"$SID")
	log "SITE_GET dump (rcvbuf ${rb/1/tiny}): $out"
	read -r word msgs rows <<<"$out"
	expect_eq "$word" dump "raw SITE_GET dump"
	expect_ge "${msgs:-0}" 2 "messages of the raw SITE_GET dump"
	expect_eq "$rows" "$nsites" "rows of the raw SITE_GET dump"
done

# Close the socket after the first (or second) message of a dump.
for ((i = 0; i < 20; i++)); do
	out=$("$PROGS/nlraw" --dump --rcvbuf 1 --close $((i % 2 + 1)) 6 8:u32:"$SID")
	expect_eq "$out" "closed after $((i % 2 + 1)) messages" "SITE_GET dump closed midway ($i)"
done
"$SYSTRACECTL" dump "$SID" --csv --sites --no-symbols -o "$T/after.csv" 2>"$T/after.err"
expect_eq "$?" 0 "dump after the closed dumps: exit status"
cmp -s "$T/after.csv" "$D/sites.csv" || _lib_report "dump after the closed dumps: differs"

ctl reset --all
expect_eq "$CTL_RC" 0 "reset --all ($CTL_ERR)"
ctl status
log "$CTL_OUT"
expect_line "$CTL_OUT" '^sessions live: +0$' "status after reset --all"
expect_line "$CTL_OUT" '^memory: +0 bytes$' "status after reset --all"
