#!/usr/bin/env bash
# Installing for daily use, in the guest (its root is a writable overlay):
# make install-dkms (dkms add of the tree in /usr/src, dkms install -k for
# this kernel) builds the module with DKMS; modprobe finds it; the installed
# systracectl traces `sites 1000 250 37` with exact counts per site; the
# installed bash completion offers the session's id and name and each
# report's tables as report --json has them; modprobe -r, make uninstall-dkms
# (dkms remove) leave no trace; dkms add takes a staged tree (make dkms-src
# DESTDIR=...). Then make install-module puts the module under test in
# updates/, depmod makes modprobe find it, and make uninstall-module takes it
# away again.
#
# It is slow, so it runs only when SYSTRACE_TEST_DKMS=1 (scripts/vm-run
# passes SYSTRACE_* variables into the guest): in a 6.1 guest on a 2-core
# host at load 9 to 13, make install-dkms took 806 s (the DKMS build under
# TCG, then depmod), uninstall-dkms 180 s, install-module 175 s and
# uninstall-module 90 s (each depmod reads the kernel's whole module tree
# over 9p), about 25 minutes in all: more than make check gives a whole
# guest (CHECK_VM_TIMEOUT, 1500 s).
# tags: install
# timeout: 3000
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
[ "${SYSTRACE_TEST_DKMS:-0}" = 1 ] ||
	skip "slow (about 25 minutes under TCG on a loaded host: a DKMS build and four depmod runs); run it with SYSTRACE_TEST_DKMS=1"
need_cmd dkms "the dkms package: scripts/deps"
need_cmd make
need_cmd cc
need_prog sites
K=$(uname -r)
[ -d "/lib/modules/$K/build" ] || skip "no headers for $K (/lib/modules/$K/build: linux-headers-$K)"
grep -q '^CONFIG_FTRACE_SYSCALLS=y' "/lib/modules/$K/build/.config" 2>/dev/null ||
	skip "the headers of $K have no CONFIG_FTRACE_SYSCALLS=y: dkms.conf excludes this kernel"

V=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
assert_ne "$V" "" "PACKAGE_VERSION in dkms.conf"
PREFIX=$T/prefix
CTL=$PREFIX/bin/systracectl

# mk NAME ARGS...: make -C TOP ARGS, its output in $T/NAME.log; fails the
# test with the log's tail (and DKMS's build log) when make fails.
mk() {
	local name=$1 t0=$SECONDS rc
	shift
	make -s -C "$TOP" "$@" >"$T/$name.log" 2>&1
	rc=$?
	log "make $*: exit $rc, $((SECONDS - t0)) s"
	[ $rc -eq 0 ] && return 0
	tail -n 40 "$T/$name.log"
	for f in /var/lib/dkms/systrace/*/build/make.log; do
		[ -f "$f" ] && { echo "$f:"; tail -n 40 "$f"; }
	done
	fail "make $* failed"
}
# Its stdout: dkms status may also warn on stderr (on 6.12, of readelf's
# missing .comment section of the kernel's), which is not its answer.
dkms_status() { dkms status systrace/"$V" 2>/dev/null; }

# Nothing of systrace's may be installed already: the cleanups below
# remove what the test installs.
assert_eq "$(dkms_status)" "" "dkms status before the install"
assert_eq "$(ls -d /usr/src/systrace-"$V" /lib/modules/"$K"/updates/systrace.ko 2>/dev/null)" "" \
	"systrace installed before the test"
on_exit mod_unload_quiet
on_exit "[ -z \"\$(dkms status systrace/$V 2>/dev/null)\" ] || dkms remove systrace/$V --all >/dev/null 2>&1; rm -rf /usr/src/systrace-$V"

# --- DKMS ---------------------------------------------------------------
mk install-dkms install-dkms PREFIX="$PREFIX" DKMS_KVERS="$K"
assert_eq "$(dkms_status)" "systrace/$V, $K, $(uname -m): installed" "dkms status after make install-dkms"
ko=$(modinfo -n systrace 2>&1)
assert_eq "$(dirname "$ko")" "/lib/modules/$K/updates/dkms" "directory of the module modprobe finds (modinfo -n: $ko)"
expect_match "$(basename "$ko")" '^systrace\.ko(\.(xz|gz|zst))?$' "file of the module modprobe finds"
expect_eq "$(modinfo -F version systrace)" "$V" "modinfo version of the DKMS module (PACKAGE_VERSION)"
expect_eq "$(modinfo -F vermagic systrace | cut -d' ' -f1)" "$K" "vermagic of the DKMS module"
expect_eq "$(cd "$PREFIX" && find . -type f -printf '%P\n' | sort | paste -sd' ')" \
	"bin/systracectl share/bash-completion/completions/systracectl share/man/man4/systrace.4 share/man/man8/systracectl.8" \
	"files make install-dkms put under PREFIX"

out=$(modprobe systrace 2>&1) || fail "modprobe systrace: $out"
assert_eq "$(cat /sys/module/systrace/version)" "$V" "version of the loaded module"
# shellcheck disable=SC2034 # lib.sh's ctl and trace_lib.sh's trace use it
SYSTRACECTL=$CTL
ctl_ok status
expect_line "$CTL_OUT" "^module version: +${V//./\\.}\$" "installed systracectl status: module version"

# A traced run with known counts (as trace_sites): 1000 and 250 getppid
# from two instructions, 37 failing close(-1) from a third.
P=$PROGS/sites
off_a=$(elf_offset "$P" site_a_insn) || exit 1
off_b=$(elf_offset "$P" site_b_insn) || exit 1
off_c=$(elf_offset "$P" site_c_insn) || exit 1
trace --name dkms -- "$P" 1000 250 37
assert_eq "$TRACE_RC" 0 "exit status of systracectl start (the program's)"

# The installed completion: this session's id and name, and the tables of
# each report as report --json gives them.
comp=$PREFIX/share/bash-completion/completions/systracectl
complete_() { # WORD...: COMPREPLY, space-separated, for the line WORD... ""
	PATH=$PREFIX/bin:$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@" ""); COMP_CWORD=$#; _systracectl; echo "${COMPREPLY[*]}"' _ "$comp" "$@"
}
expect_eq "$(complete_ systracectl dump)" "$SID dkms" "completion of 'systracectl dump '"
expect_eq "$(complete_ systracectl report syscalls)" "$SID dkms" "completion of 'systracectl report syscalls '"
for r in amortize short phases syscalls; do
	ctl_ok report "$r" "$SID" --json
	tables=$(python3 "$TOP/selftests/test_dkms.tables.py" "$CTL_OUT")
	expect_eq "$(complete_ systracectl report "$r" --csv --table | tr ' ' '\n' | sort | paste -sd' ')" "$tables" \
		"completion of 'report $r --csv --table ' against the tables of report $r --json"
done

pycheck test_dkms.py "$D" "$P" "$off_a" "$off_b" "$off_c"

out=$(modprobe -r systrace 2>&1) || fail "modprobe -r systrace: $out"
mk uninstall-dkms uninstall-dkms PREFIX="$PREFIX"
expect_eq "$(dkms_status)" "" "dkms status after make uninstall-dkms"
expect_eq "$(ls /lib/modules/"$K"/updates/dkms/systrace.ko* 2>/dev/null)" "" "DKMS module file after make uninstall-dkms"
expect_eq "$(modinfo -n systrace 2>/dev/null)" "" "a systrace module modprobe finds after make uninstall-dkms"
expect_eq "$(ls -A /usr/src/systrace-"$V" 2>/dev/null; find "$PREFIX" -type f)" "" \
	"files left by make uninstall-dkms (/usr/src/systrace-$V, PREFIX)"

# dkms add DIR: a staged tree, copied to /usr/src/systrace-V.
mk dkms-src dkms-src DESTDIR="$T/stage"
out=$(dkms add "$T/stage/usr/src/systrace-$V" 2>&1) || fail "dkms add $T/stage/usr/src/systrace-$V: $out"
expect_eq "$(dkms_status)" "systrace/$V: added" "dkms status after dkms add of a staged tree"
expect_eq "$(diff -r "$T/stage/usr/src/systrace-$V" "/usr/src/systrace-$V" 2>&1)" "" "the tree dkms add copied"
out=$(dkms remove systrace/"$V" --all 2>&1) || fail "dkms remove systrace/$V --all: $out"
expect_eq "$(dkms_status)" "" "dkms status after dkms remove"
rm -rf "/usr/src/systrace-$V"

# --- make install-module: the module under test, in updates/ --------------
# The same SYSTRACE_VERSION as the module's build, so that kbuild finds it
# up to date.
built=$TOP/build/$K/kmod/systrace.ko
[ -f "$built" ] || fail "no $built (make modules-all)"
bv=$(modinfo -F version "$built")
# Only when the test stopped before its own uninstall: depmod is slow here.
on_exit "[ ! -e '/lib/modules/$K/updates/systrace.ko' ] || make -s -C '$TOP' uninstall-module KVER='$K' >/dev/null 2>&1"
mk install-module install-module KVER="$K" SYSTRACE_VERSION="$bv"
expect_eq "$(modinfo -n systrace 2>&1)" "/lib/modules/$K/updates/systrace.ko" "the module modprobe finds after make install-module (depmod ran)"
out=$(modprobe systrace 2>&1) || fail "modprobe systrace: $out"
expect_eq "$(cat /sys/module/systrace/version)" "$bv" "version of the module make install put in updates/"
out=$(modprobe -r systrace 2>&1) || fail "modprobe -r systrace: $out"
mk uninstall-module uninstall-module KVER="$K"
expect_eq "$(ls /lib/modules/"$K"/updates/systrace.ko 2>/dev/null)" "" "module file after make uninstall-module"
expect_eq "$(modinfo -n systrace 2>/dev/null)" "" "a systrace module modprobe finds after make uninstall-module"
