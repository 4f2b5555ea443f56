#!/usr/bin/env bash
# attach --tree over a tree larger than max_procs (progs/forest: a chain of
# D processes, W children of its last, an orphan reparented to the top;
# N = D + W + 2 processes, each blocked in read(2)), with max_procs=R < N:
# exactly R rows (the top's and those of the R - 1 descendants the walk
# meets first: the oldest, the lowest pids), dropped_procs exactly N - R
# (each refused process counted once, although a later round of the walk
# meets it again), and the summary says some were not followed. Once let
# go, each row has M getppid at tree_site and its exit status.
# tags: trace debug
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog forest
[ "${SYSTRACE_BACKEND:-kmod}" = kmod ] || skip "the BPF backend has no attach --tree"
on_exit mod_unload_quiet
DEPTH=40 W=20 M=2 R=25
N=$((DEPTH + W + 2))
mod_load max_procs=$R

P=$PROGS/forest
forest_start

ctl_ok attach --tree --counters none --name capped "$top"
SID=$CTL_OUT
expect_contains "$CTL_ERR" "attached to pid $top: $R processes, $R live tasks (some tasks were not followed: see status)" \
	"attach --tree's summary"
head -c "$N" /dev/zero >&8
exec 8>&-
wait "$top"
expect_eq "$?" 0 "forest's exit status"
for ((i = 0; i < 300; i++)); do
	ctl_ok list
	grep -qE "^ *$SID +capped +finished " <<<"$CTL_OUT" && break
	sleep 0.1
done
D=$T/dump
mkdir -p "$D"
trace_dump "$SID"
# A trace with drops: checked by the .py, not by the invariants of a clean trace.
TRACE_DIRS=

off=$(elf_offset "$P" tree_site_insn) || exit 1
pycheck test_trace_attach_max_procs.py "$P" "$off" "$M" "$R" "$T/forest.out" "$D"
