#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make install and make uninstall into a temporary DESTDIR: exactly the
# expected files with their modes and contents (the built CLI, the rendered
# man pages, the bash completion, the module built for KVER, whose vermagic
# is KVER's), no depmod of this machine's /lib/modules, nothing left after
# uninstall; make install for a kernel without headers fails before
# installing anything; install-user with PREFIX=/usr; install-dkms and
# uninstall-dkms with the DKMS source tree (dkms.conf, Kbuild, the ABI
# header and the module's sources, as git tracks them).
. "$(dirname "$0")/testlib.sh"

D=$(mktemp -d /tmp/systrace-install.XXXXXX)
trap 'rm -rf "$D"' EXIT
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")

# files DIR: "MODE PATH" of every file and link under DIR, sorted by path.
files() { (cd "$1" && find . \( -type f -o -type l \) -printf '%m %P\n' | sort -k2); }

# run NAME MAKE-ARGS...: make -C TOP MAKE-ARGS; not ok (with its output)
# when it fails.
run() {
	local name=$1 out
	shift
	if out=$(make -s -C "$TOP" "$@" 2>&1); then
		return 0
	fi
	not_ok "$name"
	echo "make $* failed:" | diag
	echo "$out" | tail -n 30 | diag
	return 1
}

# same_content NAME DIR [INSTALLED SOURCE]...: each installed file is a copy of its source.
same_content() {
	local name=$1 dir=$2 bad=
	shift 2
	while [ $# -gt 0 ]; do
		cmp -s "$dir/$1" "$TOP/$2" || bad+=" $1 (from $2)"
		shift 2
	done
	eq "$name" "${bad# }" ""
}

user_files="755 usr/local/bin/systracectl
644 usr/local/share/bash-completion/completions/systracectl
644 usr/local/share/man/man4/systrace.4
644 usr/local/share/man/man8/systracectl.8"

kver=$("$TOP/scripts/kvers" | head -n 1)
if [ -z "$kver" ]; then
	skip "make install DESTDIR=... KVER=..." "no kernel with headers (scripts/kvers): run scripts/deps"
else
	dep=/lib/modules/$kver/modules.dep
	dep_before=$(stat -c %Y "$dep" 2>/dev/null)
	if run "make install DESTDIR=... KVER=$kver" install DESTDIR="$D/a" KVER="$kver"; then
		eq "make install KVER=$kver installs exactly these files" "$(files "$D/a")" \
			"644 lib/modules/$kver/updates/systrace.ko
$user_files"
		same_content "make install copies the built CLI, pages, completion and module" "$D/a" \
			usr/local/bin/systracectl user/systracectl \
			usr/local/share/man/man8/systracectl.8 build/man/systracectl.8 \
			usr/local/share/man/man4/systrace.4 build/man/systrace.4 \
			usr/local/share/bash-completion/completions/systracectl user/systracectl.bash \
			"lib/modules/$kver/updates/systrace.ko" "build/install/$kver/kmod/systrace.ko"
		eq "the installed module is built for $kver (vermagic)" \
			"$(PATH=$PATH:/usr/sbin:/sbin modinfo -F vermagic "$D/a/lib/modules/$kver/updates/systrace.ko" | cut -d' ' -f1)" "$kver"
		# The test knobs are the tests' alone (SYSTRACE_TESTING, kmod/Kbuild).
		eq "the installed module's parameters (modinfo -p): no test knob" \
			"$(PATH=$PATH:/usr/sbin:/sbin modinfo -p "$D/a/lib/modules/$kver/updates/systrace.ko" | cut -d: -f1 | sort | tr '\n' ' ')" \
			"max_mem max_mem_total max_procs max_sessions max_sites "
		eq "make install with DESTDIR leaves $dep alone (no depmod)" "$(stat -c %Y "$dep" 2>/dev/null)" "$dep_before"
		if run "make uninstall DESTDIR=... KVER=$kver" uninstall DESTDIR="$D/a" KVER="$kver"; then
			eq "make uninstall KVER=$kver leaves no file" "$(files "$D/a")" ""
		fi
	fi

	# No headers for the kernel asked for: an error that says so, and no file.
	out=$(make -s -C "$TOP" install DESTDIR="$D/b" KVER=0.0.0-none 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [[ $out == *"no /lib/modules/0.0.0-none/build: install linux-headers-0.0.0-none"* ]] &&
		[ -z "$(files "$D/b" 2>/dev/null)" ]; then
		ok "make install KVER=0.0.0-none fails, names the headers to install, installs nothing"
	else
		not_ok "make install KVER=0.0.0-none fails, names the headers to install, installs nothing"
		{ echo "exit $rc, output:"; echo "$out"; files "$D/b" 2>/dev/null; } | diag
	fi
fi

# PREFIX.
if run "make install-user PREFIX=/usr" install-user DESTDIR="$D/c" PREFIX=/usr; then
	eq "make install-user PREFIX=/usr installs the CLI, pages and completion under /usr" \
		"$(files "$D/c")" "${user_files//usr\/local\//usr/}"
	run "make uninstall-user PREFIX=/usr" uninstall-user DESTDIR="$D/c" PREFIX=/usr &&
		eq "make uninstall-user PREFIX=/usr leaves no file" "$(files "$D/c")" ""
fi

# DKMS: with DESTDIR only the files (a package's postinst runs dkms).
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	sources=$(git -C "$TOP" ls-files kmod include/uapi Kbuild dkms.conf)
else
	# shellcheck disable=SC2010 # ls sorts, and the names have no white space
	sources=$(cd "$TOP" && ls Kbuild dkms.conf include/uapi/linux/*.h kmod/Kbuild kmod/*.[ch] | grep -v '\.mod\.c$')
fi
if run "make install-dkms DESTDIR=..." install-dkms DESTDIR="$D/d"; then
	# shellcheck disable=SC2001 # prefixes every line, which ${var//} cannot do
	eq "make install-dkms installs the CLI, pages, completion and the DKMS tree /usr/src/systrace-$VERSION" \
		"$(files "$D/d")" \
		"$( (echo "$user_files"; sed "s|^|644 usr/src/systrace-$VERSION/|" <<<"$sources") | sort -k2)"
	bad=
	for f in $sources; do cmp -s "$D/d/usr/src/systrace-$VERSION/$f" "$TOP/$f" || bad+=" $f"; done
	eq "the DKMS tree holds copies of the sources" "${bad# }" ""
	run "make uninstall-dkms DESTDIR=..." uninstall-dkms DESTDIR="$D/d" &&
		eq "make uninstall-dkms leaves no file" "$(files "$D/d")" ""
fi

done_testing
