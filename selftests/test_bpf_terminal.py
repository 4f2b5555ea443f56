# SPDX-License-Identifier: GPL-2.0
"""test_bpf_terminal.sh's runs and checks: CMD alone and under systracectl
start, each on a pty of its own (its controlling terminal), and what a
terminal shows of them as pyte renders it.

    test_bpf_terminal.py SYSTRACECTL BACKEND MAKEDIR SCRATCH
"""
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
import fcntl

import pyte

from trace_check import done, eq, expect, log

CTL, BACKEND, MK, T = sys.argv[1:5]
START = [CTL, "start", "--backend", BACKEND, "--counters", "none"]
FILES = 6
PROMPT = 'printf "Enter: "; read x; echo "got $x"'
# CMD's standard fds redirected, start's with them (sh execs it).
OUT = os.path.join(T, "out")
TO_FILE = 'exec "$@" >%s 2>&1' % OUT
ALL_TO_FILE = TO_FILE + " </dev/null"

SESSION = re.compile(rb"systracectl: session ([0-9]+): tracing ([^ ]+) \(pid [0-9]+\)\r\n")
STATUS = re.compile(r"systracectl: session ([0-9]+): ([0-9]+) processes, [0-9.]+[kMG]? syscalls "
                    r"\([0-9.]+[kMG]?/s\), [0-9]+ dropped")


# A make that runs this test (make check) leaves its level and flags in the
# environment: the test's own make would then print "Entering directory"
# lines and share that make's jobserver.
NOT_INHERITED = ("TERM", "COLUMNS", "LINES", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES",
                 "GNUMAKEFLAGS")


def env_for(term):
    env = {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}
    # Tests only: a status line at every poll (20 ms), whatever the clock.
    env["ST_TEST_PROGRESS_EVERY"] = "1"
    if term:
        env["TERM"] = term
    return env


class Run:
    """argv on a new pty of cols x rows: its raw bytes."""

    def __init__(self, argv, cols=100, rows=50, term="xterm", answer=None, cwd=None):
        self.argv, self.cols, self.rows = argv, cols, rows
        self.chunks = []  # as read
        pid, fd = pty.fork()
        if pid == 0:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            if cwd:
                os.chdir(cwd)
            os.execvpe(argv[0], argv, env_for(term))
        deadline = time.monotonic() + 120
        answered = answer is None
        status = None
        # Until the child is gone, then what it left: the terminal stays
        # open while no fd of the child has it (a closed pty hangs it up).
        while True:
            if status is None and time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                expect(False, "%s: still running after 120 s" % argv)
            if status is None:
                p, st = os.waitpid(pid, os.WNOHANG)
                status = st if p == pid else None
            if not answered and answer[0] in self.raw:
                # Time for several polls of start: a status line would be drawn.
                time.sleep(0.5)
                os.write(fd, answer[1])
                answered = True
            r, _, _ = select.select([fd], [], [], 0 if status is not None else 0.05)
            try:
                chunk = os.read(fd, 65536) if r else b""
            except OSError:
                chunk = b""
            if chunk:
                self.chunks.append(chunk)
            elif status is not None:
                break
            elif r:
                time.sleep(0.05)
        os.close(fd)
        self.status = os.waitstatus_to_exitcode(status)

    @property
    def raw(self):
        return b"".join(self.chunks)

    def screen(self, upto=None):
        """The rendered lines, less their trailing blanks and blank last lines."""
        screen = pyte.Screen(self.cols, self.rows)
        pyte.ByteStream(screen).feed(self.raw if upto is None else upto)
        return rendered(screen)

    def status_rows(self, el):
        """The cursor's row, and the row below, after each redraw (each el)
        that changed them."""
        screen = pyte.Screen(self.cols, self.rows)
        stream = pyte.ByteStream(screen)
        seen = []
        for c in self.raw.split(el):
            stream.feed(c + el)
            row = screen.display[screen.cursor.y].rstrip()
            below = screen.display[screen.cursor.y + 1].strip() if screen.cursor.y + 1 < self.rows else ""
            if row.startswith("systracectl: session") and (not seen or seen[-1][0] != row):
                seen.append((row, below))
        return seen


def rendered(screen):
    lines = [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def tput(term, cap):
    return subprocess.run(["tput", "-T", term, cap], check=True, stdout=subprocess.PIPE).stdout


def make_clean():
    for i in range(1, FILES + 1):
        for f in ("f%d.o" % i, "libf.a"):
            if os.path.exists(os.path.join(MK, f)):
                os.unlink(os.path.join(MK, f))


def make_run(argv, **kw):
    make_clean()
    return Run(argv + ["make", "-j2"], cwd=MK, **kw)


def session_of(what, raw):
    """start's session line at the start of raw: (its bytes, its id)."""
    m = SESSION.match(raw)
    if not expect(m, "%s: the terminal starts with start's session line: %r" % (what, raw[:200])):
        return b"", None
    return m.group(0), m.group(1).decode()


def owns(what, traced, plain, whole):
    """CMD's bytes on the terminal are plain's, right after the session line
    (and, when whole, nothing follows them); so is its rendered screen."""
    eq(traced.status, plain.status, "%s: exit status" % what)
    head, sid = session_of(what, traced.raw)
    body = traced.raw[len(head):]
    if whole:
        eq(body, plain.raw, "%s: what reaches the terminal after the session line, byte for byte" % what)
    else:
        eq(body[:len(plain.raw)], plain.raw, "%s: CMD's bytes on the terminal, byte for byte" % what)
        eq(b"\r" in body[len(plain.raw):].replace(b"\r\n", b""), False,
           "%s: the summary after CMD draws nothing over a line" % what)
    screen = traced.screen()
    want = plain.screen()
    eq(screen[1:1 + len(want)], want, "%s: the rendered screen, after the session line" % what)
    if whole:
        eq(len(screen), 1 + len(want), "%s: the rendered screen's lines" % what)
    return sid


def drawn(what, run, term="xterm"):
    """The status lines drawn: the terminal got only redraws (cr, text, el)
    and a last erase (cr, el), with terminfo's cr and el for term as tput
    says. Returns the texts."""
    cr, el = tput(term, "cr"), tput(term, "el")
    raw = run.raw
    if not expect(raw.endswith(cr + el), "%s: the terminal ends with an erase (%r): %r" % (what, cr + el, raw[-200:])):
        return []
    parts = raw[:-len(cr + el)].split(cr)
    texts = [p[:-len(el)].decode() for p in parts[1:] if p.endswith(el)]
    eq((parts[0], len(texts)), (b"", len(parts) - 1), "%s: every write to the terminal is cr, a line, el" % what)
    expect(texts, "%s: the status line is drawn: %r" % (what, raw[-300:]))
    if term == "xterm":
        eq(run.screen(), [], "%s: the terminal is blank at the end" % what)
    return texts


def out_lines():
    with open(OUT, "rb") as f:
        data = f.read()
    eq(re.search(rb"[\r\x1b]", data), None, "the redirected output has no cr nor escape")
    return data.decode(errors="replace").splitlines()


def redirected(what, run, plain_lines):
    """The file that CMD's and start's output went to: start's session line,
    then CMD's lines whole and in order."""
    eq(run.status, 0, "%s: exit status" % what)
    lines = out_lines()
    m = SESSION.match((lines[0] + "\r\n").encode()) if lines else None
    expect(m, "%s: the file starts with the session line: %r" % (what, lines[:3]))
    eq(lines[1:1 + len(plain_lines)], plain_lines, "%s: CMD's lines in the file" % what)
    return m.group(1).decode() if m else None


# --- a prompt with no newline ------------------------------------------------
prompt = Run(["sh", "-c", PROMPT], answer=(b"Enter: ", b"abc\r"))
eq(prompt.raw, b"Enter: abc\r\ngot abc\r\n", "sh alone: its bytes on the terminal (its prompt, the echo, its answer)")
eq(prompt.screen(), ["Enter: abc", "got abc"], "sh alone: the rendered screen")
run = Run(START + ["-q", "--", "sh", "-c", PROMPT], answer=(b"Enter: ", b"abc\r"))
owns("start -q -- sh (a prompt)", run, prompt, True)
run = Run(START + ["--", "sh", "-c", PROMPT], answer=(b"Enter: ", b"abc\r"))
owns("start -- sh (a prompt)", run, prompt, False)

# --- make -j2 --------------------------------------------------------------
objs = " ".join("f%d.o" % i for i in range(1, FILES + 1))
want = "".join("cc -O2 -c f%d.c -o f%d.o\r\n" % (i, i) for i in range(1, FILES + 1))
want += "ar rcs libf.a %s\r\n" % objs
plain = make_run([])
eq(plain.raw, want.encode(), "make -j2 alone: its bytes on the terminal")
eq(plain.status, 0, "make -j2 alone: exit status")
plain_lines = want.replace("\r\n", "\n").splitlines()
owns("start -q -- make -j2", make_run(START + ["-q", "--"]), plain, True)
owns("start -- make -j2", make_run(START + ["--"]), plain, False)

# --- where the status line goes: CMD's output redirected ---------------------
# stdout and stderr to a file, stdin the terminal: by default, none.
run = make_run(["sh", "-c", TO_FILE, "sh"] + START + ["--"])
eq(run.raw, b"", "start -- make >FILE 2>&1 (stdin the terminal): nothing on the terminal")
redirected("start -- make >FILE 2>&1", run, plain_lines)
# --progress: a status line on the terminal, cut to its width (59 of 60
# columns, on one row), erased at the end; the file has make's lines whole.
run = make_run(["sh", "-c", TO_FILE, "sh"] + START + ["--progress", "--"], cols=60)
texts = drawn("start --progress -- make >FILE 2>&1", run)
sid = redirected("start --progress -- make >FILE 2>&1", run, plain_lines)
full = [t for t in texts if STATUS.fullmatch(t)]
cut = [t for t in texts if not STATUS.fullmatch(t)]
eq([t for t in cut if len(t) != 59 or not t.startswith("systracectl: session %s: " % sid)], [],
   "start --progress on 60 columns: each status line longer than 59 columns is cut at 59")
eq([t for t in full if len(t) > 59], [], "start --progress on 60 columns: no line wider than 59")
rows = run.status_rows(tput("xterm", "el"))
expect(rows, "start --progress: the status line shows on the rendered screen")
eq([r for r in rows if r[1]], [], "start --progress on 60 columns: the row below the status line stays blank")
log("start --progress -- make >FILE 2>&1: %d status lines drawn, %d cut; the last: %r"
    % (len(texts), len(cut), texts[-1] if texts else None))

# stdin, stdout and stderr away from the terminal: a status line by default.
run = make_run(["sh", "-c", ALL_TO_FILE, "sh"] + START + ["--"])
texts = drawn("start -- make </dev/null >FILE 2>&1", run)
sid = redirected("start -- make </dev/null >FILE 2>&1", run, plain_lines)
eq([t for t in texts if not STATUS.fullmatch(t) or STATUS.fullmatch(t).group(1) != sid], [],
   "start -- make </dev/null >FILE 2>&1: every status line names session %s" % sid)
procs = [int(STATUS.fullmatch(t).group(2)) for t in texts if STATUS.fullmatch(t)]
eq(procs, sorted(procs), "the status line's process count never goes down")
log("start -- make </dev/null >FILE 2>&1: %d status lines drawn; the last: %r" % (len(texts), texts[-1] if texts else None))

for flags, what in ((["--no-progress"], "--no-progress"), (["-q"], "-q")):
    run = make_run(["sh", "-c", ALL_TO_FILE, "sh"] + START + flags + ["--"])
    eq(run.raw, b"", "start %s -- make </dev/null >FILE 2>&1: nothing on the terminal" % what)
    redirected("start %s -- make </dev/null >FILE 2>&1" % what, run, plain_lines)
run = make_run(["sh", "-c", ALL_TO_FILE, "sh"] + START + ["-q", "--progress", "--"])
drawn("start -q --progress -- make </dev/null >FILE 2>&1", run)
redirected("start -q --progress -- make </dev/null >FILE 2>&1", run, plain_lines)

# --- the terminal's type: terminfo's sequences, or no status line --------------
SLEEP = ["sh", "-c", ALL_TO_FILE, "sh"] + START + ["--progress", "--", "sleep", "0.5"]
run = Run(SLEEP, term="vt52")
drawn("TERM=vt52 start --progress", run, term="vt52")
eq(b"\x1b[" in run.raw, False, "TERM=vt52: no ANSI sequence")
for term, why in (("dumb", "terminfo has no entry for TERM=dumb that can erase a line"),
                  (None, "TERM is not set")):
    run = Run(SLEEP, term=term)
    eq(run.raw, b"", "TERM=%s start --progress: nothing on the terminal" % term)
    eq(out_lines()[:1], ["systracectl: --progress: no status line: %s" % why],
       "TERM=%s start --progress: says why there is no status line" % term)
done()
