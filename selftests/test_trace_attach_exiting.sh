#!/usr/bin/env bash
# A session made on a running process (SESSION_NEW without ON_EXEC, by
# progs/nlraw) whose group leader has already left by SYS_exit: the zombie
# leader is not attached (it would never leave and the session would
# never finish), the two live threads are. Once given the pid of a live
# thread, once the process's own pid (the zombie leader's). Each time:
# 2 live tasks after the attach; when the threads have exited (codes 7,
# then 9), the session is finished with 0 live tasks, the probes come off,
# and the one process row says threads 2, exited with the code wait(2)
# reports (the last thread's, 9), and holds the threads' 2 exit calls.
# tags: trace debug debug-quick
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog zombieleader
need_prog nlraw
on_exit mod_unload_quiet
mod_load

P=$PROGS/zombieleader
off=$(elf_offset "$P" exit_site_insn) || exit 1

# nthreads PID: entries in /proc/PID/task (the zombie leader included).
nthreads() { local a=(/proc/"$1"/task/*); [ -e "${a[0]}" ] && echo ${#a[@]} || echo 0; }

# state PID: the process's state letter (its leader's), from /proc/PID/stat.
state() {
	local st
	read -r st 2>/dev/null <"/proc/$1/stat" || return 0
	st=${st##*) }
	echo "${st%% *}"
}

# in_read PID: the ids of PID's other threads that are blocked in read(2).
in_read() {
	local f sc
	for f in /proc/"$1"/task/*; do
		[ "${f##*/}" = "$1" ] && continue
		read -r sc _ 2>/dev/null <"$f/syscall" && [ "$sc" = 0 ] && echo "${f##*/}"
	done
}

# session_line SID: its line of "systracectl status".
session_line() {
	ctl status
	sed -n "s/^session $1\( \"[^\"]*\"\)\{0,1\}: //p" <<<"$CTL_OUT"
}

# attach_run NAME WHICH: WHICH is "thread" (a live thread's id) or
# "leader" (the process id); leaves the dump in $T/NAME/dump.json and
# writes "NAME PID TARGET PPID SID" to $T/runs.
attach_run() {
	local name=$1 which=$2 pid target end tids=() sid line rc out
	mkfifo "$T/$name.fifo"
	"$P" "$T/$name.fifo" &
	pid=$!
	on_exit "kill -9 $pid 2>/dev/null"
	# Wait for a zombie leader and two threads blocked in read(2).
	end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do
		mapfile -t tids < <(in_read $pid)
		[ ${#tids[@]} -eq 2 ] && [ "$(state $pid)" = Z ] && break
		sleep 0.05
	done
	assert_eq "${#tids[@]} $(state $pid)" "2 Z" "$name: threads in read(2), the leader's state"
	if [ "$which" = thread ]; then target=${tids[0]}; else target=$pid; fi

	# SESSION_NEW (2) with PID (9), no FLAGS.
	out=$("$PROGS/nlraw" --show 2 9:u32:"$target")
	log "$name: SESSION_NEW on $which $target: $out"
	sid=$(grep '^row ' <<<"$out" | tr ' ' '\n' | sed -n 's/^2=//p' | head -n 1)
	assert_match "$sid" '^[0-9]+$' "$name: the new session's id"
	assert_line "$out" '^ack$' "$name: SESSION_NEW's answer"
	line=$(session_line "$sid")
	expect_eq "$line" "running, root pid $pid, 2 live tasks" "$name: the session after the attach"

	# The threads go one after the other: 7, then 9 (the last).
	printf 7 >"$T/$name.fifo"
	end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do
		[ "$(nthreads $pid)" -le 2 ] && break
		sleep 0.05
	done
	assert_eq "$(nthreads $pid)" 2 "$name: tasks left after the first thread's exit"
	printf 9 >"$T/$name.fifo"
	wait $pid
	rc=$?
	expect_eq "$rc" 9 "$name: the exit status the shell's wait sees"

	end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do
		line=$(session_line "$sid")
		[[ $line == finished* ]] && break
		sleep 0.1
	done
	assert_eq "$line" "finished, root pid $pid, 0 live tasks" "$name: the session 10 s after the threads' exits"
	end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do
		ctl status
		grep -q '^probes active: *no$' <<<"$CTL_OUT" && break
		sleep 0.1
	done
	expect_line "$CTL_OUT" '^probes active: +no$' "$name: status 10 s after the session finished"
	mkdir -p "$T/$name"
	ctl_ok dump "$sid" --json --syscalls --no-symbols -o "$T/$name/dump.json"
	ctl_ok reset "$sid"
	echo "$name $pid $target $$ $sid" >>"$T/runs"
}

attach_run bythread thread
attach_run byleader leader

pycheck test_trace_attach_exiting.py "$T" "$P" "$off"
