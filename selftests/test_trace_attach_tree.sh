#!/usr/bin/env bash
# attach --tree over a deep and wide tree (progs/forest: a chain of D
# processes, W children of its last, and an orphan reparented to the top,
# a subreaper), each process blocked in read(2): exactly one attached row
# per process of the tree and none for a process beside it (a sleep of the
# test), each row's parent the row of its process's parent (the orphan's:
# the top's), its ppid that parent's pid; once let go, M getppid at
# tree_site in each row, exit status 3 (the top's 0), no fork counted, no
# process dropped. The module finds the tree in one walk of the task list
# per round (parents before children); D is larger than the walk's first
# room (64 processes), so the walk also grows its table on the way.
# tags: trace debug
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog forest
[ "${SYSTRACE_BACKEND:-kmod}" = kmod ] || skip "the BPF backend has no attach --tree"
on_exit mod_unload_quiet
mod_load

P=$PROGS/forest
DEPTH=100 W=30 M=4
N=$((DEPTH + W + 2))

sleep 300 &
beside=$!
on_exit "kill $beside 2>/dev/null"

forest_start
ppids=$T/ppids
for p in "${pids[@]}"; do
	st=$(cat "/proc/$p/stat")
	st=${st##*) }
	read -r _ pp _ <<<"$st"
	echo "$p $pp"
done >"$ppids"

ctl_ok attach --tree --counters none --name forest "$top"
SID=$CTL_OUT
expect_contains "$CTL_ERR" "attached to pid $top: $N processes, $N live tasks" "attach --tree's summary"
head -c "$N" /dev/zero >&8
exec 8>&-
wait "$top"
expect_eq "$?" 0 "forest's exit status"
for ((i = 0; i < 300; i++)); do
	ctl_ok list
	grep -qE "^ *$SID +forest +finished " <<<"$CTL_OUT" && break
	sleep 0.1
done
D=$T/dump
mkdir -p "$D"
trace_dump "$SID"

off=$(elf_offset "$P" tree_site_insn) || exit 1
pycheck test_trace_attach_tree.py "$P" "$off" "$M" "$T/forest.out" "$ppids" "$D"
