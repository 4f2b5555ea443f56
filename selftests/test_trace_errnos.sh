#!/usr/bin/env bash
# Errnos per site: progs/errnos makes 42 failing openat from one syscall
# instruction (37 ENOENT, 5 EACCES: a mode-000 file opened without
# CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH) and 3 close(-1) (EBADF) from
# another. Each site row says exactly "ENOENT(2)=37 EACCES(13)=5" and
# "EBADF(9)=3" with errno_other 0, in dump's CSV and JSON and in report
# errors' text, CSV and JSON; every site row has its errnos counted (never
# "unknown") and they add up to its errors; strace -Z, when installed,
# sees the same failures.
# tags: trace debug bpf
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog errnos
on_exit mod_unload_quiet
mod_load

P=$PROGS/errnos
off_open=$(elf_offset "$P" site_open_insn) || exit 1
off_close=$(elf_offset "$P" site_close_insn) || exit 1
log "syscall instructions at file offsets: openat $off_open, close $off_close"

mkdir -p "$T/files"
trace -- "$P" "$T/files"
assert_eq "$TRACE_RC" 0 "systracectl start's exit status (the program's): $TRACE_ERR"

# report errors: text (--wide: whole strings), each CSV table, JSON.
R=$T/report
mkdir -p "$R"
"$SYSTRACECTL" report errors "$SID" --wide --top 1000 -o "$R/errors.txt" 2>"$R/txt.err" ||
	fail "report errors --wide: exit $?: $(cat "$R/txt.err")"
for t in errnos syscalls sites processes; do
	"$SYSTRACECTL" report errors "$SID" --top 1000 --csv --table "$t" -o "$R/$t.csv" 2>"$R/$t.err" ||
		fail "report errors --csv --table $t: exit $?: $(cat "$R/$t.err")"
done
"$SYSTRACECTL" report errors "$SID" --top 1000 --json -o "$R/errors.json" 2>"$R/json.err" ||
	fail "report errors --json: exit $?: $(cat "$R/json.err")"
# dump's default output (CSV, the process table) and its site table with
# symbols, as a user would see them.
"$SYSTRACECTL" dump "$SID" --sites -o "$R/dump_sites.csv" 2>"$R/dump.err" ||
	fail "dump --sites: exit $?: $(cat "$R/dump.err")"

# strace's view of the same program, on another run (its calls do not
# depend on the run): each failing openat and close with its errno.
st=
if command -v strace >/dev/null 2>&1; then
	mkdir -p "$T/files2"
	strace -f -qq -Z -e trace=openat,close -o "$T/strace.txt" "$P" "$T/files2" ||
		fail "strace -Z $P: exit $?"
	st=$T/strace.txt
elif in_ci; then
	fail "no strace: CI runs the strace cross-check (scripts/deps installs strace)"
else
	log "no strace: no cross-check against strace"
fi

pycheck test_trace_errnos.py "$D" "$R" "$P" "$off_open" "$off_close" "$T/files" "$st"
