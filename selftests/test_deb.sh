#!/usr/bin/env bash
# The Debian packages, in the guest (its root is a writable overlay): dpkg
# installs systracectl and systrace-dkms from build/deb/ (make deb, on the
# host, before the guest starts); systrace-dkms's postinst has DKMS build
# the module for this kernel, without the test knobs; modprobe finds it; the
# installed systracectl traces `sites 1000 250 37` with exact counts per
# site and saves the run into the default store, /var/lib/systrace; dpkg
# --purge of both removes the module (dkms remove), the sources, the
# commands, the store, and leaves the file list of every place they touched
# as it was before (but for the signing key dkms makes at its first build),
# and modules.dep byte for byte.
#
# DKMS's postinst builds for the running kernel and for the newest one of
# /boot/config-*: the test moves the other kernels' config files aside for
# its run (in the overlay), and the host's run store too, so that one DKMS build and one depmod per step
# is what it waits for. Slow under TCG, as test_dkms: it runs only when
# SYSTRACE_TEST_DEB=1 (scripts/vm-run passes SYSTRACE_* variables into the
# guest), and only on an overlay root, never on a real host's: make
# check-full runs it in each Debian guest. Each line of dpkg's output is
# printed with its second since dpkg started, so a run shows where its time
# went (DKMS's build of the module under TCG, most of it).
# tags: install
# timeout: 3000
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
[ "${SYSTRACE_TEST_DEB:-0}" = 1 ] ||
	skip "slow (a DKMS build and two depmod runs under TCG); make check-full runs it, SYSTRACE_TEST_DEB=1 runs it here"
[ "$(stat -f -c %T /)" = overlayfs ] ||
	skip "installs packages for real: runs only in a guest whose root is an overlay (scripts/vm-run)"
need_cmd dpkg
need_cmd dkms "the dkms package: scripts/deps"
need_prog sites
K=$(uname -r)
[ -d "/lib/modules/$K/build" ] || skip "no headers for $K (/lib/modules/$K/build: linux-headers-$K)"
grep -q '^CONFIG_FTRACE_SYSCALLS=y' "/lib/modules/$K/build/.config" 2>/dev/null ||
	skip "the headers of $K have no CONFIG_FTRACE_SYSCALLS=y: dkms.conf excludes this kernel"

V=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
assert_ne "$V" "" "PACKAGE_VERSION in dkms.conf"
DEBS=${SYSTRACE_DEB_DIR:-$TOP/build/deb}
ctl_deb=$(ls "$DEBS"/systracectl_*_amd64.deb 2>/dev/null)
dkms_deb=$(ls "$DEBS"/systrace-dkms_*_all.deb 2>/dev/null)
if [ -z "$ctl_deb" ] || [ -z "$dkms_deb" ]; then missing "no packages in $DEBS (make deb)"; fi
DV=$(dpkg-deb -f "$ctl_deb" Version)
assert_eq "$(dpkg-deb -f "$dkms_deb" Version)" "$DV" "version of systrace-dkms (that of systracectl)"

# Its stdout: on 6.12 dkms status also warns on stderr about readelf's
# missing .comment section of the kernel's.
dkms_status() { dkms status systrace/"$V" 2>/dev/null; }
# dpkg_timed LOG ARG...: dpkg ARG..., each line of its output printed after
# the second since dpkg started, and kept in LOG; dpkg's exit status.
dpkg_timed() {
	local file=$1 t0=$SECONDS l
	shift
	dpkg "$@" 2>&1 | while IFS= read -r l; do printf '%4d %s\n' $((SECONDS - t0)) "$l"; done | tee "$file"
	return "${PIPESTATUS[0]}"
}
pkg_status() { dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' systracectl systrace-dkms 2>/dev/null; }
# Every place the packages touch: the names below them, and modules.dep.
PLACES=(/usr/bin /usr/sbin /usr/src /usr/share/man/man4 /usr/share/man/man8
	/usr/share/doc /usr/share/bash-completion/completions /var/lib/dkms
	/var/lib/systrace /var/lib/dpkg/info "/lib/modules/$K")
snapshot() { # FILE
	find "${PLACES[@]}" 2>/dev/null | sort >"$1"
	md5sum "/lib/modules/$K/modules.dep" >>"$1"
}

assert_eq "$(pkg_status | awk '$2 != "un"')" "" "systrace's packages installed before the test"
assert_eq "$(dkms_status)" "" "dkms status before the install"
assert_eq "$(ls -d /usr/src/systrace-"$V" 2>/dev/null)" "" "systrace's DKMS sources before the test"
# The host's run store, if any (the guest sees the host's root), aside
# for the test's run (in the overlay): the purge removes the store. Put
# back last, after the cleanups' purge (on_exit runs the last one first).
if [ -e /var/lib/systrace ]; then
	mv /var/lib/systrace "$T/store" || fail "mv /var/lib/systrace $T/store"
	on_exit "rm -rf /var/lib/systrace; mv '$T/store' /var/lib/systrace"
fi
on_exit mod_unload_quiet
on_exit "dpkg --purge systrace-dkms systracectl >/dev/null 2>&1"

# The other kernels' configs, aside: DKMS builds for this kernel only.
mkdir "$T/boot"
for f in /boot/config-*; do
	[ "$f" = "/boot/config-$K" ] || [ ! -e "$f" ] || mv "$f" "$T/boot/"
done
on_exit "mv '$T'/boot/config-* /boot/ 2>/dev/null"
snapshot "$T/before"
log "file list before: test at $SECONDS s"

# --- install ----------------------------------------------------------------
t0=$SECONDS
dpkg_timed "$T/install.log" -i "$ctl_deb" "$dkms_deb"
rc=$?
log "dpkg -i systracectl systrace-dkms: exit $rc, $((SECONDS - t0)) s"
if [ $rc -ne 0 ]; then
	for f in /var/lib/dkms/systrace/*/build/make.log; do
		[ -f "$f" ] && { echo "$f:"; tail -n 40 "$f"; }
	done
	fail "dpkg -i failed"
fi
expect_eq "$(pkg_status | sort)" "systrace-dkms ii "$'\n'"systracectl ii " "dpkg status after dpkg -i"
assert_eq "$(dkms_status)" "systrace/$V, $K, $(uname -m): installed" "dkms status after dpkg -i"
expect_eq "$(dpkg -L systracectl | while read -r f; do [ -d "$f" ] || echo "$f"; done | sort | paste -sd' ')" \
	"/usr/bin/systracectl /usr/share/bash-completion/completions/systracectl /usr/share/doc/systracectl/changelog.gz /usr/share/doc/systracectl/copyright /usr/share/lintian/overrides/systracectl /usr/share/man/man4/systrace.4.gz /usr/share/man/man8/systracectl.8.gz" \
	"files of systracectl (dpkg -L)"
expect_eq "$(cd /usr/src/systrace-"$V" && find . -type f -printf '%P\n' | LC_ALL=C sort | paste -sd' ')" \
	"$(cd "$TOP" && { printf '%s\n' dkms.conf Kbuild include/uapi/linux/systrace.h; find kmod -maxdepth 1 \( -name '*.[ch]' -o -name Kbuild \) ! -name '*.mod.c'; } | LC_ALL=C sort | paste -sd' ')" \
	"the sources in /usr/src/systrace-$V (the Makefile's DKMS_FILES)"
ko=$(modinfo -n systrace 2>&1)
assert_eq "$(dirname "$ko")" "/lib/modules/$K/updates/dkms" "directory of the module modprobe finds (modinfo -n: $ko)"
expect_eq "$(modinfo -F version systrace)" "$V" "modinfo version of the DKMS module"
expect_eq "$(modinfo -F vermagic systrace | cut -d' ' -f1)" "$K" "vermagic of the DKMS module"
# Without SYSTRACE_TESTING: none of the test builds' parameters.
expect_eq "$(modinfo -F parm systrace | grep -c 'Testing:')" 0 "test knobs in the DKMS module (modinfo parm 'Testing:')"
expect_ne "$(modinfo -F parm systrace | grep -c '^max_mem_total:')" 0 "parameter max_mem_total in modinfo (the check above reads parms)"

out=$(modprobe systrace 2>&1) || fail "modprobe systrace: $out"
assert_eq "$(cat /sys/module/systrace/version)" "$V" "version of the loaded module"
expect_eq "$(find /sys/module/systrace/parameters/ -name force_late_resolve -o -name 'test_*' | wc -l)" 0 \
	"test knobs among the loaded module's parameters"

# The installed systracectl, its version that of the package's build.
# shellcheck disable=SC2034 # lib.sh's ctl and trace_lib.sh's trace use it
SYSTRACECTL=/usr/bin/systracectl
# The package's version ends with it, its '-' turned into '.' (make deb).
ctl_ok --version
gv=$(sed -n 's/^systracectl \([^ ]*\) (systrace ABI [0-9]*)$/\1/p' <<<"$CTL_OUT")
assert_ne "$gv" "" "the version in systracectl --version: $CTL_OUT"
expect_eq "${DV##*."${gv//-/.}"}" "" "package version $DV ends with .${gv//-/.} (systracectl --version: $gv)"
ctl_ok status
expect_line "$CTL_OUT" "^module version: +${V//./\\.}\$" "installed systracectl status: module version"

# A traced run with known counts (as test_dkms): 1000 and 250 getppid from
# two instructions, 37 failing close(-1) from a third. Saved into the
# default store, the one the package's purge removes.
P=$PROGS/sites
off_a=$(elf_offset "$P" site_a_insn) || exit 1
off_b=$(elf_offset "$P" site_b_insn) || exit 1
off_c=$(elf_offset "$P" site_c_insn) || exit 1
store=$SYSTRACE_STORE
unset SYSTRACE_STORE SYSTRACE_NO_SAVE
trace --name deb -- "$P" 1000 250 37
export SYSTRACE_STORE=$store SYSTRACE_NO_SAVE=1
assert_eq "$TRACE_RC" 0 "exit status of systracectl start (the program's)"
pycheck test_dkms.py "$D" "$P" "$off_a" "$off_b" "$off_c"
expect_eq "$(sqlite3 /var/lib/systrace/runs.db "SELECT backend, session_id FROM runs WHERE name = 'deb'")" "kmod|$SID" \
	"the run in /var/lib/systrace/runs.db (sqlite3)"

out=$(modprobe -r systrace 2>&1) || fail "modprobe -r systrace: $out"

# --- purge --------------------------------------------------------------------
t0=$SECONDS
log "traced: test at $SECONDS s"
dpkg_timed "$T/purge.log" --purge systrace-dkms systracectl
rc=$?
log "dpkg --purge systrace-dkms systracectl: exit $rc, $((SECONDS - t0)) s"
[ $rc -eq 0 ] || fail "dpkg --purge failed"
expect_eq "$(pkg_status | awk '$2 != "un"')" "" "systrace's packages after dpkg --purge"
expect_eq "$(dkms_status)" "" "dkms status after dpkg --purge"
expect_eq "$(modinfo -n systrace 2>/dev/null)" "" "a systrace module modprobe finds after dpkg --purge"
# dkms's own signing key, made at its first build of any module (dkms
# 3.0.10) and kept for the next ones: dkms's file, not systrace's.
snapshot "$T/after"
expect_eq "$(diff "$T/before" "$T/after" | grep -v -x -e '> /var/lib/dkms/mok\.key' -e '> /var/lib/dkms/mok\.pub' -e '[0-9,]*a[0-9,]*')" "" \
	"file list of ${PLACES[*]} and modules.dep, before and after (but for dkms's MOK key)"
log "file list after: test at $SECONDS s"
