# SPDX-License-Identifier: GPL-2.0
"""Checks of test_bpf_argv.sh; `limit DUMP` prints the max_mem of its last run."""
import json
import os
import sys

ARGV_MAX = 4096
CHUNK = 192       # STB_ARGV_CHUNK
HEAD = 8          # struct stb_argv_head


def load_rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def images(rows):
    """argvkeep's four rows: top, known (its exec), child (forked), long."""
    top = [r for r in rows if not r["prev_id"] and not r["parent_id"]]
    assert len(top) == 1, "one root row: %r" % rows
    top = top[0]
    known = [r for r in rows if r["prev_id"] == top["id"]][0]
    child = [r for r in rows if r["parent_id"] == known["id"] and not r["prev_id"]][0]
    long_ = [r for r in rows if r["prev_id"] == known["id"]][0]
    return {"top": top, "known": known, "child": child, "long": long_}


def argv_bytes(row):
    return None if row["argv_hex"] is None else bytes.fromhex(row["argv_hex"])


def chunks(n):
    return (HEAD + n + CHUNK - 1) // CHUNK


if sys.argv[1] == "limit":
    with open(sys.argv[2]) as f:
        d = json.load(f)
    s = d["session"]
    procs = {p["id"]: p for p in d["processes"]}
    top = [p for p in procs.values() if not p["prev_id"] and not p["parent_id"]][0]
    known = [p for p in procs.values() if p["prev_id"] == top["id"]][0]
    long_ = [p for p in procs.values() if p["prev_id"] == known["id"]][0]
    print(s["mem_bytes"] - long_["sites"] * s["site_row_bytes"] - 1)
    sys.exit(0)

from trace_check import begin, done, eq, expect  # noqa: E402

a_dir, a_rows, a_json, c_dir, c_rows, c_json, limit, d_rows, attachee = begin()[1:]


def cmdline(d, name):
    with open(os.path.join(d, name), "rb") as f:
        return f.read()


def exact(d, im, names, what):
    for name in names:
        eq(argv_bytes(im[name]), cmdline(d, name), "%s: %s's argv as its /proc/PID/cmdline" % (what, name))
        eq(im[name]["argv_truncated"], False, "%s: %s's argv_truncated" % (what, name))


a = images(load_rows(a_rows))
exact(a_dir, a, ("top", "known", "child"), "exact")
self_path = cmdline(a_dir, "known").split(b"\0")[0]
want = [self_path, b"known", a_dir.encode(), b"a b", b"it's \"q\"", b"", b"\xff\xfe", b"line1\nline2"]
eq(argv_bytes(a["known"]), b"\0".join(want) + b"\0", "exact: known's argv, argument by argument")
eq(argv_bytes(a["child"]), argv_bytes(a["known"]), "fork: the child's argv is its parent's")

full = cmdline(a_dir, "long")
pad = (ARGV_MAX - (len(self_path) + 6 + len(a_dir) + 1)) % 41
eq(len(full), len(self_path) + 6 + len(a_dir) + 1 + 100 * 41 + pad, "long: its /proc/PID/cmdline's length")
cut = full[:ARGV_MAX]
cut = cut[:cut.rfind(b"\0") + 1]
eq(len(cut), ARGV_MAX, "long: an argument ends exactly at byte 4096, all of it kept")
eq(argv_bytes(a["long"]), cut, "long: argv cut after its last whole argument within 4096 bytes")
expect(len(cut) <= ARGV_MAX and len(full) > ARGV_MAX, "long: longer than 4096 bytes, cut to at most that")
eq(a["long"]["argv_truncated"], True, "long: argv_truncated")
with open(a_json) as f:
    sa = json.load(f)["session"]
eq(sa["dropped_argv"], 0, "exact: dropped_argv")

c = images(load_rows(c_rows))
exact(c_dir, c, ("top", "known", "child"), "max_mem %s" % limit)
eq(argv_bytes(c["long"]), None, "max_mem: the long image's argv is unknown")
eq(c["long"]["argv_truncated"], False, "max_mem: an unknown argv is not truncated")
with open(c_json) as f:
    sc = json.load(f)["session"]
for k in ("dropped_argv", "dropped_nomem"):
    eq(sc[k], 1, "max_mem: " + k)
for k in ("dropped_procs", "dropped_sites", "dropped_syscalls", "dropped_resolve"):
    eq(sc[k], 0, "max_mem: " + k)
with open(os.path.join(os.path.dirname(c_json), "b.json")) as f:
    live_b = json.load(f)["session"]["mem_bytes"]
with open(os.path.join(os.path.dirname(c_json), "c.json")) as f:
    live_c = json.load(f)["session"]["mem_bytes"]
eq(live_b - live_c, chunks(len(full[:ARGV_MAX])) * 256,
   "max_mem: the live session holds the long argv's 22 chunks less")

d = load_rows(d_rows)
eq(len(d), 3, "attach: rows (attachee, its child, the child's exec)")
root = [r for r in d if r["attached"]]
eq(len(root), 1, "attach: one attached row")
if len(d) == 3 and len(root) == 1:
    root = root[0]
    child = [r for r in d if r["parent_id"] == root["id"] and not r["prev_id"]][0]
    image = [r for r in d if r["prev_id"] == child["id"]][0]
    want = attachee.encode() + b"\0exec\0" + b"2\0" + b"1\0"
    eq(argv_bytes(root), want, "attach: the attached process's argv, read at its first syscall exit")
    eq(root["argv_truncated"], False, "attach: argv_truncated")
    eq(argv_bytes(child), want, "attach: its child forked after that shares it")
    eq(argv_bytes(image), attachee.encode() + b"\0child\0" + b"1\0",
       "attach: the child's exec (attachee child 1) has its argv")
done()
