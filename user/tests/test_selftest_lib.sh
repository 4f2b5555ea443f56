#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The verdicts of selftests/lib.sh: a skip is exit 4 with its "SKIP:" line;
# a test that recorded a failed check (expect_*) fails however it ends, by
# skip, by exit 4 or by falling off its end; need_cmd and need_prog of a
# missing piece skip, but fail when CI is set.
. "$(dirname "$0")/testlib.sh"

S=$(mktemp -d /tmp/selftest-lib.XXXXXX)
trap 'rm -rf "$S"' EXIT

# verdict NAME WANT-STATUS WANT-LINE ENV BODY: a test whose body is BODY,
# run with the environment ENV, exits WANT-STATUS and prints a line
# matching WANT-LINE.
verdict() {
	local name=$1 want=$2 line=$3 env=$4 body=$5 got out
	printf '. "%s/selftests/lib.sh"\n%s\n' "$TOP" "$body" >"$S/test_x.sh"
	# shellcheck disable=SC2086 # ENV: NAME=VALUE words
	out=$(env -u CI $env T="$S/t" PROGS="$S/progs" bash "$S/test_x.sh" 2>&1)
	got=$?
	mkdir -p "$S/t"
	if [ "$got" = "$want" ] && grep -Eq "$line" <<<"$out"; then
		ok "$name"
	else
		not_ok "$name"
		printf 'exit %s (want %s), output:\n%s\n' "$got" "$want" "$out" | diag
	fi
}

mkdir -p "$S/t"
verdict "skip: exit 4 and its reason" 4 '^SKIP: no widget$' "" 'skip "no widget"'
verdict "a pass: exit 0" 0 '' "" 'expect_eq 1 1 "one"'
verdict "a failed expect_*: exit 1 at the end" 1 "^FAIL: one: expected '2', got '1'$" "" \
	'expect_eq 1 2 "one"'
verdict "skip after a failed expect_*: a failure" 1 '^FAIL: a check failed before this skip \(no widget\)' "" \
	'expect_eq 1 2 "one"; skip "no widget"'
verdict "exit 4 after a failed expect_*: a failure" 1 "^FAIL: one" "" \
	'expect_eq 1 2 "one"; exit 4'
verdict "need_cmd of a missing command: a skip" 4 '^SKIP: needs no-such-cmd \(no-such-package\)$' "" \
	'need_cmd no-such-cmd no-such-package'
verdict "need_cmd of a missing command in CI: a failure" 1 '^FAIL: needs no-such-cmd .*scripts/deps' "CI=true" \
	'need_cmd no-such-cmd no-such-package'
verdict "need_prog of a program not built in CI: a failure" 1 '^FAIL: .*/progs/nope was not built' "CI=1" \
	'need_prog nope'
verdict "need_cmd with CI=false: a skip" 4 '^SKIP: needs no-such-cmd' "CI=false" \
	'need_cmd no-such-cmd'
verdict "need_root as root, or its skip" "$([ "$(id -u)" -eq 0 ] && echo 0 || echo 4)" '' "" 'need_root'
done_testing
