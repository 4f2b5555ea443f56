#!/usr/bin/env bash
# The paths of file calls in dump --sites --json and in diff --by path, on
# the BPF backend: progs/pathprobe 1 (A) and pathprobe 3 (B), whose failing
# calls B makes 3 times as often (openat ENOENT /nonexistent/a 3 -> 9 and
# /nonexistent/b 5 -> 15, access ENOENT /nonexistent/c 4 -> 12, openat
# ENOTDIR /etc/passwd/x 2 -> 6, newfstatat ENOENT on a 300-byte path 1 -> 3,
# openat EFAULT on an unreadable pointer 1 -> 3; the loader's calls the
# same). Checked by test_bpf_paths_diff.py:
#   dump     each site row's paths, summed per (path, syscall, result),
#            are exactly those rows, equal report paths' table and strace
#            -f -e trace=%file's failed calls of the same program; every
#            site row has its "paths", [] for a call that takes none;
#            paths_counted says errors, 0 dropped
#   diff     the paths table of the live sessions: the exact deltas above,
#            and every row's calls_a, calls_b and delta those of strace's
#            two runs; the loader's rows "same"
# and here: the diff of the two saved dumps (--input) is the live diff's
# CSV byte for byte, a mixed one (session A, dump B) too; --errors --top 3
# keeps the 3 largest changes; without --sites the dump has no "paths".
# tags: bpf
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
. "$(dirname "$0")/paths_lib.sh"
need_bpf
need_prog pathprobe
need_cmd strace
need_cmd python3
on_exit mod_unload_quiet
mod_load

P=$PROGS/pathprobe
for n in 1 3; do
	strace -f -qq -s 4096 -e trace=%file -o "$T/strace$n.out" "$P" "$n" >/dev/null 2>&1 ||
		fail "strace -f -e trace=%file $P $n: exit $?"
	strace_rows "$T/strace$n.out" >"$T/strace$n.rows"
done

trace -- "$P" 1
assert_eq "$TRACE_RC" 0 "pathprobe 1: exit status (every call returned as said): $TRACE_ERR"
A=$SID
trace -- "$P" 3
assert_eq "$TRACE_RC" 0 "pathprobe 3: exit status: $TRACE_ERR"
B=$SID
for s in A:"$A" B:"$B"; do
	ctl_ok dump "${s#*:}" --sites --json -o "$T/${s%%:*}.json"
	ctl_ok report paths "${s#*:}" --csv -o "$T/${s%%:*}_paths.csv"
done
ctl_ok dump "$A" --json -o "$T/plain.json"
expect_eq "$(grep -c '"paths' "$T/plain.json")" 0 "dump --json without --sites: no paths"

ctl_ok diff "$A" "$B" --by path --csv -o "$T/live.csv"
ctl_ok diff "$A" "$B" --by path --json -o "$T/live.json"
ctl_ok diff --input "$T/A.json" --input "$T/B.json" --by path --csv -o "$T/saved.csv"
cmp "$T/live.csv" "$T/saved.csv" || _lib_report "diff --by path of the saved dumps differs from the live diff"
ctl_ok diff "$A" --input "$T/B.json" --by path --csv -o "$T/mixed.csv"
cmp "$T/live.csv" "$T/mixed.csv" || _lib_report "diff --by path of session A and dump B differs from the live diff"
ctl_ok diff "$A" "$B" --by path --csv --errors --top 3 -o "$T/top.csv"
expect_eq "$(csvq -f "$T/top.csv" get path | tr '\n' ' ')" "/nonexistent/b /nonexistent/c /nonexistent/a " \
	"--errors --top 3: the 3 largest changes (10, 8, 6)"
ctl_ok diff "$A" "$B" --by path -o "$T/live.txt"
expect_contains "$(cat "$T/live.txt")" "paths: A failed file calls (--paths errors), dropped 0" "diff: the paths note"
log "diff --by path: $(tr '\n' ';' <"$T/live.csv")"

pycheck test_bpf_paths_diff.py "$T"
