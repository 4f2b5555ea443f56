#!/usr/bin/env bash
# The paths of file calls (start --paths, report paths) on the BPF
# backend. progs/pathprobe makes known calls from raw syscalls: openat
# ENOENT /nonexistent/a x3 and /nonexistent/b x5, access ENOENT
# /nonexistent/c x4, openat ENOTDIR /etc/passwd/x x2, newfstatat ENOENT on
# a 300-byte path x1 (past the 255-byte bound: one row named
# "<longer than 255 bytes>"), openat EFAULT on the pointer 0x1 x1 (a path
# that cannot be read: "<unreadable>"), and with "ok" openat /etc/passwd
# x6 that succeed.
#   errors  (the default) exactly those rows in CSV, text and JSON, and
#           the whole table (the loader's failed probes too) equals what
#           `strace -f -e trace=%file` gives for the same program's failed
#           calls, parsed from its output
#   all     the successes too, the whole table again equal to strace's
#           (but the root's execve, which a session starts after)
#   off     no row, and the note says so
# tags: bpf bpf-quick
# timeout: 240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
. "$(dirname "$0")/paths_lib.sh"
need_bpf
need_prog pathprobe
need_cmd strace
on_exit mod_unload_quiet
mod_load

P=$PROGS/pathprobe

strace -f -qq -s 4096 -e trace=%file -o "$T/strace.out" "$P" ok >/dev/null 2>&1 ||
	fail "strace -f -e trace=%file $P ok: exit $?"

# --- errors (the default) ---------------------------------------------------------
trace -- "$P" ok
assert_eq "$TRACE_RC" 0 "pathprobe ok: exit status (every call returned as said): $TRACE_ERR"
"$SYSTRACECTL" report paths "$SID" --csv -o "$D/paths.csv" 2>"$D/paths.err" ||
	fail "report paths --csv: exit $?: $(cat "$D/paths.err")"
"$SYSTRACECTL" report paths "$SID" --json -o "$D/paths.json" 2>>"$D/paths.err" ||
	fail "report paths --json: exit $?: $(cat "$D/paths.err")"
"$SYSTRACECTL" report paths "$SID" -o "$D/paths.txt" 2>>"$D/paths.err" ||
	fail "report paths: exit $?: $(cat "$D/paths.err")"
for want in "3,/nonexistent/a,openat,ENOENT" "5,/nonexistent/b,openat,ENOENT" \
	"4,/nonexistent/c,access,ENOENT" "2,/etc/passwd/x,openat,ENOTDIR" \
	"1,<longer than 255 bytes>,newfstatat,ENOENT" "1,<unreadable>,openat,EFAULT"; do
	IFS=, read -r n path call err <<<"$want"
	expect_eq "$(q "$D/paths.csv" get count path="$path" syscall="$call" errno_name="$err")" "$n" \
		"errors: CSV: $call $path $err"
	expect_eq "$(csvq --json pick paths count path="$path" syscall="$call" errno_name="$err" <"$D/paths.json")" \
		"$n" "errors: JSON: $call $path $err"
	expect_eq "$(awk -v p="$path" -v c="$call" -v e="$err" 'index($0, p) && index($0, " " c " ") && index($0, " " e " ") { print $1 }' "$D/paths.txt")" \
		"$n" "errors: text: $call $path $err"
done
expect_eq "$(q "$D/paths.csv" count errno_name=ok)" 0 "errors: no row of a success"
expect_eq "$(q "$D/paths.csv" count path~^/etc/passwd\$)" 0 "errors: /etc/passwd (opened) has no row"
expect_eq "$(q "$D/paths.csv" count processes=1 sites=1)" "$(q "$D/paths.csv" count)" \
	"errors: every row: 1 process, 1 site"
expect_eq "$(rows "$D/paths.csv")" "$(strace_rows "$T/strace.out" | awk -F'\t' '$4 != "ok"')" \
	"errors: the whole table equals strace's failed %file calls"
expect_contains "$(cat "$D/paths.txt")" "dropped: 0 calls" "errors: the drop count, shown"
log "errors: $(tr '\n' ';' <"$D/paths.csv")"

# --- all ----------------------------------------------------------------------------
trace --paths all -- "$P" ok
assert_eq "$TRACE_RC" 0 "pathprobe ok (--paths all): exit status: $TRACE_ERR"
"$SYSTRACECTL" report paths "$SID" --csv -o "$D/paths.csv" 2>"$D/paths.err" ||
	fail "report paths --csv (all): exit $?: $(cat "$D/paths.err")"
expect_eq "$(q "$D/paths.csv" get count path=/etc/passwd syscall=openat errno_name=ok)" 6 \
	"all: openat /etc/passwd ok"
expect_eq "$(q "$D/paths.csv" get count path=/nonexistent/b syscall=openat errno_name=ENOENT)" 5 \
	"all: openat /nonexistent/b ENOENT"
expect_eq "$(rows "$D/paths.csv")" "$(strace_rows "$T/strace.out")" \
	"all: the whole table equals strace's %file calls"
"$SYSTRACECTL" report paths "$SID" --csv --errors -o "$D/errors.csv" 2>"$D/paths.err" ||
	fail "report paths --errors: exit $?: $(cat "$D/paths.err")"
expect_eq "$(q "$D/errors.csv" count errno_name=ok)" 0 "all: --errors leaves out the successes"
expect_eq "$(q "$D/errors.csv" sum count)" "$(q "$D/paths.csv" sum count errno!=0)" "all: --errors keeps the failures"
"$SYSTRACECTL" report paths "$SID" --csv --syscall access -o "$D/access.csv" 2>"$D/paths.err" ||
	fail "report paths --syscall access: exit $?: $(cat "$D/paths.err")"
expect_eq "$(q "$D/access.csv" sum count path~^/nonexistent)" 4 "all: --syscall access: /nonexistent/c x4"
expect_eq "$(q "$D/access.csv" count syscall!=access)" 0 "all: --syscall access: only access"

# --- off ----------------------------------------------------------------------------
trace --paths off -- "$P" ok
assert_eq "$TRACE_RC" 0 "pathprobe ok (--paths off): exit status: $TRACE_ERR"
"$SYSTRACECTL" report paths "$SID" -o "$D/paths.txt" 2>"$D/paths.err" ||
	fail "report paths (off): exit $?: $(cat "$D/paths.err")"
"$SYSTRACECTL" report paths "$SID" --csv -o "$D/paths.csv" 2>"$D/paths.err" ||
	fail "report paths --csv (off): exit $?: $(cat "$D/paths.err")"
expect_eq "$(q "$D/paths.csv" count)" 0 "off: no row"
expect_contains "$(cat "$D/paths.txt")" "paths: off (start --paths off)" "off: the note"
