# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for selftests/test_*.sh. A test starts with
#
#   #!/usr/bin/env bash
#   # One line saying what the test checks.
#   # tags: foundation debug        (selftests/run selects tests by @tag)
#   # timeout: 300                  (optional, seconds)
#   . "$(dirname "$0")/lib.sh"
#
# and ends by falling off its end. Protocol with selftests/run: exit 0 is a
# pass, exit 4 a skip (the last "SKIP: reason" line says why), anything else
# a failure. Everything a test prints becomes TAP diagnostics. A test that
# has recorded a failed check (expect_*, a pycheck) fails, however it ends:
# skip then fails too, and so does exit 4. skip is for what the test cannot
# run without (root, a kernel feature); need_cmd and need_prog, for a
# package or a test program, skip too, except in CI (CI set, and not to
# "false" or "0"), where scripts/deps installs everything and their
# absence is a failure.
#
# assert_* stop the test at the first failure; expect_* report the failure,
# let the test go on, and make it fail at its end. Every message names what
# was checked, what was expected and what was seen.
#
# Set by selftests/run (defaults let a test also run on its own, as root,
# in the VM: scripts/vm-run -- selftests/test_x.sh):
#   TOP          the repository
#   SYSTRACE_KO  the module under test
#   SYSTRACECTL  user/systracectl
#   PROGS        selftests/progs/bin
#   T            a scratch directory of this test, removed afterwards
#   SYSTRACE_BACKEND  kmod (default) or bpf: with bpf (selftests/run bpf,
#                the host tier of make check) the tests trace through the
#                BPF backend on the running kernel; mod_load and the
#                mod_unload* helpers then delete every BPF session instead,
#                and mod_load's PARAM=VALUE become the limits' variables

set -u -o pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SYSTRACE_KO=${SYSTRACE_KO:-$TOP/build/$(uname -r)/kmod/systrace.ko}
SYSTRACECTL=${SYSTRACECTL:-$TOP/user/systracectl}
PROGS=${PROGS:-$TOP/selftests/progs/bin}
CSVQ=$TOP/selftests/csvq
if [ -z "${T:-}" ]; then
	T=$(mktemp -d /tmp/selftest.XXXXXX)
	_lib_own_t=1
fi
chmod 755 "$T"
# The tests manage their sessions themselves: start and attach keep them in
# the tracer (as --no-save) unless a test unsets SYSTRACE_NO_SAVE, and any
# store is the test's own (test_bpf_store.sh tests the run store).
export SYSTRACE_NO_SAVE=${SYSTRACE_NO_SAVE-1}
export SYSTRACE_STORE=${SYSTRACE_STORE:-$T/runs.db}

_lib_failed=0
_lib_cleanups=()

log() { echo "$*"; }

# Runs CMD... when the test ends, however it ends (last registered first).
on_exit() { _lib_cleanups=("$*" "${_lib_cleanups[@]}"); }

_lib_exit() {
	local rc=$? c
	for c in "${_lib_cleanups[@]}"; do
		eval "$c" || true
	done
	[ -z "${_lib_own_t:-}" ] || rm -rf "$T"
	if { [ $rc -eq 0 ] || [ $rc -eq 4 ]; } && [ $_lib_failed -ne 0 ]; then
		rc=1
	fi
	exit $rc
}
trap _lib_exit EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	if [ $_lib_failed -ne 0 ]; then
		echo "FAIL: a check failed before this skip ($*): the test fails"
		exit 1
	fi
	echo "SKIP: $*"
	exit 4
}

# CI set, and not to "false" or "0".
in_ci() { [ -n "${CI:-}" ] && [ "$CI" != false ] && [ "$CI" != 0 ]; }

# A package or a program the test needs is missing: a skip, or in CI a
# failure.
missing() {
	in_ci && fail "$* (CI runs every test: scripts/deps installs what they need)"
	skip "$*"
}

# expect_* record a failure and return 1; assert_* exit.
_lib_report() {
	echo "FAIL: $*"
	_lib_failed=1
	return 1
}

expect_eq() { # ACTUAL EXPECTED WHAT
	[ "$1" == "$2" ] || _lib_report "$3: expected '$2', got '$1'"
}
expect_ne() { # ACTUAL UNEXPECTED WHAT
	[ "$1" != "$2" ] || _lib_report "$3: expected anything but '$2'"
}
expect_le() { # ACTUAL MAX WHAT (integers)
	[ "$1" -le "$2" ] || _lib_report "$3: expected at most $2, got $1"
}
expect_ge() { # ACTUAL MIN WHAT (integers)
	[ "$1" -ge "$2" ] || _lib_report "$3: expected at least $2, got $1"
}
expect_match() { # TEXT ERE WHAT
	[[ $1 =~ $2 ]] || _lib_report "$3: expected to match /$2/, got '$1'"
}
expect_contains() { # TEXT SUBSTRING WHAT
	[[ $1 == *"$2"* ]] || _lib_report "$3: expected to contain '$2', got '$1'"
}
expect_not_contains() { # TEXT SUBSTRING WHAT
	[[ $1 != *"$2"* ]] || _lib_report "$3: expected not to contain '$2', got '$1'"
}
expect_line() { # TEXT ERE WHAT: some line of TEXT matches ERE
	local line
	while IFS= read -r line; do
		[[ $line =~ $2 ]] && return 0
	done <<<"$1"
	_lib_report "$3: no line matches /$2/ in:
$1"
}
assert_eq() { expect_eq "$@" || exit 1; }
assert_line() { expect_line "$@" || exit 1; }
assert_ne() { expect_ne "$@" || exit 1; }
assert_le() { expect_le "$@" || exit 1; }
assert_ge() { expect_ge "$@" || exit 1; }
assert_match() { expect_match "$@" || exit 1; }
assert_contains() { expect_contains "$@" || exit 1; }
assert_not_contains() { expect_not_contains "$@" || exit 1; }

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
# on_kasan: true on a KASAN kernel (the debug one), where every allocation,
# fork and exec is several times slower and kmemleak looks for leaks.
on_kasan() { grep -q -m 1 ' kasan_save_stack' /proc/kallsyms; }
need_cmd() { command -v "$1" >/dev/null || missing "needs $1${2:+ ($2)}"; }
need_prog() { [ -x "$PROGS/$1" ] || missing "$PROGS/$1 was not built${2:+: $2}"; }

# --- the module -----------------------------------------------------------

mod_loaded() { grep -q '^systrace ' /proc/modules; }

# shellcheck disable=SC2120 # the parameters are optional: mod_load alone is the usual call
mod_load() { # [PARAM=VALUE...]
	local out
	[ -f "$SYSTRACE_KO" ] || fail "no module at $SYSTRACE_KO (make modules-all)"
	out=$(insmod "$SYSTRACE_KO" "$@" 2>&1) || fail "insmod $SYSTRACE_KO $*: $out"
}

mod_unload() {
	local out
	out=$(rmmod systrace 2>&1) || fail "rmmod systrace: $out"
}

# For cleanups: unload if loaded, quietly.
mod_unload_quiet() { ! mod_loaded || rmmod systrace 2>/dev/null || true; }

# With the BPF backend there is no module: a test starts and ends with no
# BPF session, and mod_load's limits go to systracectl start.
bpf_sessions_delete() {
	[ -d /sys/fs/bpf/systrace ] || return 0
	SYSTRACE_BACKEND=bpf "$SYSTRACECTL" reset --all >/dev/null 2>"$T/.bpf_reset.err" ||
		fail "cannot delete the BPF sessions: $(cat "$T/.bpf_reset.err")"
}
if [ "${SYSTRACE_BACKEND:-kmod}" = bpf ]; then
	mod_loaded() { false; }
	# shellcheck disable=SC2120 # as mod_load above
	mod_load() {
		local p
		bpf_sessions_delete
		for p in "$@"; do
			case $p in
			max_procs=*) export SYSTRACE_MAX_PROCS=${p#*=} ;;
			max_sites=*) export SYSTRACE_MAX_SITES=${p#*=} ;;
			*) skip "the BPF backend has no parameter ${p%%=*}" ;;
			esac
		done
	}
	mod_unload() { bpf_sessions_delete; }
	mod_unload_quiet() { bpf_sessions_delete 2>/dev/null || true; }
fi

# Value of a module parameter as sysfs shows it.
mod_param() { cat "/sys/module/systrace/parameters/$1"; }

# --- systracectl ----------------------------------------------------------

# ctl ARGS...: runs systracectl and sets CTL_OUT, CTL_ERR and CTL_RC; never
# fails by itself.
ctl() {
	_lib_run "$SYSTRACECTL" "$@"
}

# ctl_ok ARGS...: ctl, and fail unless it exited 0.
ctl_ok() {
	ctl "$@"
	[ "$CTL_RC" -eq 0 ] || fail "systracectl $*: exit $CTL_RC, stderr: $CTL_ERR"
}

# kernel_sessions: the sessions in the tracer (module or BPF), as status
# --json lists them, "ID:NAME:STATE" a line. status saves nothing and frees
# nothing: a finished session stays until a command saves it.
kernel_sessions() {
	"$SYSTRACECTL" status --json >"$T/status.json" || fail "status --json"
	[ "$(csvq -f "$T/status.json" --json len sessions)" -gt 0 ] || return 0
	paste -d: <(csvq -f "$T/status.json" --json pick sessions id) \
		<(csvq -f "$T/status.json" --json pick sessions name) \
		<(csvq -f "$T/status.json" --json pick sessions state)
}

# as_nobody CMD...: runs CMD as uid/gid 65534 with no groups, and sets
# CTL_OUT, CTL_ERR and CTL_RC. A program under a private directory (a CI
# clone in a mktemp dir is 0700) is copied where nobody can run it.
as_nobody() {
	local prog=$1
	shift
	if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$prog"; then
		mkdir -p "$T/nobody"
		chmod 755 "$T/nobody"
		cp "$prog" "$T/nobody/"
		prog=$T/nobody/$(basename "$prog")
		chmod 755 "$prog"
	fi
	_lib_run setpriv --reuid=65534 --regid=65534 --clear-groups "$prog" "$@"
}

_lib_run() {
	"$@" >"$T/.out" 2>"$T/.err"
	CTL_RC=$?
	# shellcheck disable=SC2034 # for the test, as CTL_RC and CTL_ERR
	CTL_OUT=$(<"$T/.out")
	CTL_ERR=$(<"$T/.err")
	return 0
}

# csvq: queries of CSV and JSON output (see selftests/csvq --help).
csvq() { "$CSVQ" "$@"; }

# --- the kernel -----------------------------------------------------------

# klog_mark sets KLOG_MARK; klog_since prints the kernel log lines after it.
klog_mark() { KLOG_MARK=$(dmesg | wc -l); }
klog_since() { dmesg | tail -n +"$((KLOG_MARK + 1))"; }

# Bytes in slab objects now in use: the sum of active_objs * objsize over
# every cache of /proc/slabinfo.
slab_bytes() {
	awk 'NR > 2 { sum += $2 * $4 } END { printf "%d\n", sum }' /proc/slabinfo
}

# The same over the kmalloc-* caches only, where a module's kmalloc()s go.
kmalloc_bytes() {
	awk 'NR > 2 && $1 ~ /^kmalloc-/ { sum += $2 * $4 } END { printf "%d\n", sum }' /proc/slabinfo
}

# Puts the kernel's reclaimable caches back to a comparable state.
settle_memory() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
}

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
