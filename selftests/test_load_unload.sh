#!/usr/bin/env bash
# insmod registers the "systrace" family; `systracectl status` (text and
# --json) reports the module version, ABI version 1 and every module
# parameter with its actual value; rmmod removes the family again.
# tags: foundation debug debug-quick
. "$(dirname "$0")/lib.sh"
need_root
on_exit mod_unload_quiet

# Each module parameter (as /sys/module/systrace/parameters names it) and the
# name status gives it. A parameter missing here fails the test: status must
# show them all.
declare -A status_name=(
	[max_sessions]=max_sessions
	[max_procs]=max_procs
	[max_sites]=max_sites
	[max_mem]=max_mem_bytes
	[max_mem_total]=max_mem_total_bytes
	[force_late_resolve]=force_late_resolve
)
# The test hooks: the walk's of attach --tree (test_trace_attach_walk_gone),
# the deferred work's delay (test_unload_exit_read) and the failing hash
# grow (test_trace_hash_grow): not in status, mode 0600, 0 at load.
declare -A test_param=([test_walk_gone]=1 [test_walk_stuck]=1 [test_work_delay_ms]=1 [test_grow_fail]=1)

# The value of parameter $1 as the JSON status shows it (a bool for Y/N).
json_param() {
	local v
	v=$(mod_param "$1")
	case $v in Y) echo true ;; N) echo false ;; *) echo "$v" ;; esac
}

check_status() { # WHAT
	local p v version
	version=$(cat /sys/module/systrace/version) || fail "$1: no /sys/module/systrace/version (MODULE_VERSION)"
	assert_ne "$version" "" "$1: module version in sysfs"

	ctl_ok status
	expect_eq "$CTL_ERR" "" "$1: status stderr"
	expect_line "$CTL_OUT" "^module version: +${version//./\\.}\$" "$1: status text, module version"
	expect_line "$CTL_OUT" '^abi version: +1$' "$1: status text, ABI version"
	for p in /sys/module/systrace/parameters/*; do
		p=${p##*/}
		if [ -n "${test_param[$p]:-}" ]; then
			# A test hook (systrace.4): root's alone, 0 unless a test sets it.
			expect_eq "$(stat -c %a "/sys/module/systrace/parameters/$p")" 600 "$1: mode of test parameter $p"
			expect_eq "$(mod_param "$p")" 0 "$1: test parameter $p"
			continue
		fi
		[ -n "${status_name[$p]:-}" ] || { _lib_report "$1: module parameter $p is not known to this test"; continue; }
		v=$(mod_param "$p")
		expect_line "$CTL_OUT" "(^|[ ,])${status_name[$p]} $v(,|\$)" "$1: status text, parameter $p"
	done

	ctl_ok status --json
	local keys=(abi_version version schema_version) got
	for p in "${!status_name[@]}"; do keys+=("params.${status_name[$p]}"); done
	mapfile -t got < <(csvq --json get "${keys[@]}" <<<"$CTL_OUT")
	assert_eq "${#got[@]}" "${#keys[@]}" "$1: values found in the JSON status (${keys[*]})"
	expect_eq "${got[0]}" 1 "$1: JSON abi_version"
	expect_eq "${got[1]}" "$version" "$1: JSON version"
	expect_eq "${got[2]}" 1 "$1: JSON schema_version"
	local i=3
	for p in "${!status_name[@]}"; do
		expect_eq "${got[i]}" "$(json_param "$p")" "$1: JSON ${keys[i]}"
		i=$((i + 1))
	done
}

mod_load
assert_eq "$(cat /sys/module/systrace/initstate)" live "module state after insmod"
check_status "default parameters"
mod_unload
assert_eq "$(test -e /sys/module/systrace && echo present || echo gone)" gone "/sys/module/systrace after rmmod"
"$PROGS/nlbad" status_ok >/dev/null 2>&1
assert_eq "$?" 2 "nlbad after rmmod (2: the family is not registered)"

# Values other than the defaults prove that status reads the live values.
mod_load max_sessions=3 max_procs=1000 max_sites=2000 max_mem=12345678 max_mem_total=23456789 force_late_resolve=1
assert_eq "$(mod_param max_sessions)" 3 "max_sessions after insmod max_sessions=3"
check_status "parameters given to insmod"
mod_unload
