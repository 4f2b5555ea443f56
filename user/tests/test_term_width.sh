#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The text of report and diff fits the terminal it is written to (its
# TIOCGWINSZ width, set with stty under script(1)), 80 columns at the least;
# into a pipe or a file it keeps 100; --wide is never cut. phases --by
# process: its per-process table is the wide one. Widths are the
# longest line awk measures.
. "$(dirname "$0")/testlib.sh"

if ! command -v script >/dev/null || ! command -v stty >/dev/null; then
	skip "the report's width on a terminal" "no script(1) or stty"
	done_testing
fi
T=$(mktemp -d /tmp/systrace-test-width.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$TOP/user/tests/log_gen" -n 6 -k 9 -j 2 -o "$T/b.csv" 2>/dev/null

longest() { tr -d '\r' | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
# on_tty COLS ARGS...: the longest line of systracectl ARGS on a COLS-wide terminal.
on_tty() {
	local cols=$1 cmd
	shift
	printf -v cmd '%q ' "$CTL" "$@"
	script -qec "stty cols $cols; $cmd 2>/dev/null" /dev/null </dev/null | longest
}

eq "report phases --by process into a pipe: 100 columns" "$("$CTL" report phases --by process --input "$T/b.csv" | longest)" 100
eq "report phases --by process on an 80-column terminal: 80" "$(on_tty 80 report phases --by process --input "$T/b.csv")" 80
eq "report phases --by process on a 60-column terminal: 80, the least" "$(on_tty 60 report phases --by process --input "$T/b.csv")" 80
eq "report phases --by process on a 120-column terminal: 120" "$(on_tty 120 report phases --by process --input "$T/b.csv")" 120
eq "report phases --by process --wide on an 80-column terminal: whole, as into a pipe" \
	"$(on_tty 80 report phases --by process --input "$T/b.csv" --wide)" "$("$CTL" report phases --input "$T/b.csv" --wide | longest)"
"$CTL" report phases --by process --input "$T/b.csv" --wide | longest >"$T/wide"
eq "report phases --by process --wide is wider than 120 (the check above means something)" "$(($(cat "$T/wide") > 120))" 1
script -qec "stty cols 80; $(printf '%q ' "$CTL") report phases --by process --input $T/b.csv -o $T/out.txt" /dev/null </dev/null >/dev/null
eq "report -o FILE from an 80-column terminal: 100, as any file" "$(longest <"$T/out.txt")" 100
done_testing
