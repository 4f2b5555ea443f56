#!/usr/bin/env bash
# Without the module, `systracectl status` says so, names insmod, and exits 2.
# tags: foundation
. "$(dirname "$0")/lib.sh"
need_root
mod_unload_quiet
assert_eq "$(mod_loaded && echo loaded || echo absent)" absent "module state"

for args in "status" "status --json"; do
	# shellcheck disable=SC2086
	ctl $args
	expect_eq "$CTL_RC" 2 "systracectl $args: exit code (2: module not loaded)"
	expect_contains "$CTL_ERR" "insmod" "systracectl $args: stderr names the command that loads it"
	expect_contains "$CTL_ERR" "not loaded" "systracectl $args: stderr says the module is not loaded"
	expect_eq "$CTL_OUT" "" "systracectl $args: stdout (data only, none here)"
done
