#!/usr/bin/env bash
# Cross-check against strace: a clean `make -j2` build run as
# `systracectl start -- strace -f -c -- make -j2`; the traced tree's calls
# and errors per syscall equal strace's table, syscall by syscall.
# tags: trace bpf
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_cmd strace
need_cmd make
need_cmd cc
on_exit mod_unload_quiet
mod_load

W=$T/build
mkdir -p "$W"
printf 'int f1(void);\nint main(void) { return f1(); }\n' >"$W/main.c"
printf 'int f1(void) { return 0; }\n' >"$W/f1.c"
# shellcheck disable=SC2016 # make's variables
printf 'prog: main.o f1.o\n\t$(CC) -o $@ main.o f1.o\n' >"$W/Makefile"
cd "$W" || fail "cd $W"
trace -- strace -f -c -o "$T/strace.txt" -- make -j2
cd "$T" || fail "cd $T"
assert_eq "$TRACE_RC" 0 "exit status of strace (make's)"
[ -x "$W/prog" ] || fail "the build made no program"
log "$(cat "$T/strace.txt")"

pycheck test_trace_strace.py "$D" "$T/strace.txt"
