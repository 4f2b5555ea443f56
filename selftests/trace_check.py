# SPDX-License-Identifier: GPL-2.0
"""Checks of the tracing tests, in one Python process per test (a Python
start costs about a second in the TCG guest).

A test_X.sh, after trace (trace_lib.sh) left its dumps in $D, runs
pycheck test_X.py "$D" more args, and test_X.py beside it reads:

    from trace_check import begin, done, eq, Trace

    ARGS = begin()
    t = Trace(ARGS[0])
    root = t.root()
    eq(t.calls(proc_id=root["id"], nr=110), 1000, "getppid calls")
    done()

begin() first checks the invariants of every trace since the last pycheck.

Failures print "FAIL: what: expected X, got Y" (lib.sh's form); the script
exits 1 at its end if any check failed, so a test reports every mismatch.

    python3 trace_check.py invariants DIR
checks that the rows of a finished session add up (see invariants()).
"""
import collections
import csv
import json
import os
import sys

failed = 0


def report(msg):
    global failed
    failed += 1
    print("FAIL: " + msg)
    return False


def eq(got, want, what):
    return got == want or report("%s: expected %r, got %r" % (what, want, got))


def ge(got, low, what):
    ok = got is not None and got >= low
    return ok or report("%s: expected at least %r, got %r" % (what, low, got))


def le(got, high, what):
    ok = got is not None and got <= high
    return ok or report("%s: expected at most %r, got %r" % (what, high, got))


def expect(cond, what):
    return bool(cond) or report(what)


def log(msg):
    print(msg)


def match(row, conds):
    for k, v in conds.items():
        if k not in row:
            raise KeyError("no column %r in %s" % (k, sorted(row)))
        if row[k] != v:
            return False
    return True


class Trace:
    """The dumps of one traced session (a directory made by trace)."""

    def __init__(self, d):
        self.dir = d
        with open(os.path.join(d, "dump.json")) as f:
            self.doc = json.load(f)
        self.session = self.doc["session"]
        self.totals = self.doc["totals"]
        self.procs = self.doc["processes"]
        self.sites = self.doc["sites"]
        self.syscalls = self.doc.get("syscalls", [])

    def procs_where(self, **w):
        return [p for p in self.procs if match(p, w)]

    def sites_where(self, **w):
        return [s for s in self.sites if match(s, w)]

    def proc(self, what="process", **w):
        """The one process row matching w, or None (a failure)."""
        rows = self.procs_where(**w)
        if len(rows) != 1:
            report("%s: expected one process row with %r, got %d" % (what, w, len(rows)))
            return None
        return rows[0]

    def site(self, what="site", **w):
        rows = self.sites_where(**w)
        if len(rows) != 1:
            report("%s: expected one site row with %r, got %d" % (what, w, len(rows)))
            return None
        return rows[0]

    def root(self):
        return self.proc("the root", parent_id=None, prev_id=None)

    def calls(self, **w):
        return sum(s["calls"] for s in self.sites_where(**w))

    def errors(self, **w):
        return sum(s["errors"] for s in self.sites_where(**w))

    def children(self, parent):
        return [p for p in self.procs if p["parent_id"] == parent["id"]]


def done():
    sys.exit(1 if failed else 0)


def begin():
    """The start of a test's checks (test_X.py, run by pycheck): the
    invariants of every trace since the last pycheck, then the arguments."""
    check_traces()
    return sys.argv[1:]


def check_traces():
    """The invariants of every dump trace made (TRACE_DIRS)."""
    for d in os.environ.get("TRACE_DIRS", "").splitlines():
        if d:
            print("%s:" % os.path.basename(d), end=" ")
            invariants(d)


# --- invariants ------------------------------------------------------------

SITE_KEY = {"syscalls": "calls", "errors": "errors", "syscall_ns": "total_ns"}


# --- argv's command line (docs/semantics.md), independently of the CLI ---

_PLAIN = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def _utf8_runs(b):
    """b as (bytes, valid) runs: valid UTF-8 characters, or one bad byte."""
    i = 0
    while i < len(b):
        for n in (1, 2, 3, 4):
            try:
                b[i:i + n].decode("utf-8")
                yield b[i:i + n], True
                i += n
                break
            except UnicodeDecodeError:
                continue
        else:
            yield b[i:i + 1], False
            i += 1


def shell_quote(args):
    """A list of bytes as systracectl's argv command line writes it."""
    out = []
    for a in args:
        runs = list(_utf8_runs(a))
        if a and all(c in _PLAIN for c in a):
            out.append(a.decode())
        elif all(ok and not (len(r) == 1 and (r[0] < 0x20 or r[0] == 0x7f)) for r, ok in runs):
            out.append("'" + a.decode().replace("'", "'\\''") + "'")
        else:
            q = "$'"
            for r, ok in runs:
                if ok and len(r) > 1:
                    q += r.decode()
                    continue
                c = r[0]
                if c in (0x5c, 0x27):
                    q += "\\" + chr(c)
                elif c in (10, 9, 13):
                    q += {10: "\\n", 9: "\\t", 13: "\\r"}[c]
                elif c < 0x20 or c >= 0x7f:
                    q += "\\x%02x" % c
                else:
                    q += chr(c)
            out.append(q + "'")
    return " ".join(out)


def shell_split(s):
    """The command line s back to a list of bytes (bash's reading of it)."""
    cmd = ["bash", "-c", 'eval "set -- $1"; printf "%s\\0" "$@"', "-", s]
    import subprocess
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True).stdout
    return out.split(b"\0")[:-1]


def _csv_argv(c, v):
    """The CSV's argv (a command line) against the JSON's (strings): the
    same arguments, but for bytes JSON shows as U+FFFD."""
    if v is None:
        return c == ""
    return [a.decode("utf-8", "replace") for a in shell_split(c)] == v


def _csv_vs_json(d, name, table, rows):
    """The CSV table holds the JSON rows: same columns, same values."""
    path = os.path.join(d, name)
    if not os.path.exists(path):
        return
    with open(path, newline="") as f:
        got = list(csv.DictReader(f))
    eq(len(got), len(rows), "%s: rows in the CSV vs the JSON" % name)
    for i, (c, j) in enumerate(zip(got, rows)):
        for k, v in j.items():
            if k not in c:
                report("%s: no CSV column %s" % (name, k))
                return
            if isinstance(v, list) or k == "argv":
                if not _csv_argv(c[k], v):
                    report("%s row %d column %s: CSV %r, JSON %r" % (name, i + 1, k, c[k], v))
                    return
                continue
            want = "" if v is None else ("1" if v is True else "0" if v is False else str(v))
            if c[k] != want:
                report("%s row %d column %s: CSV %r, JSON %r" % (name, i + 1, k, c[k], want))
                return


def forced_late_resolve():
    """The module's force_late_resolve parameter (testing) is on."""
    try:
        with open("/sys/module/systrace/parameters/force_late_resolve") as f:
            return f.read().strip() == "Y"
    except OSError:
        return False


def invariants(d, forced=None):
    """forced: whether force_late_resolve was on during the trace (None:
    as the module's parameter is now)."""
    if forced is None:
        forced = forced_late_resolve()
    t = Trace(d)
    s, tot, procs, sites = t.session, t.totals, t.procs, t.sites
    before = failed
    if s["state"] == "detached":
        # Detached: final as well, and no row was left running.
        eq([p["id"] for p in procs if p["end"] == "running"], [], "rows still running in a detached session")
    else:
        eq(s["state"], "finished", "session state")
    eq(tot["consistent"], True, "totals.consistent")
    eq(tot["live"], False, "totals.live")
    eq(tot["interrupted"], False, "totals.interrupted")
    # Every site resolves. A first hit that finds the mmap lock busy (a
    # sibling thread mapping its stack) is resolved on the thread's way
    # back to user mode (late_resolves); only a contended first execve or
    # exit_group leaves map=unknown, which these workloads never hit. With
    # the module's force_late_resolve every first hit takes that path.
    unknown = [x for x in sites if x["map"] == "unknown"]
    for k in ("procs", "sites", "syscalls", "nomem", "counters"):
        eq(s["dropped_" + k], 0, "session dropped_" + k)
    if forced:
        eq(sorted({x["syscall"] for x in unknown} - {"execve", "exit_group"}), [],
           "forced late resolves: syscalls of the site rows of map unknown")
        eq(s["dropped_resolve"], len(unknown), "forced late resolves: dropped_resolve")
        eq(s["late_resolves"], sum(x["map"] != "vsyscall" for x in sites) - len(unknown),
           "forced late resolves: every other site resolved late")
    else:
        eq(s["dropped_resolve"], 0, "session dropped_resolve")
        eq([(x["proc_id"], x["addr"], x["syscall"]) for x in unknown], [], "site rows of map unknown")
        if s["late_resolves"]:
            print("NOTE: %d sites resolved late (mmap lock busy at the first hit)" % s["late_resolves"])
    for x in sites:
        expect((x["path"] is not None) == (x["map"] == "file"),
               "site %s: a path exactly when map is file" % x["addr"])
    eq(s["processes"], len(procs), "session processes vs rows")
    eq(s["sites"], len(sites), "session sites vs rows")
    eq(tot["processes"], len(procs), "totals processes vs rows")
    eq(tot["sites"], len(sites), "totals sites vs rows")
    for k, sk in SITE_KEY.items():
        eq(s[k], sum(p[k] for p in procs), "session %s vs the process rows" % k)
        eq(tot[k], sum(p[k] for p in procs), "totals %s vs the process rows" % k)
        eq(s[k], sum(x[sk] for x in sites), "session %s vs the site rows" % k)

    by_proc = collections.defaultdict(list)
    for x in sites:
        by_proc[x["proc_id"]].append(x)
    ids = {p["id"] for p in procs}
    eq(sorted(set(by_proc) - ids), [], "site rows of no process row")
    for p in procs:
        mine = by_proc.get(p["id"], [])
        for k, sk in SITE_KEY.items():
            eq(p[k], sum(x[sk] for x in mine), "process %d %s vs its site rows" % (p["id"], k))
        eq(p["sites"], len(mine), "process %d sites vs its site rows" % p["id"])
        for x in mine:
            expect(x["errors"] <= x["calls"], "site %s of process %d: errors > calls" % (x["addr"], p["id"]))
            expect(x["calls"] > 0, "site %s of process %d: no calls" % (x["addr"], p["id"]))

    agg = collections.defaultdict(lambda: [0, 0, 0, 0])
    for x in sites:
        a = agg[(x["proc_id"], x["abi"], x["nr"])]
        a[0] += x["calls"]
        a[1] += x["errors"]
        a[2] += x["total_ns"]
        a[3] += 1
    got = {(r["proc_id"], r["abi"], r["nr"]): [r["calls"], r["errors"], r["total_ns"], r["sites"]]
           for r in t.syscalls}
    eq(got, dict(agg), "the syscalls table vs the site rows")

    eq(s["exits"], sum(1 for p in procs if p["end"] in ("exited", "signaled")),
       "session exits vs rows that exited or were killed")
    eq(s["signal_exits"], sum(1 for p in procs if p["end"] == "signaled"),
       "session signal_exits vs signaled rows")
    # Rows of processes that ran before an attach were made by neither a
    # fork nor an exec, and their threads by no clone; a session made by
    # start has none, and its root's row was made by the root's exec.
    att = [p for p in procs if p.get("attached")]
    if s["flags"] & 1:
        eq([p["id"] for p in att], [], "attached rows in a session made by start (on exec)")
    eq(s["execs"], sum(1 for p in procs if p["prev_id"] is not None) + (0 if att else 1),
       "session execs vs rows made by an exec, the root's included")
    eq(s["forks"], sum(1 for p in procs
                       if p["parent_id"] is not None and p["prev_id"] is None and not p.get("attached")),
       "session forks vs rows made by a fork")
    if att:
        le(s["clones"], sum(p["threads"] - 1 for p in procs), "session clones vs threads beyond the first")
    else:
        eq(s["clones"], sum(p["threads"] - 1 for p in procs), "session clones vs threads beyond the first")
    eq(s["processes"], s["forks"] + s["execs"] + len(att), "procs == forks + execs + attached")
    for p in procs:
        if p["end"] == "exited":
            expect(p["exit_code"] is not None, "process %d exited without an exit_code" % p["id"])
        if p["end"] == "signaled":
            expect(p["exit_signal"] is not None, "process %d signaled without an exit_signal" % p["id"])
        if p["prev_id"] is not None:
            expect(p["prev_id"] in ids, "process %d: prev_id %d is no row" % (p["id"], p["prev_id"]))
        if p["parent_id"] is not None:
            expect(p["parent_id"] in ids, "process %d: parent_id %d is no row" % (p["id"], p["parent_id"]))
    eq(sum(1 for p in procs if p["parent_id"] is None and p["prev_id"] is None), 1,
       "rows with neither parent nor previous image (the root)")
    key = {"instructions": "instructions", "cycles": "cycles", "task-clock": "task_clock_ns"}.get(s["counters"])
    if key and s[key] is not None:
        eq(s[key], sum(p[key] or 0 for p in procs), "session %s vs the process rows" % key)
        eq(tot[key], s[key], "totals %s vs the session" % key)

    _csv_vs_json(d, "procs.csv", "processes", procs)
    _csv_vs_json(d, "sites.csv", "sites", sites)
    _csv_vs_json(d, "syscalls.csv", "syscalls", t.syscalls)

    if failed > before:
        print("session: " + json.dumps({k: s[k] for k in (
            "processes", "sites", "syscalls", "errors", "forks", "clones", "execs", "exits", "signal_exits")}))
        for p in procs:
            print("process: " + json.dumps({k: p[k] for k in (
                "id", "parent_id", "prev_id", "pid", "comm", "end", "exit_code", "exit_signal",
                "threads", "syscalls", "errors", "sites")}))
        return False
    print("invariants ok: %d processes, %d sites, %d syscalls, %d errors; forks %d clones %d execs %d exits %d signal_exits %d"
          % (len(procs), len(sites), s["syscalls"], s["errors"], s["forks"], s["clones"],
             s["execs"], s["exits"], s["signal_exits"]))
    return True


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "invariants":
    sys.exit(0 if invariants(sys.argv[2]) else 1)
