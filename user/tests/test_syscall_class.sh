#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --syscall takes strace's syntax: each class (%file, %process, %network,
# %net, %signal, %ipc, %desc, %memory) selects exactly the syscalls that
# strace -e trace=%CLASS traces of a program that makes every x86_64
# syscall (a seccomp filter fails each with ENOSYS, so none runs), among
# the numbers strace knows by name; '!LIST' leaves a list out; a class or
# a name nobody knows is a usage error that suggests the nearest.
. "$(dirname "$0")/testlib.sh"

T=$(mktemp -d /tmp/systrace-test-class.XXXXXX)
trap 'rm -rf "$T"' EXIT
MAXNR=462

# report syscalls of a log with one call of each x64 syscall 0..MAXNR:
# the names --syscall ARGS keeps, one a line, sorted.
{
	echo "session_id,proc_id,pid,tid,comm,seq,ts_ns,dur_ns,event,abi,nr,syscall,ret,errno,addr,map,path,offset,symbol,phase,early,child_proc_id,child_pid,exit_code,exit_signal,argv,argv_truncated"
	echo "7,1,1000,1000,callall,,1000000000,,exec,,,,,,,,/bin/callall,,,,,,,,,callall,0"
	for nr in $(seq 0 $MAXNR); do
		printf '7,1,1000,1000,callall,%d,%d,400,syscall,x64,%d,,-38,38,0x%x,file,/bin/callall,0x%x,,program,0,,,,,,\n' \
			"$nr" $((1000001000 + nr * 1000)) "$nr" $((0x401000 + nr * 16)) $((0x1000 + nr * 16))
	done
	echo "7,1,1000,1000,callall,,2000000000,,exit,,,,,,,,,,,,,,,0,,,"
} >"$T/all.csv"
kept() {
	"$CTL" report syscalls --input "$T/all.csv" --csv --top 1000 "$@" 2>"$T/err" |
		awk -F, 'NR > 1 { print $11 }' | sort
}

eq "no --syscall: the log's $((MAXNR + 1)) syscalls" "$(kept | grep -c "")" $((MAXNR + 1))
eq "--syscall '!%process': 462 + 1 - 16 syscalls" "$(kept --syscall '!%process' | grep -c "")" 447
eq "--syscall '!wait4,read' --syscall %process: %process without wait4" \
	"$(kept --syscall '!wait4,read' --syscall %process | paste -sd' ')" \
	"clone clone3 execve execveat exit exit_group fork kill pidfd_send_signal rt_sigqueueinfo rt_tgsigqueueinfo tgkill tkill vfork waitid"
eq "--syscall %ipc,0,close: a class, a number and a name" \
	"$(kept --syscall %ipc,0,close | paste -sd' ')" \
	"close msgctl msgget msgrcv msgsnd read semctl semget semop semtimedop shmat shmctl shmdt shmget"

if ! command -v strace >/dev/null || ! command -v cc >/dev/null; then
	skip "the classes against strace's" "no strace or cc"
	done_testing
fi
# Every syscall but exit (60) fails with ENOSYS without running; exit ends it.
cat >"$T/callall.c" <<'PROG'
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>

static long sc(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

void _start(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 60, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 38),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { 4, f };
	long n;

	sc(157, 38, 1, 0);	/* prctl(PR_SET_NO_NEW_PRIVS) */
	sc(317, 1, 0, (long)&p);	/* seccomp(SECCOMP_SET_MODE_FILTER) */
	for (n = 0; n <= MAXNR; n++)
		if (n != 60 && (n < 335 || n >= 424))
			sc(n, 0, 0, 0);
	sc(60, 0, 0, 0);
	for (;;)
		;
}
PROG
if ! cc -O1 -nostdlib -static -fno-stack-protector -DMAXNR=$MAXNR -o "$T/callall" "$T/callall.c" 2>"$T/cc.err"; then
	skip "the classes against strace's" "cc could not build a static program"
	done_testing
fi
# The numbers strace names (it shows the others as syscall_0xNNN).
strace -qq -o "$T/all.trace" "$T/callall"
grep -c '= -1 ENOSYS' "$T/all.trace" >"$T/n"
eq "strace saw the program's $((MAXNR + 1 - 1 - (424 - 335))) failed calls" "$(cat "$T/n")" $((MAXNR + 1 - 1 - (424 - 335)))
for cls in file process network net signal ipc desc memory; do
	strace -qq -o "$T/$cls.trace" -e trace=%$cls "$T/callall"
	want=$(sed -n 's/^\([a-z0-9_]*\)(.*/\1/p' "$T/$cls.trace" | grep -v '^syscall_0x' | sort -u)
	got=$(kept --syscall %$cls)
	eq "--syscall %$cls: strace's $(grep -c . <<<"$want") syscalls of the class" "$got" "$want"
done

check_error() {
	"$CTL" report syscalls --input "$T/all.csv" "$@" >"$T/out" 2>"$T/err"
	echo "$?|$(head -n 1 "$T/err")|$(wc -c <"$T/out")"
}
eq "an unknown class: the classes, and the nearest" "$(check_error --syscall '!%fiel')" \
	"1|systracectl: --syscall: no class is named '%fiel'; did you mean '%file'? classes: %file, %process, %network, %signal, %ipc, %desc, %memory, %net|0"
eq "an unknown name: the nearest" "$(check_error --syscall 'wiat4')" \
	"1|systracectl: --syscall: no syscall is named 'wiat4'; did you mean 'wait4'?|0"
eq "a name far from any: no suggestion" "$(check_error --syscall 'zzzzzzzz')" \
	"1|systracectl: --syscall: no syscall is named 'zzzzzzzz'|0"
eq "'!' alone: a list is needed" "$(check_error --syscall '!')" \
	"1|systracectl: --syscall needs a NAME|0"
done_testing
