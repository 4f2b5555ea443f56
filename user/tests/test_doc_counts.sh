#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The numbers of tests the docs give are the suite's: every "N selftests"
# (all of them) and every "N selftests tagged `TAG`" or "N tests tagged
# `TAG`" in README.md and docs/*.md equals what selftests/run -l selects,
# and every "N unit tests" the TEST()s of user/tests/*.c, so that a new
# test or tag cannot leave a stale count behind.
. "$(dirname "$0")/testlib.sh"

# count [@TAG]: the selftests selftests/run selects.
count() { "$TOP/selftests/run" -l x "$@" | grep -c .; }

all=$(count)
[ "$all" -gt 0 ] || not_ok "selftests/run -l lists the selftests"
units=$(cat "$TOP"/user/tests/test_*.c | grep -c '^TEST(')

for doc in "$TOP/README.md" "$TOP"/docs/*.md; do
	name=${doc#"$TOP"/}
	# One claim a line: "FILE:LINE:N TAG", TAG empty for all of them.
	# shellcheck disable=SC2016 # the backquotes are the docs' markdown
	claims=$(grep -n -o -E '[0-9]+ (selftests|tests) tagged `[a-z0-9-]+`|[0-9]+ selftests|[0-9]+ unit tests' "$doc" |
		sed -E -e 's/^([0-9]+):([0-9]+) unit tests$/\1 \2 :unit/' \
			-e 's/^([0-9]+):([0-9]+) [a-z]+( tagged `([a-z0-9-]+)`)?$/\1 \2 \4/')
	while read -r line n tag; do
		[ -n "$line" ] || continue
		if [ "$tag" = :unit ]; then
			eq "$name:$line: $n unit tests" "$n" "$units"
		elif [ -n "$tag" ]; then
			eq "$name:$line: $n tests tagged $tag" "$n" "$(count "@$tag")"
		else
			eq "$name:$line: $n selftests in all" "$n" "$all"
		fi
	done <<<"$claims"
done
done_testing
