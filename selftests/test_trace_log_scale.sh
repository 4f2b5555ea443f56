#!/usr/bin/env bash
# The temporal log at 2 million events, exact: a shell runs sites eight
# times, 250,005 calls of its own each (2,000,040, besides each image's
# start-up), a second apart: under TCG the drain is about as fast as the
# calls, so each burst must fit the 64M buffer while the drain catches up;
# start --log spools the events as it drains them and writes the log at
# the end as FILE.partial, renamed. Then, read back by the
# streaming readers (report --input): the log's syscalls are the session's
# syscalls exactly, its process and site rows are the dump's, and report
# syscalls and report amortize of the log equal those of the dump (every
# syscall's and every site's calls); per image, report phases of the log
# gives exactly the loader phase the dump's rows say: the first_ordinal of
# the image's first site row outside ld.so is its number of loader-phase
# calls (seq is dense). log --input converts it to JSONL (zstd) and back
# to the same bytes; systracectl's own peak RSS (start --self-usage) stays
# within 256 MiB. The same on both backends (selftests/run bpf trace_log_scale).
# tags: trace bpf full
# timeout: 1200
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog sites
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
trace --self-usage --log "$T/big.csv" --log-buffer 64M -- /bin/sh -c "for i in 1 2 3 4 5 6 7 8; do $P 150000 100000 5; sleep 1; done"
assert_eq "$TRACE_RC" 0 "start --log of 2 million syscalls: exit status ($TRACE_ERR)"
[ ! -e "$T/big.csv.partial" ] || fail "big.csv.partial is left after the log was written"
expect_contains "$TRACE_ERR" "events to $T/big.csv (csv), none dropped" "start --log: the log's line"
d_big=$D
# systracectl's memory stays bounded while it records (issue 24: 256 MB).
self_rss=$(sed -n 's/^systracectl: self: peak RSS \([0-9]*\) KiB.*/\1/p' "$D/start.err")
expect_ge "${self_rss:-0}" 1 "start --self-usage: systracectl's own peak RSS is said"
expect_le "${self_rss:-0}" 262144 "start --log of 2 million syscalls: systracectl's own peak RSS, KiB"

for r in syscalls amortize phases; do
	"$SYSTRACECTL" report "$r" --input "$T/big.csv" --json -o "$T/log.$r.json" 2>"$T/log.$r.err"
	assert_eq "$?" 0 "report $r --input the log: exit status ($(cat "$T/log.$r.err"))"
done
for r in syscalls amortize; do
	"$SYSTRACECTL" report "$r" --input "$d_big/dump.json" --json -o "$T/dump.$r.json" 2>"$T/dump.$r.err"
	assert_eq "$?" 0 "report $r --input the dump: exit status ($(cat "$T/dump.$r.err"))"
done
# The guest's /tmp is small: JSONL compressed, and back to CSV through a pipe.
"$SYSTRACECTL" log --input "$T/big.csv" -o "$T/big.jsonl.zst" 2>"$T/conv.err"
assert_eq "$?" 0 "log --input: CSV to JSONL.zst ($(cat "$T/conv.err"))"
"$SYSTRACECTL" log --input "$T/big.jsonl.zst" -o /dev/stdout 2>>"$T/conv.err" | cmp - "$T/big.csv" >"$T/cmp.out" 2>&1
assert_eq "$?" 0 "CSV -> JSONL.zst -> CSV: the same bytes ($(cat "$T/cmp.out" "$T/conv.err"))"
rm -f "$T/big.jsonl.zst"

pycheck test_trace_log_scale.py "$T" "$P" "$d_big"
