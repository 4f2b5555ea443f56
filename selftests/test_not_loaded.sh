#!/usr/bin/env bash
# Without the module: `SYSTRACE_BACKEND=kmod systracectl status` says so,
# names insmod, and exits 2; with no backend asked, status shows the BPF
# backend (which needs no module), says no module is loaded, and exits 0,
# with no "insmod" advice, since tracing works without it.
# tags: foundation
. "$(dirname "$0")/lib.sh"
need_root
mod_unload_quiet
assert_eq "$(mod_loaded && echo loaded || echo absent)" absent "module state"

for args in "status" "status --json"; do
	# shellcheck disable=SC2086
	SYSTRACE_BACKEND=kmod ctl $args
	expect_eq "$CTL_RC" 2 "SYSTRACE_BACKEND=kmod systracectl $args: exit code (2: module not loaded)"
	expect_contains "$CTL_ERR" "insmod" "SYSTRACE_BACKEND=kmod systracectl $args: stderr names the command that loads it"
	expect_contains "$CTL_ERR" "not loaded" "SYSTRACE_BACKEND=kmod systracectl $args: stderr says the module is not loaded"
	expect_eq "$CTL_OUT" "" "SYSTRACE_BACKEND=kmod systracectl $args: stdout (data only, none here)"
done

unset SYSTRACE_BACKEND
ctl status
expect_eq "$CTL_RC" 0 "systracectl status: exit code"
expect_line "$CTL_OUT" "^module version: +bpf \(libbpf .*; no module loaded\)$" "systracectl status: the backend it shows"
expect_not_contains "$CTL_ERR" "insmod" "systracectl status: stderr"
ctl status --json
expect_eq "$CTL_RC" 0 "systracectl status --json: exit code"
expect_contains "$(csvq --json get version <<<"$CTL_OUT")" "no module loaded" "systracectl status --json: version"
