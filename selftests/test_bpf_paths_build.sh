#!/usr/bin/env bash
# The paths of a real build's failed file calls (report paths, the BPF
# backend's default --paths errors) against strace's: a clean `make -j2`
# of 13 C files with 3 include directories, the headers in the last one
# (each compiler probes the first two in vain), run once under
# `strace -ff -e trace=%file` and once, cleaned, under systracectl. The
# top 20 rows (path, syscall, errno: count) of report paths are strace's
# top 20 failed calls, parsed from its output, and so is the whole table
# (the compilers' temporary files, of random names, as one).
# tags: bpf
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
. "$(dirname "$0")/paths_lib.sh"
need_bpf
need_cmd strace
need_cmd make
need_cmd cc
on_exit mod_unload_quiet
mod_load

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
