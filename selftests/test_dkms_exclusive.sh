#!/usr/bin/env bash
# Which kernels DKMS builds the module for, as dkms.conf says, asked of
# dkms itself (dkms build of the added tree, in the guest's writable root)
# for made-up kernels whose source directory holds only a .config, so that
# nothing is compiled:
#   - a PREEMPT_RT kernel: refused (exit 77, the BUILD_EXCLUSIVE message);
#   - 6.13 and 5.15, outside the verified 6.1 to 6.12: refused, and built
#     (past the check) with SYSTRACE_ALLOW_UNTESTED_KERNEL=1 in dkms's
#     environment;
#   - 6.1 and 6.12 with the needed options: past the check;
#   - a kernel without CONFIG_FTRACE_SYSCALLS: refused.
# "Past the check" is a build that fails for want of a real kernel tree,
# not with the refusal.
# tags: install full
# timeout: 300
. "$(dirname "$0")/lib.sh"
need_root
need_cmd dkms "the dkms package: scripts/deps"
need_cmd make

V=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
assert_ne "$V" "" "PACKAGE_VERSION in dkms.conf"
assert_eq "$(dkms status systrace/"$V" 2>&1)" "" "dkms status before the test (systrace must not be installed)"
[ ! -e "/usr/src/systrace-$V" ] || fail "/usr/src/systrace-$V exists already"
make -s -C "$TOP" dkms-src DESTDIR="$T/stage" >"$T/stage.log" 2>&1 || fail "make dkms-src: $(cat "$T/stage.log")"
on_exit "dkms remove systrace/$V --all >/dev/null 2>&1; rm -rf /usr/src/systrace-$V"
dkms add "$T/stage/usr/src/systrace-$V" >"$T/add.log" 2>&1 || fail "dkms add: $(cat "$T/add.log")"

good='CONFIG_FTRACE_SYSCALLS=y
CONFIG_PERF_EVENTS=y'
# build KVER CONFIG [VAR=VAL]: dkms build for KVER, whose source directory
# has CONFIG as its .config; sets RC and OUT.
build() {
	local k=$1 dir=$T/src/$1
	mkdir -p "$dir"
	printf '%s\n' "$2" >"$dir/.config"
	OUT=$(env ${3:+"$3"} dkms build "systrace/$V" -k "$k" --kernelsourcedir "$dir" 2>&1)
	RC=$?
	log "dkms build -k $k ${3:-}: exit $RC: $(tr '\n' ' ' <<<"$OUT" | cut -c1-300)"
	rm -rf "/var/lib/dkms/systrace/$V/$k"
}
refused() { # WHAT
	expect_eq "$RC" 77 "$1: dkms build's exit status"
	expect_contains "$OUT" "BUILD_EXCLUSIVE directive which does not match this kernel" "$1: dkms's message"
}
built() { # WHAT
	expect_ne "$RC" 77 "$1: dkms build's exit status"
	expect_not_contains "$OUT" "BUILD_EXCLUSIVE" "$1: dkms's output"
}

build 6.1.0-57-rt-amd64 "$good
CONFIG_PREEMPT_RT=y"
refused "PREEMPT_RT"
build 6.1.0-57-rt-amd64 "$good
CONFIG_PREEMPT_RT=y" SYSTRACE_ALLOW_UNTESTED_KERNEL=1
refused "PREEMPT_RT, with SYSTRACE_ALLOW_UNTESTED_KERNEL=1"
build 6.13.0-1-amd64 "$good"
refused "6.13"
build 6.13.0-1-amd64 "$good" SYSTRACE_ALLOW_UNTESTED_KERNEL=1
built "6.13 with SYSTRACE_ALLOW_UNTESTED_KERNEL=1"
build 5.15.0-1-amd64 "$good"
refused "5.15"
build 6.1.0-57-amd64 "$good"
built "6.1"
build 6.12.117+deb12-amd64 "$good"
built "6.12"
build 6.1.0-57-amd64 'CONFIG_PERF_EVENTS=y'
refused "no CONFIG_FTRACE_SYSCALLS"
