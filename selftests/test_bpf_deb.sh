#!/usr/bin/env bash
# The systracectl package (make deb, build/deb/) on this machine's kernel,
# with the BPF backend, in a root of its own: an overlay of / with a tmpfs
# on top, moved onto / in a mount namespace of the test's, with a fresh
# bpffs. So dpkg
# installs and purges for real, maintainer scripts and triggers included,
# and the host's own root never changes.
#   install  dpkg -i: exactly the package's files (dpkg -L), and its
#            systracectl's --version is the package's (make deb's version)
#   trace    the installed systracectl traces `sites 1000 250 37` with the
#            BPF backend: exact calls per site, and per syscall as strace
#            -f -c counts them; the run lands in the default store,
#            /var/lib/systrace/runs.db (sqlite3)
#   purge    dpkg --purge: the file lists of every place the package
#            touched are as before the install (the store is gone), and
#            the overlay's upper layer holds nothing of systrace's: only
#            dpkg's database and log and man-db's cache changed
# tags: bpf
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_cmd dpkg
need_cmd unshare
need_cmd strace
need_cmd sqlite3
need_prog sites
DEBS=${SYSTRACE_DEB_DIR:-$TOP/build/deb}
ctl_deb=$(ls "$DEBS"/systracectl_*_amd64.deb 2>/dev/null)
[ -n "$ctl_deb" ] || missing "no systracectl package in $DEBS (make deb)"
DV=$(dpkg-deb -f "$ctl_deb" Version)
ov=$T/ov
R=$ov/root

case ${_DEB_STAGE:-} in
'')
	# A mount namespace of the test's: the overlay and its mounts die with it.
	exec unshare -m --propagation private env _DEB_STAGE=ns T="$T" bash "$0" "$@"
	;;
ns)
	mkdir -p "$ov"
	mount -t tmpfs -o mode=0755 tmpfs "$ov" || fail "mount -t tmpfs on $ov"
	mkdir "$ov/upper" "$ov/work" "$R"
	mount -t overlay -o "lowerdir=/,upperdir=$ov/upper,workdir=$ov/work" overlay "$R" ||
		fail "mount -t overlay of / on $R"
	if ! { mount -t proc proc "$R/proc" && mount --rbind /dev "$R/dev" &&
		mount -t sysfs sysfs "$R/sys" && mount -t bpf bpf "$R/sys/fs/bpf" &&
		mount -t tracefs nodev "$R/sys/kernel/tracing"; }; then
		fail "the mounts of $R"
	fi
	# The scratch directory, shared with the root's processes.
	mount --bind "$T" "$R$T" || fail "mount --bind $T $R$T"
	# The overlay moved onto / before the chroot (as scripts/vm-init does):
	# the namespace's root is then the overlay, so that the paths the BPF
	# backend reads (exe) are the ones the chroot's processes see. This
	# shell's own root stays the old one, where $ov/upper still is.
	# No .pyc of pycheck's in the upper layer (a guest's tree is read-only).
	(cd "$R" && mount --move . / &&
		exec chroot . env _DEB_STAGE=root T="$T" PYTHONDONTWRITEBYTECODE=1 bash "$0" "$@")
	rc=$?
	[ $rc -eq 0 ] || exit $rc
	# What the install and purge left in the upper layer: dpkg's own
	# database and log, man-db's cache; no file of systrace's. A whiteout
	# (a character device) is a file of / deleted: only the machine's run
	# store, which the test put aside.
	upper() { (cd "$ov/upper" && find . ! -type d "$@" -printf '%P\n' |
		grep -v -e '^var/lib/dpkg/' -e '^var/log/dpkg\.log$' -e '^var/cache/man/' | sort); }
	expect_eq "$(upper ! -type c)" "" "files in the overlay's upper layer after the purge, besides dpkg's and man-db's"
	expect_eq "$(upper -type c)" "$([ ! -e /var/lib/systrace ] || echo var/lib/systrace)" \
		"files of / deleted (whiteouts in the upper layer) after the purge, besides dpkg's and man-db's"
	exit 0
	;;
root) ;;
*) fail "_DEB_STAGE=$_DEB_STAGE" ;;
esac

# --- in the overlay root ----------------------------------------------------
pkg_status() { dpkg-query -W -f='${db:Status-Abbrev}' systracectl 2>/dev/null; }
[ "$(pkg_status)" = "" ] || [ "$(pkg_status)" = "un " ] ||
	skip "systracectl is installed on this machine ($(pkg_status)): the test installs its own"
PLACES=(/usr/bin /usr/sbin /usr/share/man/man4 /usr/share/man/man8 /usr/share/doc
	/usr/share/bash-completion/completions /var/lib/systrace /var/lib/dpkg/info)
snapshot() { find "${PLACES[@]}" 2>/dev/null | sort >"$1"; }
# The machine's run store, if any, aside (in the overlay): the purge removes it.
[ ! -e /var/lib/systrace ] || rm -rf /var/lib/systrace || fail "rm -rf /var/lib/systrace in the overlay"
snapshot "$T/before"

t0=$SECONDS
out=$(dpkg -i "$ctl_deb" 2>&1) || fail "dpkg -i $ctl_deb: $out"
log "dpkg -i systracectl: $((SECONDS - t0)) s"
expect_eq "$(pkg_status)" "ii " "dpkg status of systracectl after dpkg -i"
expect_eq "$(dpkg -L systracectl | while read -r f; do [ -d "$f" ] || echo "$f"; done | sort | paste -sd' ')" \
	"/usr/bin/systracectl /usr/share/bash-completion/completions/systracectl /usr/share/doc/systracectl/changelog.gz /usr/share/doc/systracectl/copyright /usr/share/lintian/overrides/systracectl /usr/share/man/man4/systrace.4.gz /usr/share/man/man8/systracectl.8.gz" \
	"files of systracectl (dpkg -L)"
expect_eq "$(stat -c '%a %U' /usr/bin/systracectl)" "755 root" "mode and owner of /usr/bin/systracectl"

# shellcheck disable=SC2034 # lib.sh's ctl and trace_lib.sh's trace use it
SYSTRACECTL=/usr/bin/systracectl
# The package's version ends with it, its '-' turned into '.' (make deb).
ctl_ok --version
gv=$(sed -n 's/^systracectl \([^ ]*\) (systrace ABI [0-9]*)$/\1/p' <<<"$CTL_OUT")
assert_ne "$gv" "" "the version in systracectl --version: $CTL_OUT"
expect_eq "${DV##*."${gv//-/.}"}" "" "package version $DV ends with .${gv//-/.} (systracectl --version: $gv)"

# 1000 and 250 getppid from two instructions, 37 failing close(-1) from a
# third; saved into the default store.
P=$PROGS/sites
off_a=$(elf_offset "$P" site_a_insn) || exit 1
off_b=$(elf_offset "$P" site_b_insn) || exit 1
off_c=$(elf_offset "$P" site_c_insn) || exit 1
unset SYSTRACE_STORE SYSTRACE_NO_SAVE
trace --name deb -- "$P" 1000 250 37
assert_eq "$TRACE_RC" 0 "exit status of systracectl start (the program's)"
expect_eq "$(sqlite3 /var/lib/systrace/runs.db "SELECT backend, session_id FROM runs WHERE name = 'deb'")" "bpf|$SID" \
	"the run in /var/lib/systrace/runs.db (sqlite3)"
bpf_wait_keepers 10

# strace's count of the same program: calls and errors per syscall.
strace -f -qq -c -U name,calls,errors -o "$T/strace.txt" "$P" 1000 250 37 >/dev/null ||
	fail "strace -f -c $P: exit $?"
# st NAME FIELD: FIELD 2 (calls) or 3 (errors, blank for none) of NAME's line.
st() { awk -v n="$1" -v c="$2" '$1 == n { v = $c + 0; f = 1 } END { print f ? v : "none" }' "$T/strace.txt"; }
for s in getppid close; do
	expect_eq "$(csvq -f "$D/syscalls.csv" sum calls syscall="$s")" "$(st "$s" 2)" "$s calls: systracectl against strace -f -c"
	expect_eq "$(csvq -f "$D/syscalls.csv" sum errors syscall="$s")" "$(st "$s" 3)" "$s errors: systracectl against strace -f -c"
done
pycheck test_dkms.py "$D" "$P" "$off_a" "$off_b" "$off_c"

t0=$SECONDS
out=$(dpkg --purge systracectl 2>&1) || fail "dpkg --purge systracectl: $out"
log "dpkg --purge systracectl: $((SECONDS - t0)) s"
expect_eq "$(pkg_status)" "" "dpkg status of systracectl after the purge"
snapshot "$T/after"
expect_eq "$(diff "$T/before" "$T/after")" "" "file lists of ${PLACES[*]}, before the install and after the purge"
