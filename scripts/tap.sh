# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The TAP lines of the test drivers (selftests/run, scripts/check,
# scripts/vm-run-selftest, scripts/debug-selftest), sourced by each:
#
#   tap_report pass|skip|fail NAME [DIRECTIVE]
#       "ok N - NAME", "ok N - NAME # SKIP DIRECTIVE" or
#       "not ok N - NAME # DIRECTIVE", N counting from 1
#   tap_counts
#       "P passed, F failed, S skipped"
#   tap_skips
#       one line per skip so far, "NAME: REASON" (nothing when none)
#
# TAP_N, TAP_PASSED, TAP_FAILED and TAP_SKIPPED count the results so far;
# TAP_SKIPS holds the skips as tap_skips prints them. A skip always has a
# reason: without one it is reported as a failure.

TAP_N=0 TAP_PASSED=0 TAP_FAILED=0 TAP_SKIPPED=0
TAP_SKIPS=()

tap_report() {
	TAP_N=$((TAP_N + 1))
	case $1 in
	pass) TAP_PASSED=$((TAP_PASSED + 1)); echo "ok $TAP_N - $2" ;;
	skip)
		if [ -n "${3:-}" ]; then
			TAP_SKIPPED=$((TAP_SKIPPED + 1))
			TAP_SKIPS+=("$2: $3")
			echo "ok $TAP_N - $2 # SKIP $3"
		else
			TAP_FAILED=$((TAP_FAILED + 1))
			echo "not ok $TAP_N - $2 # skipped without a reason"
		fi
		;;
	*) TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N - $2${3:+ # $3}" ;;
	esac
}

tap_counts() { echo "$TAP_PASSED passed, $TAP_FAILED failed, $TAP_SKIPPED skipped"; }

tap_skips() { [ ${#TAP_SKIPS[@]} -eq 0 ] || printf '%s\n' "${TAP_SKIPS[@]}"; }
