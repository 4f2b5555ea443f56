#!/usr/bin/env bash
# systracectl diff of two runs of `sites` whose counts differ by a known
# amount: A = `sites 1000 5 0`, B = `sites 1007 5 37` (7 more getppid at
# site a, 37 failing close at site c, new in B), C = `sites 0 0 0` (no
# getppid at all). Exact deltas by syscall, process, site and threshold,
# between live sessions and between saved dumps (the same CSV, also mixed),
# every syscall row against the two dumps' own sums, the deltas against
# strace -c of the same two runs, and the errors a user can cause.
# tags: trace bpf
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_cmd strace
need_prog sites
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
off_a=$(elf_offset "$P" site_a_insn) || exit 1
off_b=$(elf_offset "$P" site_b_insn) || exit 1
off_c=$(elf_offset "$P" site_c_insn) || exit 1

trace -- "$P" 1000 5 0
assert_eq "$TRACE_RC" 0 "exit status of sites 1000 5 0"
A=$SID DA=$D
trace -- "$P" 1007 5 37
assert_eq "$TRACE_RC" 0 "exit status of sites 1007 5 37"
B=$SID DB=$D
trace -- "$P" 0 0 0
assert_eq "$TRACE_RC" 0 "exit status of sites 0 0 0"
C=$SID

# --- live sessions (their --by all JSON is checked at the end) ---------------
ctl_ok diff "$A" "$B" --by all --json -o "$T/live.json"

# A syscall only in one session: new one way, gone the other.
ctl_ok diff "$C" "$A" --csv
expect_eq "$(csvq get status syscall=getppid <<<"$CTL_OUT")" new "C -> A: getppid status"
expect_eq "$(csvq get calls_delta syscall=getppid <<<"$CTL_OUT")" 1005 "C -> A: getppid calls_delta"
expect_eq "$(csvq get syscall <<<"$CTL_OUT" | head -n 1)" getppid "C -> A: first row"
ctl_ok diff "$A" "$C" --csv --top 1
expect_eq "$(wc -l <<<"$CTL_OUT")" 2 "A -> C --top 1: the header and one row"
expect_eq "$(csvq get status <<<"$CTL_OUT")" gone "A -> C: getppid status"
expect_eq "$(csvq get calls_delta <<<"$CTL_OUT")" -1005 "A -> C: getppid calls_delta"

# --- saved dumps ------------------------------------------------------------
ctl_ok dump "$A" --json -o "$T/a.json"
ctl_ok dump "$B" --json -o "$T/b.json"
for by in syscall process site amortize; do
	ctl_ok diff "$A" "$B" --by "$by" --csv
	live=$CTL_OUT
	ctl_ok diff --input "$T/a.json" --input "$T/b.json" --by "$by" --csv
	expect_eq "$CTL_OUT" "$live" "--by $by: two --input files give the live sessions' CSV"
done
ctl_ok diff --input "$T/a.json" "$B" --by site --csv
expect_eq "$(csvq get calls_delta offset="$off_a" <<<"$CTL_OUT")" 7 "--input A, session B: site a"
ctl_ok diff "$A" --input "$T/b.json" --by site --csv
expect_eq "$(csvq get status offset="$off_c" <<<"$CTL_OUT")" new "session A, --input B: site c"
ctl_ok diff --input "$T/a.json" --input "$T/b.json"
expect_line "$CTL_OUT" "^A: session $A .*from $T/a.json" "text: the note naming A"
expect_line "$CTL_OUT" "^changed +1005 +1012 +7 .* getppid$" "text: the getppid row"

# --- strace -c of the same two runs (checked at the end) -------------------
strace -f -c -o "$T/sa.txt" "$P" 1000 5 0 || fail "strace -c sites 1000 5 0"
strace -f -c -o "$T/sb.txt" "$P" 1007 5 37 || fail "strace -c sites 1007 5 37"

# --- errors a user can cause ------------------------------------------------
ctl diff "$A"
expect_eq "$CTL_RC" 1 "diff with one operand: exit status"
expect_contains "$CTL_ERR" "diff needs A and B" "diff with one operand: message"
ctl diff "$A" "$B" "$C"
expect_eq "$CTL_RC" 1 "diff with three operands: exit status"
ctl diff --by nosuch "$A" "$B"
expect_eq "$CTL_RC" 1 "--by nosuch: exit status"
expect_contains "$CTL_ERR" "--by: 'nosuch'" "--by nosuch: message"
ctl diff --by syscall,site --csv "$A" "$B"
expect_eq "$CTL_RC" 1 "--csv with two --by keys: exit status"
ctl diff nosuchsession "$B"
expect_eq "$CTL_RC" 4 "an unknown session: exit status"
expect_contains "$CTL_ERR" 'no session with id or name "nosuchsession"' "an unknown session: message"
ctl diff --input "$T/nosuch.json" "$B"
expect_eq "$CTL_RC" 6 "a missing file: exit status"
expect_contains "$CTL_ERR" "$T/nosuch.json" "a missing file: message"
echo '{"schema_version":1}' >"$T/bad.json"
ctl diff "$A" --input "$T/bad.json"
expect_eq "$CTL_RC" 6 "a malformed file: exit status"
expect_contains "$CTL_ERR" "not a \`dump --json\` document" "a malformed file: message"

pycheck test_trace_diff.py "$DA" "$DB" "$T/live.json" "$P" "$off_a" "$off_b" "$off_c" "$T"
