# shellcheck shell=bash
# What the paths tests share (test_bpf_paths*.sh on the BPF backend,
# test_trace_paths*.sh on the module): the rows of report paths and of
# strace in one form to compare, and the tests themselves.
#
# rows CSV             "COUNT<TAB>PATH<TAB>SYSCALL<TAB>ERRNO_NAME" lines, sorted,
#                      of report paths --csv
# strace_rows FILE     the same from strace's output (-f -s 4096 -e trace=%file)
# paths_probe_test     progs/pathprobe's known calls: exact rows, strace's
#                      table, --paths errors, all and off (test_*_paths.sh)
# paths_build_test     a 13-file make -j2's failed calls against strace -ff
#                      (test_*_paths_build.sh)

# "COUNT<TAB>PATH<TAB>SYSCALL<TAB>ERRNO_NAME" lines, sorted, of report paths --csv.
rows() {
	"$CSVQ" -f "$1" get count | paste - <("$CSVQ" -f "$1" get path) \
		<("$CSVQ" -f "$1" get syscall) <("$CSVQ" -f "$1" get errno_name) | sort
}

# The same from strace's output (-f -s 4096 -e trace=%file): each call's
# first quoted argument, its errno or ok; a path of more than 255 bytes and
# an unquoted pointer as report paths names them, but a NULL where the
# call gives NULL a meaning of its own (kmod/file_calls.h: acct, quotactl,
# newfstatat, utimensat, fanotify_mark, statx), which is no path and no
# row; the root's execve (the first line) left out: a session counts from
# the exec on.
strace_rows() {
	sed -e '1{/^[0-9]* *execve(/d}' "$1" | sed -n -E 's/^([0-9]+ +)?([a-z0-9_]+)\(/\2\t/p' |
		awk -F'\t' '{
			call = $1; rest = $2
			if (match(rest, /^[^"]*"/) && match(rest, /"([^"\\]|\\.)*"/)) {
				path = substr(rest, RSTART + 1, RLENGTH - 2)
				if (length(path) > 255)
					path = "<longer than 255 bytes>"
			} else if (call ~ /^(acct|quotactl|newfstatat|utimensat|fanotify_mark|statx)$/ && rest ~ /NULL/) {
				next
			} else {
				path = "<unreadable>"
			}
			res = "ok"
			if (match(rest, / = -1 E[A-Z0-9]+ /))
				res = substr(rest, RSTART + 6, RLENGTH - 7)
			print path "\t" call "\t" res
		}' | sort | uniq -c | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print n "\t" $0 }' | sort
}


# progs/pathprobe makes known calls from raw syscalls: openat ENOENT
# /nonexistent/a x3 and /nonexistent/b x5, access ENOENT /nonexistent/c x4,
# openat ENOTDIR /etc/passwd/x x2, newfstatat ENOENT on a 300-byte path x1
# (past the 255-byte bound: one row named "<longer than 255 bytes>"),
# openat EFAULT on the pointer 0x1 x1 (a path that cannot be read:
# "<unreadable>"), and with "ok" openat /etc/passwd x6 that succeed and
# quotactl(Q_SYNC, NULL) x2 (a NULL of meaning: no row).
#   errors  (the default) exactly those rows in CSV, text and JSON, and
#           the whole table (the loader's failed probes too) equals what
#           `strace -f -e trace=%file` gives for the same program's failed
#           calls, parsed from its output
#   all     the successes too, the whole table again equal to strace's
#           (but the root's execve, which a session starts after)
#   off     no row, and the note says so
paths_probe_test() {
	local P want n path call err
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
	expect_eq "$(q "$D/paths.csv" count syscall=quotactl)" 0 "all: quotactl(Q_SYNC, NULL) x2: no path, no row"
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
}

# A clean `make -j2` of 13 C files with 3 include directories, the headers
# in the last one (each compiler probes the first two in vain), run once
# under `strace -ff -e trace=%file` and once, cleaned, under systracectl
# (--paths errors, the default). The top 20 rows (path, syscall, errno:
# count) of report paths are strace's top 20 failed calls, parsed from its
# output, and so is the whole table (the compilers' temporary files, of
# random names, as one).
paths_build_test() {
	local W objs i MAKE_BIN want got n
	W=$T/build
	mkdir -p "$W/inc1" "$W/inc2" "$W/inc3"
	objs=
	for i in $(seq 1 12); do
		printf '#include "h%d.h"\nint f%d(void) { return H%d; }\n' "$i" "$i" "$i" >"$W/f$i.c"
		printf '#include <stdio.h>\n#define H%d %d\n' "$i" "$i" >"$W/inc3/h$i.h"
		objs="$objs f$i.o"
	done
	{
		printf '#include "h1.h"\n'
		for i in $(seq 1 12); do printf 'int f%d(void);\n' "$i"; done
		printf 'int main(void) { return f1()'
		for i in $(seq 2 12); do printf ' + f%d()' "$i"; done
		printf ' == 78 ? 0 : 1; }\n'
	} >"$W/main.c"
	# shellcheck disable=SC2016 # make's variables
	printf 'CFLAGS = -O1 -Iinc1 -Iinc2 -Iinc3\nprog: main.o%s\n\t$(CC) -o $@ $^\nclean:\n\trm -f prog *.o\n' \
		"$objs" >"$W/Makefile"
	MAKE_BIN=$(command -v make)
	cd "$W" || fail "cd $W"
	mkdir -p "$T/st"
	strace -ff -qq -s 4096 -e trace=%file -o "$T/st/t" "$MAKE_BIN" -j2 >"$T/strace.make" 2>&1 ||
		fail "strace -ff make -j2: exit $?: $(cat "$T/strace.make")"
	./prog || fail "the build under strace made no working program (exit $?)"
	"$MAKE_BIN" clean >/dev/null || fail "make clean"
	trace -- "$MAKE_BIN" -j2
	cd "$T" || fail "cd $T"
	assert_eq "$TRACE_RC" 0 "make -j2 under systracectl: exit status: $TRACE_ERR"
	"$W/prog" || fail "the build under systracectl made no working program"
	"$SYSTRACECTL" report paths "$SID" --csv -o "$D/paths.csv" 2>"$D/paths.err" ||
		fail "report paths --csv: exit $?: $(cat "$D/paths.err")"
	"$SYSTRACECTL" report paths "$SID" --csv --top 20 -o "$D/top.csv" 2>"$D/paths.err" ||
		fail "report paths --csv --top 20: exit $?: $(cat "$D/paths.err")"

	cat "$T"/st/t.* >"$T/strace.all"
	# The compilers' temporary files have random names (/tmp/ccXXXXXX.s): one
	# name for them all, their counts summed, on both sides.
	norm() {
		sed -E 's#/tmp/cc[A-Za-z0-9]{6}\.#/tmp/ccXXXXXX.#' |
			awk -F'\t' '{ n[$2 "\t" $3 "\t" $4] += $1 } END { for (k in n) print n[k] "\t" k }' | sort
	}
	want=$(strace_rows "$T/strace.all" | awk -F'\t' '$4 != "ok"' | norm)
	got=$(rows "$D/paths.csv" | norm)
	# The top 20 by count; rows of the 20th row's count are all taken, whatever their order.
	top() { sort -t"$(printf '\t')" -k1,1nr <<<"$1" | awk -F'\t' 'NR <= 20 { last = $1 } NR > 20 && $1 < last { exit } { print }' | sort; }
	expect_eq "$(top "$got")" "$(top "$want")" "the top 20 (path, syscall, errno) counts: strace's"
	expect_eq "$(wc -l <"$D/top.csv")" 21 "report paths --top 20: 20 rows"
	expect_eq "$(rows "$D/top.csv" | cut -f1 | sort -n | head -1)" "$(top "$want" | cut -f1 | sort -n | head -1)" \
		"report paths --top 20: its smallest count is strace's 20th"
	expect_eq "$got" "$want" "the whole table: strace's failed %file calls" ||
		log "the difference (strace's <, report paths' >): $(diff <(echo "$want") <(echo "$got"))"
	for i in 1 5 12; do
		n=1
		[ "$i" = 1 ] && n=2	# f1.c and main.c include h1.h
		expect_eq "$(q "$D/paths.csv" sum count path=inc1/h$i.h errno_name=ENOENT)" "$n" \
			"inc1/h$i.h, probed in vain by the compilers of the files that include it"
		expect_eq "$(q "$D/paths.csv" sum count path=inc2/h$i.h errno_name=ENOENT)" "$n" \
			"inc2/h$i.h, probed in vain"
		expect_eq "$(q "$D/paths.csv" count path=inc3/h$i.h)" 0 "inc3/h$i.h, found: no row of a failure"
	done
	log "top 20: $(top "$got" | sort -t"$(printf '\t')" -k1,1nr | tr '\t\n' ' ;')"
	log "rows: $(grep -c . <<<"$got") (strace: $(grep -c . <<<"$want")), failed calls: $(q "$D/paths.csv" sum count) (strace: $(awk -F'\t' '{ s += $1 } END { print s }' <<<"$want"))"
}
