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
# tags: trace debug debug-quick
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
		PRE=$(cat "/proc/$APID/task/$APID/children")
		PRE=${PRE% }
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
sleep 60 &
sl=$!
on_exit "kill $sl 2>/dev/null"
ctl_ok attach -q "$sl"
ctl attach "$sl"
expect_eq "$CTL_RC" 4 "attach to a traced process: exit status"
expect_contains "$CTL_ERR" "already traced" "attach to a traced process: message"
as_nobody "$SYSTRACECTL" attach "$sl"
expect_eq "$CTL_RC" 3 "attach as nobody: exit status (permission)"
ctl detach 4000000
expect_eq "$CTL_RC" 4 "detach of no session: exit status"
expect_contains "$CTL_ERR" "no session" "detach of no session: message"

xoff=$(elf_offset "$P" exec_site_insn) || exit 1
pycheck "$P" "$poff" "$coff" "$xoff" "$K" "$M" "$D1" "$D2" "$D3" "$D4" <<'EOF'
prog, poff, coff, xoff, K, M, d1, d2, d3, d4 = ARGS
K, M = int(K), int(M)

def parent_counts(t, r, w, getppid, waits, exit_group=1, read=1):
    eq(r["attached"], True, w + ": attached")
    eq(r["parent_id"], None, w + ": parent_id")
    eq(r["exe"], prog, w + ": exe")
    eq(t.calls(proc_id=r["id"], nr=110, path=prog, offset=poff), getppid, w + ": getppid at parent_site")
    eq(t.calls(proc_id=r["id"], nr=56), 1, w + ": clone")
    eq(t.calls(proc_id=r["id"], nr=61), waits, w + ": wait4")
    eq(t.calls(proc_id=r["id"], nr=1), 1, w + ": write")
    # The read it blocked in at the attach is not counted; the second is.
    eq(t.calls(proc_id=r["id"], nr=0), read, w + ": read")
    eq(t.calls(proc_id=r["id"], nr=231), exit_group, w + ": exit_group")
    eq(r["syscalls"], getppid + 1 + waits + 1 + read + exit_group, w + ": syscalls")

def post_child(t, r, w):
    c = t.proc(w + ": the child forked after the attach", attached=False)
    if not c:
        return
    eq(c["parent_id"], r["id"], w + ": child's parent_id")
    eq(c["ppid"], r["pid"], w + ": child's ppid")
    eq(c["end"], "exited", w + ": child's end")
    eq(c["exit_code"], 5, w + ": child's exit_code")
    eq(t.calls(proc_id=c["id"], nr=110, path=prog, offset=coff), M, w + ": child's getppid at child_site")
    eq(c["syscalls"], M + 2, w + ": child's syscalls (getppid, set_robust_list, exit_group)")

w = "attach"
t = Trace(d1)
eq(len(t.procs), 3, w + ": process rows (the root, its child, the image the child execs)")
eq(t.session["counters_error"], None, w + ": counters_error")
for p in t.procs:
    # COUNTER_VALUE is sent for every row while counting, 0 without a
    # counter: an attached thread with none would show 0 here.
    ge(p["task_clock_ns"], 1, w + ": process %d's task_clock_ns (on-CPU time since the attach or fork)" % p["id"])
r = t.root()
if r:
    eq(r["end"], "exited", w + ": end")
    eq(r["exit_code"], 7, w + ": exit_code")
    parent_counts(t, r, w, 2 * K, 1)
    f = t.proc(w + ": the child's image before its exec", parent_id=r["id"], prev_id=None)
    x = t.proc(w + ": the image the child execs", prev_id=f["id"]) if f else None
    if f and x:
        eq(f["attached"], False, w + ": fork image attached")
        eq(f["end"], "exec", w + ": fork image end")
        eq(t.calls(proc_id=f["id"], nr=59, path=prog, offset=xoff), 1, w + ": fork image's execve at exec_site")
        eq(f["syscalls"], 2, w + ": fork image's syscalls (set_robust_list, execve)")
        eq(x["attached"], False, w + ": exec image attached")
        eq(x["parent_id"], r["id"], w + ": exec image's parent_id")
        eq(x["pid"], f["pid"], w + ": exec image's pid")
        eq(x["exe"], prog, w + ": exec image's exe")
        eq(x["end"], "exited", w + ": exec image's end")
        eq(x["exit_code"], 5, w + ": exec image's exit_code")
        eq(t.calls(proc_id=x["id"], nr=110, path=prog, offset=coff), M, w + ": exec image's getppid at child_site")
        eq(t.calls(proc_id=x["id"], nr=231), 1, w + ": exec image's exit_group")
        eq(t.calls(proc_id=x["id"], nr=59), 0, w + ": exec image's execve")
eq(t.session["forks"], 1, w + ": session forks")
eq(t.session["execs"], 1, w + ": session execs")
eq(t.session["exits"], 2, w + ": session exits")

w = "attach --tree"
t = Trace(d2)
eq(len(t.procs), 3, w + ": process rows")
r = t.root()
if r:
    parent_counts(t, r, w, 2 * K, 2)
    post_child(t, r, w)
    pre = t.proc(w + ": the child that ran before", attached=True, parent_id=r["id"])
    if pre:
        eq(pre["ppid"], r["pid"], w + ": pre child's ppid")
        eq(pre["exit_code"], 6, w + ": pre child's exit_code")
        eq(pre["prev_id"], None, w + ": pre child's prev_id")
        eq(t.calls(proc_id=pre["id"], nr=110, path=prog, offset=coff), M, w + ": pre child's getppid")
        eq(t.calls(proc_id=pre["id"], nr=0), 0, w + ": pre child's read (in flight at the attach)")
        eq(pre["syscalls"], M + 1, w + ": pre child's syscalls (getppid, exit_group)")
eq(t.session["name"], "tree", w + ": session name")
eq(t.session["forks"], 1, w + ": session forks (the pre child was not forked in the session)")
eq(t.session["exits"], 3, w + ": session exits")

w = "attach --threads-only"
t = Trace(d3)
eq(len(t.procs), 1, w + ": process rows")
r = t.root()
if r:
    parent_counts(t, r, w, 2 * K, 1)
eq(t.session["forks"], 0, w + ": session forks")
eq(t.session["dropped_procs"], 0, w + ": dropped_procs")

w = "detach"
t = Trace(d4)
eq(t.session["state"], "detached", w + ": session state")
eq(len(t.procs), 2, w + ": process rows")
r = t.root()
if r:
    eq(r["end"], "detached", w + ": end")
    expect(r["end_ns"] is not None, w + ": end_ns is set")
    # K getppid before the detach, none after; the read in flight counts.
    parent_counts(t, r, w, K, 1, exit_group=0)
    post_child(t, r, w)
EOF
