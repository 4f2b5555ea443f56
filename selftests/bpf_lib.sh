# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers of the BPF backend's own tests (test_bpf_*.sh), on top of lib.sh:
#
#   . "$(dirname "$0")/lib.sh"
#   . "$(dirname "$0")/bpf_lib.sh"
#
# need_bpf            skip unless the tests run through the BPF backend, as root
# in_private_bpffs    re-runs the test in a mount namespace of its own, with a
#                     fresh bpffs at /sys/fs/bpf: the host's tree is left alone
# bpf_our_progs       how many programs of this tree's (they use its `tasks`
#                     map) are attached: a link holds them. The pinned set stays
#                     loaded between sessions, attached by none
# bpf_our_loaded      the tree's loaded programs, "NAME ID" a line
# bpf_probes_active   "true" or "false", as status --json says
# bpf_wait_detached [S]  waits (S seconds, 10) until no program of the tree is
#                     loaded and status says so; fails otherwise
# bpf_wait_keepers [S]  waits (S seconds, 10) until no process holds the tree
#                     open: every keeper is done (with the spare maps it makes
#                     after its session); fails otherwise
# bpf_sid ERRFILE     the session id a start printed on stderr
# bpf_keeper SID      the pid of session SID's keeper (it holds keep/SID)
# bpf_stopped PID     waits (10 s) until PID is stopped (state T: a
#                     SYSTRACE_BPF_STOP point reached); 1 if it never is

BPF_TREE=/sys/fs/bpf/systrace

need_bpf() {
	[ "${SYSTRACE_BACKEND:-kmod}" = bpf ] || skip "a test of the BPF backend: selftests/run bpf $(basename "$0" .sh | sed 's/^test_//')"
	need_root
	need_cmd bpftool
}

in_private_bpffs() {
	if [ -z "${_BPF_PRIVATE:-}" ]; then
		need_cmd unshare
		exec unshare -m --propagation private env _BPF_PRIVATE=1 bash "$0" "$@"
	fi
	mount -t bpf bpf /sys/fs/bpf || fail "mount -t bpf bpf /sys/fs/bpf in a private mount namespace"
}

bpf_our_progs() {
	local id
	id=$(bpftool -j map show pinned "$BPF_TREE/tasks" 2>/dev/null | "$CSVQ" --json get id 2>/dev/null) ||
		{ echo 0; return; }
	"$TOP/selftests/bpfq" "$id" attached
}

bpf_our_loaded() {
	local id
	id=$(bpftool -j map show pinned "$BPF_TREE/tasks" 2>/dev/null | "$CSVQ" --json get id 2>/dev/null) ||
		return 0
	"$TOP/selftests/bpfq" "$id" loaded
}

bpf_probes_active() {
	"$SYSTRACECTL" status --json 2>/dev/null | "$CSVQ" --json get probes_active
}

bpf_wait_detached() {
	local i n=$((${1:-10} * 20))
	for ((i = 0; i < n; i++)); do
		[ "$(bpf_our_progs)" = 0 ] && [ "$(bpf_probes_active)" = false ] && return 0
		sleep 0.05
	done
	fail "systrace's programs are still attached: $(bpf_our_progs) loaded, status probes_active $(bpf_probes_active)"
}

bpf_wait_keepers() {
	local i n=$((${1:-10} * 20))
	for ((i = 0; i < n; i++)); do
		[ -z "$(fuser "$BPF_TREE" 2>/dev/null)" ] && return 0
		sleep 0.05
	done
	fail "processes still hold $BPF_TREE open: $(fuser "$BPF_TREE" 2>&1)"
}

bpf_sid() {
	sed -n 's/^systracectl: session \([0-9][0-9]*\).*: tracing .*/\1/p' "$1" | head -n 1
}

bpf_keeper() { fuser "$BPF_TREE/keep/$1" 2>/dev/null | tr -d ' '; }

bpf_stopped() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
		sleep 0.05
	done
	return 1
}
