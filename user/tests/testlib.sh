# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers of the host shell tests user/tests/test_*.sh, which
# `make -C user test` runs after the unit tests (make check's host tier): TAP
# output, and what systracectl's --help and the man pages list.
#
#   . "$(dirname "$0")/testlib.sh"
#   eq "what is checked" "$got" "$want"
#   done_testing
#
# Each test prints "ok N - NAME" or "not ok N - NAME" with "# " diagnostics,
# or "ok N - NAME # SKIP REASON", then "1..N"; done_testing exits 1 when a
# test failed.

set -u -o pipefail
# A test may run make itself: not as part of the make that runs it.
unset MAKEFLAGS MFLAGS MAKELEVEL
# Sorting and matching bytes, whatever the caller's locale.
export LC_ALL=C

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CTL=$TOP/user/systracectl
# The host's run store is not the tests': a store of their own that does
# not exist (readers never make one), and nothing of theirs is saved.
export SYSTRACE_STORE=/nonexistent/systrace-tests/runs.db SYSTRACE_NO_SAVE=1

_tap_n=0
_tap_failed=0

ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_failed=1; echo "not ok $_tap_n - $*"; }
# skip NAME REASON: a TAP skip; in CI (CI set, not "false" or "0"), where
# scripts/deps installs everything, a failure.
skip() {
	if [ -n "${CI:-}" ] && [ "$CI" != false ] && [ "$CI" != 0 ]; then
		not_ok "$1"
		echo "would skip ($2), but CI is set: scripts/deps installs what every test needs" | diag
		return
	fi
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1 # SKIP $2"
}
diag() { sed 's/^/# /'; }

# eq NAME GOT WANT: one test, passed when GOT is WANT exactly.
eq() {
	if [ "$2" == "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		{
			echo "expected:"
			printf '%s\n' "$3" | sed 's/^/  /'
			echo "got:"
			printf '%s\n' "$2" | sed 's/^/  /'
		} | diag
	fi
}

# same_set NAME GOT WANT: GOT and WANT (one item a line) hold the same
# items; the diagnostics name what only one of them has.
same_set() {
	local only_got only_want
	only_got=$(comm -23 <(sort -u <<<"$2") <(sort -u <<<"$3") | paste -sd' ')
	only_want=$(comm -13 <(sort -u <<<"$2") <(sort -u <<<"$3") | paste -sd' ')
	if [ -z "$only_got$only_want" ] && [ -n "$2" ]; then
		ok "$1"
	else
		not_ok "$1"
		{
			[ -z "$only_want" ] || echo "missing: $only_want"
			[ -z "$only_got" ] || echo "not expected: $only_got"
			[ -n "$2" ] || echo "nothing found"
		} | diag
	fi
}

done_testing() {
	echo "1..$_tap_n"
	exit $_tap_failed
}

# option_words: the options of each line of stdin that starts with an
# option list ("-o, --output FILE  write ..." gives -o and --output): its
# leading words that start with "-", skipping placeholders (FILE, N) and
# stopping at the first other word.
option_words() {
	awk '{
		for (i = 1; i <= NF; i++) {
			w = $i
			sub(/,$/, "", w)
			if (w ~ /^-/)
				print w
			else if (w !~ /^[A-Z][A-Z_]*$/)
				break
		}
	}'
}

# help_subcommands: the subcommands `systracectl --help` lists.
help_subcommands() {
	"$CTL" --help | awk '/^Subcommands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }'
}

# help_options SUBCOMMAND: the options its --help lists, one a line.
help_options() {
	"$CTL" "$1" --help | grep -E '^  -' | option_words
}

# help_reports: the lines of `systracectl report --help` that name a
# report and its own options ("short [--max-ms MS] [--threshold N] [--top K]").
help_reports() {
	"$CTL" report --help | awk '/REPORT is one of:/ { on = 1; next }
		on && /^  -/ { exit } on && /^  [a-z]/ { sub(/^  /, ""); print }'
}

# man_terms PAGE SECTION: the definition terms (scdoc's "TERM" lines with
# an indented paragraph under them) of SECTION of the rendered page PAGE,
# as "SUBSECTION<TAB>TERM" with the font escapes removed.
man_terms() {
	awk -v want="$2" '
	function clean(s) {
		gsub(/\\f[BIRP]/, "", s)
		gsub(/\\&/, "", s)
		gsub(/\\-/, "-", s)
		return s
	}
	/^\.SH / { s = substr($0, 5); gsub(/"/, "", s); insec = (s == want); ss = ""; prev = ""; next }
	/^\.SS / { ss = substr($0, 5); gsub(/"/, "", ss); prev = ""; next }
	/^\.RS/ { if (insec && prev != "" && prev !~ /^\./) print ss "\t" clean(prev) }
	{ prev = $0 }' "$1"
}

# man_subsections PAGE SECTION: the .SS headings of SECTION of PAGE.
man_subsections() {
	awk -v want="$2" '
	/^\.SH / { s = substr($0, 5); gsub(/"/, "", s); insec = (s == want); next }
	insec && /^\.SS / { s = substr($0, 5); gsub(/"/, "", s); print s }' "$1"
}
