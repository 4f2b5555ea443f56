# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_errnos.sh, run by its pycheck after the trace."""
from trace_check import begin, done, eq, expect, log, report, Trace

ARGS = begin()
import collections, csv, errno, json, re
d, rdir, prog, off_open, off_close, files, strace_txt = ARGS
t = Trace(d)
OPEN = "ENOENT(2)=37 EACCES(13)=5"
CLOSE = "EBADF(9)=3"
# (offset, nr, syscall, calls, errors, errnos)
WANT = [(off_open, 257, "openat", 42, 42, OPEN), (off_close, 3, "close", 3, 3, CLOSE)]


def parse(text, what, by_name=False):
    """{errno: count} of an errnos cell "NAME(N)=C ...", in its order; by_name:
    {NAME: count} (N for a number with no name), report --json's object."""
    out = collections.OrderedDict()
    for w in (text or "").split():
        m = re.fullmatch(r"([A-Z0-9]*|\?)\((\d+)\)=(\d+)", w)
        if not m:
            report("%s: errnos %r: not NAME(N)=COUNT ..." % (what, text))
            return out
        out[(m.group(1) or m.group(2)) if by_name else int(m.group(2))] = int(m.group(3))
    return out


def by_name(text, what):
    return parse(text, what, True)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


p = t.root()
eq(p["exit_code"], 0, "the program's exit code (every call failed as it should)")

# dump --json: the two sites exactly; every row counted, its errnos adding
# up to its errors.
for off, nr, name, calls, errors, errnos in WANT:
    w = "dump --json: %s site at %s" % (name, off)
    s = t.site(w, path=prog, offset=off)
    if not s:
        continue
    eq((s["nr"], s["syscall"], s["calls"], s["errors"]), (nr, name, calls, errors),
       w + ": (nr, syscall, calls, errors)")
    eq(s["errnos"], errnos, w + ": errnos")
    eq(s["errno_other"], 0, w + ": errno_other")
eq(len(t.sites_where(path=prog)), 2, "dump --json: site rows in the program's file")
unknown = ["%s+%s" % (s["path"], s["offset"]) for s in t.sites if s["errno_other"] is None]
eq(len(unknown), 0, "dump --json: site rows whose errnos are unknown (errno_other null; the first: %s)"
   % (unknown[:1] or "-"))
for s in t.sites:
    w = "dump --json: site %s+%s %s" % (s["path"], s["offset"], s["syscall"])
    if s["errno_other"] is None:
        continue
    e = parse(s["errnos"], w)
    eq(sum(e.values()) + s["errno_other"], s["errors"], w + ": sum of errnos + errno_other vs errors")
    expect(len(e) <= 4, w + ": at most 4 errnos")

# dump's CSV: the trace's sites.csv (--no-symbols) and dump --sites (with
# symbols); its syscalls.csv: the sums per syscall.
for name in ("sites.csv", "dump_sites.csv"):
    path = (d + "/sites.csv") if name == "sites.csv" else (rdir + "/" + name)
    rows = read_csv(path)
    for off, nr, sc, calls, errors, errnos in WANT:
        got = [r for r in rows if r["path"] == prog and r["offset"] == off]
        w = "dump CSV %s: %s site at %s" % (name, sc, off)
        if len(got) != 1:
            report("%s: %d rows" % (w, len(got)))
            continue
        r = got[0]
        eq((r["syscall"], r["calls"], r["errors"], r["errnos"], r["errno_other"]),
           (sc, str(calls), str(errors), errnos, "0"), w + ": (syscall, calls, errors, errnos, errno_other)")
    eq(sum(r["errno_other"] == "" for r in rows), 0, "dump CSV %s: rows without errno_other" % name)

# Per syscall (dump --syscalls): the sums of the site rows.
sums = collections.defaultdict(collections.Counter)
for s in t.sites:
    for k, v in parse(s["errnos"], "sum").items():
        sums[(s["proc_id"], s["nr"])][k] += v
rows = read_csv(d + "/syscalls.csv")
eq(sum(r["errno_other"] != "0" for r in rows), 0, "dump --syscalls CSV: rows whose errno_other is not 0")
for r in rows:
    w = "dump --syscalls CSV: proc %s %s" % (r["proc_id"], r["syscall"])
    eq(dict(parse(r["errnos"], w)), dict(sums[(int(r["proc_id"]), int(r["nr"]))]), w + ": errnos, sum of its sites'")

# report errors --json
with open(rdir + "/errors.json") as f:
    rep = json.load(f)
expect(not any("unknown" in n for n in rep["notes"]), "report errors --json: no note of unknown errnos: %r" % rep["notes"])
tree = collections.Counter()
for s in t.sites:
    tree.update(parse(s["errnos"], "tree"))
got = {e["errno"]: e["count"] for e in rep["errnos"]}
eq(got, dict(tree), "report errors --json: errnos of the tree (sums of the site rows)")
eq(got.get(13), 5, "report errors --json: EACCES in the tree")
eq(got.get(9), 3, "report errors --json: EBADF in the tree")
expect(got.get(2, 0) >= 37, "report errors --json: ENOENT in the tree >= 37")
names = {e["errno"]: e["errno_name"] for e in rep["errnos"]}
eq((names.get(2), names.get(13), names.get(9)), ("ENOENT", "EACCES", "EBADF"), "report errors --json: errno names")
for off, nr, sc, calls, errors, errnos in WANT:
    w = "report errors --json: %s site at %s" % (sc, off)
    got = [s for s in rep["sites"] if s["object"] == prog and s["offset"] == off]
    if len(got) != 1:
        report("%s: %d rows" % (w, len(got)))
        continue
    s = got[0]
    eq((s["syscall"], s["calls"], s["errors"], s["errnos"], s["errno_other"], s["processes"]),
       (sc, calls, errors, dict(by_name(errnos, w)), 0, 1),
       w + ": (syscall, calls, errors, errnos, errno_other, processes)")
    eq(list(s["errnos"]), list(by_name(errnos, w)), w + ": errnos' order, most first")
want_sys = collections.defaultdict(collections.Counter)
for s in t.sites:
    want_sys[s["nr"]].update(parse(s["errnos"], "sys"))
for r in rep["syscalls"]:
    w = "report errors --json: syscall %s" % r["syscall"]
    eq({e: r["errnos"].get(n) for e, n in ((2, "ENOENT"), (13, "EACCES"), (9, "EBADF")) if n in r["errnos"]},
       dict(want_sys[r["nr"]]), w + ": errnos")
    eq(r["errno_other"], 0, w + ": errno_other")
expect(any(r["syscall"] == "openat" for r in rep["syscalls"]), "report errors --json: an openat row")
pr = [r for r in rep["processes"] if r["proc_id"] == p["id"]]
if len(pr) == 1:
    eq(pr[0]["errnos"], {errno.errorcode[e]: c for e, c in tree.items()}, "report errors --json: the process's errnos")
    eq(pr[0]["errno_other"], 0, "report errors --json: the process's errno_other")
else:
    report("report errors --json: %d rows of the program's process" % len(pr))

# report errors --csv: each table as its JSON counterpart.
for name in ("errnos", "syscalls", "sites", "processes"):
    rows = read_csv("%s/%s.csv" % (rdir, name))
    eq(len(rows), len(rep[name]), "report errors --csv --table %s: rows" % name)
    for i, (c, j) in enumerate(zip(rows, rep[name])):
        if "errnos" in j:
            eq(by_name(c.get("errnos"), name), j["errnos"] or {},
               "report errors --csv --table %s row %d: errnos, as JSON's object" % (name, i + 1))
        for k in ("errno_other", "count", "errno", "errno_name", "errors", "offset", "object"):
            if k in j:
                want = "" if j[k] is None else str(j[k])
                eq(c.get(k), want, "report errors --csv --table %s row %d: %s" % (name, i + 1, k))

# report errors, text (--wide): the two site lines end with their errnos
# and errno_other 0; the errno table's lines.
text = open(rdir + "/errors.txt").read()
expect("errnos: unknown" not in text, "report errors text: no \"errnos: unknown\"")
for off, nr, sc, calls, errors, errnos in WANT:
    lines = [ln for ln in text.splitlines()
             if re.search(r"\s%s\s" % re.escape(off), ln) and prog in ln and re.search(r"\s%s\s" % sc, ln)]
    w = "report errors text: %s site at %s" % (sc, off)
    if len(lines) != 1:
        report("%s: %d lines" % (w, len(lines)))
        continue
    expect(re.search(r"^\s*%d\s+%d\s+1\s.*\s%s\s+0$" % (errors, calls, re.escape(errnos)), lines[0]),
           "%s: %r ends with %r and errno_other 0" % (w, lines[0], errnos))
for n, name, count in ((13, "EACCES", 5), (9, "EBADF", 3), (2, "ENOENT", tree[2])):
    expect(re.search(r"(?m)^\s*%d\s+[0-9.]+\s+%d\s+%s$" % (count, n, name), text),
           "report errors text: errno table line \"%d ... %d %s\"" % (count, n, name))

# strace -Z: the same failures, by errno, at the same calls.
if strace_txt:
    seen = collections.Counter()
    for line in open(strace_txt):
        m = re.search(r"^(?:\d+ +)?(openat|close)\((.*)\) += -1 (E[A-Z]+)", line)
        if m:
            what = "missing" if "/missing\"" in m.group(2) else "locked" if "/locked\"" in m.group(2) else m.group(2)
            seen[(m.group(1), what, m.group(3))] += 1
    log("strace -Z: %r" % dict(seen))
    eq(seen[("openat", "missing", "ENOENT")], 37, "strace -Z: openat ENOENT")
    eq(seen[("openat", "locked", "EACCES")], 5, "strace -Z: openat EACCES")
    eq(seen[("close", "-1", "EBADF")], 3, "strace -Z: close(-1) EBADF")
done()
