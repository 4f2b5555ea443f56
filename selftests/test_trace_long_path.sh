#!/usr/bin/env bash
# A program whose path is near PATH_MAX (3946 bytes): its process row and
# its site rows carry that whole path, and the dumps return every row to a
# reader whose buffer is 4 KiB and grows only for a longer message (nlraw
# --peek 4096, and the CLI's SYSTRACE_MSGBUF=4096): the kernel must make
# each message large enough for its largest row, not fail the dump on it.
# tags: trace debug
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog sites
on_exit mod_unload_quiet
mod_load

# 20 directories of 195 bytes, then "sites": 20 * 196 + 6 + len($T).
dir=$T
comp=$(printf "d%.0s" $(seq 195))
for _ in $(seq 20); do dir=$dir/$comp; done
mkdir -p "$dir" || fail "mkdir of a ${#dir}-byte path"
prog=$dir/sites
cp "$PROGS/sites" "$prog" || fail "cp to a ${#prog}-byte path"
log "program path: ${#prog} bytes"
{ [ ${#prog} -ge 3900 ] && [ ${#prog} -lt 4096 ]; } || fail "path length ${#prog} is not near PATH_MAX"

trace -- "$prog" 10 20 3
assert_eq "$TRACE_RC" 0 "exit status"
for f in procs:--processes sites:--sites; do
	SYSTRACE_MSGBUF=4096 "$SYSTRACECTL" dump "$SID" --csv "${f#*:}" --no-symbols \
		-o "$T/small.${f%%:*}.csv" 2>"$T/small.err"
	expect_eq "$?" 0 "dump ${f#*:} with a 4 KiB buffer: exit status ($(cat "$T/small.err"))"
	expect_eq "$(cmp -s "$D/${f%%:*}.csv" "$T/small.${f%%:*}.csv" && echo same)" same \
		"dump ${f#*:} with a 4 KiB buffer: the same rows as with the default buffer"
done

# A fresh socket whose every read was 4 KiB: PROC_GET (5) and SITE_GET (6)
# return every row the dumps have: "dump MSGS ROWS".
for cmd in 5:procs 6:sites; do
	want=$(csvq -f "$D/${cmd#*:}.csv" count)
	out=$("$PROGS/nlraw" --peek 4096 --dump "${cmd%:*}" 8:u32:"$SID")
	expect_match "$out" "^dump [0-9]+ $want\$" "nlraw --peek 4096 dump of command ${cmd%:*}: the $want rows of ${cmd#*:}.csv"
done
expect_eq "$(csvq -f "$D/procs.csv" count)" 1 "rows of the process dump"

pycheck test_trace_long_path.py "$D" "$prog"
