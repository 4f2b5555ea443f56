#!/usr/bin/env bash
# systracectl attach and detach, on attachee: a program driven one byte at a
# time through a FIFO, attached to while it blocks in read. Exact rows and
# counts per site:
#   attach        the root's row has attached=true and counts from the
#                 attach (the read it blocked in is not counted), its perf
#                 counter too; the child it forks after is followed,
#                 attached=false, and so is the image that child execs.
#   --tree        a child that ran before the attach gets its own row,
#                 attached=true, its parent the root's row.
#   --threads-only  the child forked after the attach is not followed.
#   detach        rows are kept, the call in flight (a read) counts once,
#                 nothing after it counts; state detached; a second detach
#                 and bad requests fail with their messages.
# tags: trace debug bpf bpf-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog attachee
on_exit mod_unload_quiet
mod_load

P=$PROGS/attachee
poff=$(elf_offset "$P" parent_site_insn) || exit 1
coff=$(elf_offset "$P" child_site_insn) || exit 1
K=7 M=3

# in_read PID: wait until PID blocks in read(2) (syscall 0 in /proc/PID/syscall).
in_read() {
	local i
	for ((i = 0; i < 6000; i++)); do
		[ "$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)" = 0 ] && return 0
		sleep 0.01
	done
	fail "pid $1 never blocked in read"
}

# wait_line FILE TEXT: wait until FILE has the line TEXT.
wait_line() {
	local i
	for ((i = 0; i < 6000; i++)); do
		grep -qx "$2" "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	fail "attachee never wrote '$2' (its output: $(cat "$1"))"
}

# children_of PID: the pids whose parent is PID, from /proc/*/stat (the
# debug kernel has no /proc/PID/task/TID/children: CONFIG_PROC_CHILDREN).
children_of() {
	local f st ppid
	for f in /proc/[0-9]*/stat; do
		st=$(cat "$f" 2>/dev/null) || continue
		st=${st##*) }	# past the comm, which may hold blanks
		read -r _ ppid _ <<<"$st"
		[ "$ppid" = "$1" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
	done
}

# attachee ARGS...: starts attachee on a FIFO (written through fd 8) and
# waits until it blocks in its first read: APID. With "tree", also its
# first child (PRE), blocked in read as well.
run_n=0
attachee() {
	run_n=$((run_n + 1))
	local fifo=$T/fifo.$run_n
	OUT=$T/attachee.$run_n.out
	mkfifo "$fifo"
	"$P" "$@" <"$fifo" >"$OUT" &
	APID=$!
	exec 8>"$fifo"
	on_exit "kill -9 $APID 2>/dev/null"
	wait_line "$OUT" ready
	in_read "$APID"
	PRE=
	if [ "$1" = tree ]; then
		PRE=$(children_of "$APID")
		[[ $PRE =~ ^[0-9]+$ ]] || fail "attachee tree: not one child before the attach: '$PRE'"
		in_read "$PRE"
	fi
}

# finish [BYTES]: lets attachee run to its end ("done", then its last read),
# closes the FIFO and sets ARC to its exit status.
finish() {
	printf '%s' "${1:-g}" >&8
	wait_line "$OUT" "done"
	in_read "$APID"
	printf g >&8
	exec 8>&-
	wait "$APID"
	ARC=$?
}

# dump_session ID: the dumps of session ID into a new $D, as trace does.
dump_n=0
dump_session() {
	dump_n=$((dump_n + 1))
	D=$T/attach.$dump_n
	mkdir -p "$D"
	trace_dump "$1"
}

# --- attach: the root, and the child forked after -------------------------
# task-clock: a software counter, which works in a VM; the attached root's
# threads get one too.
attachee exec "$K" "$M"
ctl_ok attach --counters task-clock "$APID"
SID=$CTL_OUT
assert_match "$SID" '^[0-9]+$' "attach prints the session id on stdout"
expect_contains "$CTL_ERR" "attached to pid $APID: 1 process, 1 live task" "attach's summary on stderr"
finish
assert_eq "$ARC" 7 "attachee's exit status"
dump_session "$SID"
D1=$D

# --- attach --tree: the child that ran before gets a row --------------------
attachee tree "$K" "$M"
ctl_ok attach --tree --counters none --name tree "$APID"
SID=$CTL_OUT
expect_contains "$CTL_ERR" "session $SID \"tree\": attached to pid $APID: 2 processes, 2 live tasks" "attach --tree's summary"
finish gg
assert_eq "$ARC" 7 "attachee tree's exit status"
dump_session "$SID"
D2=$D

# --- attach --threads-only: no new process is followed ----------------------
attachee "$K" "$M"
ctl_ok attach --threads-only --counters none -q "$APID"
SID=$CTL_OUT
expect_eq "$CTL_ERR" "" "attach -q prints nothing on stderr"
finish
assert_eq "$ARC" 7 "attachee's exit status (threads-only)"
dump_session "$SID"
D3=$D

# --- detach: rows kept, nothing counted after -------------------------------
attachee "$K" "$M"
ctl_ok attach --counters none "$APID"
SID=$CTL_OUT
printf g >&8
wait_line "$OUT" "done"
in_read "$APID"
ctl_ok detach "$SID"
expect_contains "$CTL_ERR" "detached session $SID" "detach's message"
ctl_ok list
expect_line "$CTL_OUT" "^ *$SID +- +detached " "list shows the session as detached"
ctl detach "$SID"
expect_eq "$CTL_RC" 4 "a second detach: exit status"
expect_contains "$CTL_ERR" "already detached" "a second detach: message"
printf g >&8
exec 8>&-
wait "$APID"
assert_eq "$?" 7 "attachee's exit status (detached)"
dump_session "$SID"
D4=$D

# --- what attach and detach refuse ------------------------------------------
ctl attach --tree --threads-only 1
expect_eq "$CTL_RC" 1 "attach --tree --threads-only: usage error"
ctl attach
expect_eq "$CTL_RC" 1 "attach without PID: usage error"
ctl attach 12x
expect_eq "$CTL_RC" 1 "attach 12x: usage error"
nopid=$(($(cat /proc/sys/kernel/pid_max) - 1))
while [ -e /proc/$nopid ]; do nopid=$((nopid - 1)); done
ctl attach "$nopid"
expect_eq "$CTL_RC" 4 "attach to a free pid: exit status"
expect_contains "$CTL_ERR" "no process with that pid" "attach to a free pid: message"
ctl attach 2
expect_eq "$CTL_RC" 4 "attach to kthreadd: exit status"
expect_contains "$CTL_ERR" "kernel thread" "attach to kthreadd: message"
# The sessions above are dumped: from here on, mem_bytes is this part's.
ctl_ok reset --all
sleep 60 &
sl=$!
on_exit "kill $sl 2>/dev/null"
ctl_ok attach -q --counters task-clock "$sl"
ssl=$CTL_OUT
ctl attach "$sl"
expect_eq "$CTL_RC" 4 "attach to a traced process: exit status"
expect_contains "$CTL_ERR" "already traced" "attach to a traced process: message"
# sleep's counter would start at its next return to user mode, 60 s away:
# deleting the session frees all of its memory now all the same.
ctl_ok reset "$ssl"
ctl_ok status --json
expect_eq "$(csvq --json get mem_bytes <<<"$CTL_OUT")" 0 "status mem_bytes after resetting the session of a sleeping attached process"
as_nobody "$SYSTRACECTL" attach "$sl"
expect_eq "$CTL_RC" 3 "attach as nobody: exit status (permission)"
ctl detach 4000000
expect_eq "$CTL_RC" 4 "detach of no session: exit status"
expect_contains "$CTL_ERR" "no session" "detach of no session: message"

xoff=$(elf_offset "$P" exec_site_insn) || exit 1
pycheck test_trace_attach.py "$P" "$poff" "$coff" "$xoff" "$K" "$M" "$D1" "$D2" "$D3" "$D4"
