#!/usr/bin/env bash
# Reports and symbols against strace -k on the same run: `sites 40 20 17`
# traced as `systracectl start -- strace -f -k -- sites ...`. strace's
# unwinder names the object and offset of every syscall's return address;
# grouped by (object, offset - 2, syscall) they must equal the program's site
# rows call for call; its loader phase (syscalls before the first one from an
# object other than ld.so) must equal `report phases`; `report amortize`
# counts exactly the sites strace saw fewer than 16 times; and the symbols of
# the three raw syscall sites are the functions nm puts them in.
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
strace -k -o /dev/null true 2>/dev/null || skip "this strace cannot unwind (-k)"
trace -- strace -f -k -o "$T/strace.txt" -- "$P" 40 20 17
assert_eq "$TRACE_RC" 0 "exit status of strace (the program's)"
for r in phases amortize; do
	"$SYSTRACECTL" report "$r" "$SID" --json -o "$T/$r.json" 2>"$T/$r.err" ||
		fail "report $r: exit $?: $(cat "$T/$r.err")"
done
"$SYSTRACECTL" dump "$SID" --sites --json -o "$T/sym.json" 2>"$T/sym.err" ||
	fail "dump --sites with symbols: exit $?: $(cat "$T/sym.err")"
nm -S --defined-only "$P" >"$T/nm.txt" || fail "nm $P"

pycheck test_trace_reports.py "$D" "$T" "$P"
