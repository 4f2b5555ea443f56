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
#
# TAP_N, TAP_PASSED, TAP_FAILED and TAP_SKIPPED count the results so far.

TAP_N=0 TAP_PASSED=0 TAP_FAILED=0 TAP_SKIPPED=0

tap_report() {
	TAP_N=$((TAP_N + 1))
	case $1 in
	pass) TAP_PASSED=$((TAP_PASSED + 1)); echo "ok $TAP_N - $2" ;;
	skip) TAP_SKIPPED=$((TAP_SKIPPED + 1)); echo "ok $TAP_N - $2 # SKIP ${3:-}" ;;
	*) TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N - $2${3:+ # $3}" ;;
	esac
}

tap_counts() { echo "$TAP_PASSED passed, $TAP_FAILED failed, $TAP_SKIPPED skipped"; }
