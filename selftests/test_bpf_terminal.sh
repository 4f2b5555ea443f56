#!/usr/bin/env bash
# The traced command owns its terminal: start's status line, on a pty of
# its own (the controlling terminal), as pyte (python3-pyte) renders what a
# terminal shows, TERM=xterm, a status line due at every poll
# (ST_TEST_PROGRESS_EVERY=1):
#   prompt    sh printing "Enter: " with no newline, then reading a line
#             typed 0.5 s later: under start -q, the terminal gets byte for
#             byte what it gets from sh alone ("Enter: abc", the echo, "got
#             abc") after start's session line, and renders the same; under
#             start, the same up to start's summary
#   make      make -j2 compiling 6 files with cc, its 7 command lines: the
#             same, under start -q and start
#   redirect  make's stdout and stderr to a file: with stdin the terminal,
#             nothing reaches the terminal; with --progress, only redraws
#             (terminfo's cr, a line, el, as tput says) and an erase, a
#             blank screen at the end, each line cut to 59 of 60 columns
#             with the row below blank; make's 7 lines whole in the file.
#             Stdin too away from the terminal: a status line by default,
#             naming the session; none with --no-progress or -q; one with
#             -q --progress
#   terminfo  TERM=vt52: its own el (ESC K), no ANSI sequence; TERM=dumb
#             and no TERM: no status line, and start says why
# The status line's code is the CLI's alone: the BPF backend serves it here.
# tags: bpf
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_cmd make
need_cmd cc
need_cmd tput
PY=/usr/bin/python3
"$PY" -c 'import pyte' 2>/dev/null || missing "needs $PY with pyte (python3-pyte)"
on_exit mod_unload_quiet
mod_load

mkdir -p "$T/mk"
objs=
for i in 1 2 3 4 5 6; do
	printf 'int f%d(int x)\n{\n\treturn x * %d;\n}\n' "$i" "$i" >"$T/mk/f$i.c"
	objs+=" f$i.o"
done
printf 'libf.a:%s\n\tar rcs $@ $^\n%%.o: %%.c\n\tcc -O2 -c $< -o $@\n' "$objs" >"$T/mk/Makefile"

PYTHONPATH=$TOP/selftests "$PY" "$TOP/selftests/test_bpf_terminal.py" "$SYSTRACECTL" bpf "$T/mk" "$T" ||
	_lib_report "the checks above failed"
