#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/parts' summary: ns per call of each variant, the probe's cost per
part, and an SVG of that breakdown (plain SVG text, no plotting library).

    parts_plot.py --rows GUEST.OUT [--kver V] [--load L]
                  [--csv F] [--md F] [--svg F]

--rows reads the guest's "row,W,VARIANT,REP,MIN_NS,P10_NS,TOTAL_NS,STATUS"
lines (w_batch's fastest batch, its tenth percentile, the loop; REP 0
is the warm-up and is left out); --csv writes those rows back with a
header, so that the summary can be remade from them. Prints the summary.
"""
import argparse
import csv
import os
import statistics
import time

# Units per batch of w_batch: getppid() calls, pipe round trips.
B = {"w1": 1000, "w4": 1000, "w2pin": 50}
# Parts measured by leaving them out one at a time: full minus the build
# that skips the part. The task lookup is what lookup_only adds to a probe
# that only counts; the rest of full over lookup_only that no single part
# accounts for is "other".
PARTS = [
    ("the tracepoint flag alone (perf's idle probe)", None),
    ("a probe that only counts", "#7f7f7f"),
    ("task lookup (per-CPU cache) + in-flight call", "#1f77b4"),
    ("site lookup", "#2ca02c"),
    ("counter updates", "#ff7f0e"),
    ("clock reads", "#d62728"),
    ("other (not additive)", "#9467bd"),
]


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) == 8 and p[0] == "row":
                rows.append(p[1:])
            elif len(p) == 7 and p[0] in B:  # a CSV written by --csv
                rows.append(p)
    return rows


def stats(rows):
    """(median, minimum, runs) of each run's fastest batch, ns per unit."""
    per = {}
    for w, v, rep, mn, p10, total, st in rows:
        if rep == "0" or st != "0" or not mn:
            continue
        per.setdefault((w, v), []).append(int(mn) / B[w])
    return {k: (statistics.median(x), min(x), len(x)) for k, x in per.items()}


def added(s, w, v, k=0):
    """ns per call over native; W4 runs W1 untraced, so over W1's native."""
    nat = (w if w != "w4" else "w1", "native")
    if (w, v) not in s or nat not in s:
        return None
    return s[(w, v)][k] - s[nat][k]


def breakdown(s):
    a = {v: added(s, "w1", v) for v in
         ("floor", "counts_only", "lookup_only", "full", "clock", "count", "site")}
    if any(x is None for x in a.values()):
        return None
    parts = [
        a["floor"],
        a["counts_only"],
        a["lookup_only"] - a["counts_only"],
        a["full"] - a["site"],
        a["full"] - a["count"],
        a["full"] - a["clock"],
    ]
    parts.append(a["full"] - sum(parts[1:]))
    return parts, a["full"]


def w2pin_line(s):
    """W2 pinned by part: a round trip is 4 syscalls, 8 probe calls."""
    nat = s.get(("w2pin", "native"))
    v = {k: s.get(("w2pin", k)) for k in ("floor", "counts_only", "lookup_only", "full")}
    w1 = {k: added(s, "w1", k) for k in ("counts_only", "full")}
    if not nat or any(x is None for x in v.values()) or None in w1.values():
        return None
    per_call = (v["full"][0] - v["counts_only"][0]) / 8
    return ("W2 pinned over native: the tracepoint floor %.3fx, a probe that only "
            "counts %.3fx, with the task lookup %.3fx, the full probe %.3fx. What "
            "the full probe adds to one that only counts is %.0f ns per probe call "
            "in W2 pinned (8 calls per round trip), against %.0f ns in W1 (2 per "
            "getppid()): each call costs several times more right after a context "
            "switch, as it would if each switch emptied the emulated TLB." % (
                v["floor"][0] / nat[0], v["counts_only"][0] / nat[0],
                v["lookup_only"][0] / nat[0], v["full"][0] / nat[0],
                per_call, (w1["full"] - w1["counts_only"]) / 2))


def fmt(x):
    return "-" if x is None else "%.0f" % x


def summary(s, kver, load_after):
    out = []
    out.append("Measured by `bench/parts` in one boot of %s%s. W1 is 200k `getppid()` "
               "in batches of 1000, W2 pinned 20k pipe round trips in batches of 50 "
               "(`bench/w_batch`); each run counts its fastest batch, which other work "
               "on the host did not stall. ns per call (W2: us per round trip), medians "
               "over the runs and, in brackets, the difference of the minimums. W4 is "
               "W1 untraced while the module traces an idle sleep; *floor* is W1 "
               "while `perf stat` counts the syscall tracepoints of an idle sleep "
               "(the tracepoint flag alone)."
               % (kver or "the guest", ", host load average after %s" % load_after
                  if load_after else ""))
    out.append("")
    out.append("| variant | runs | W1 ns/call | W1 added ns/call | W4 added ns/call "
               "(untraced, beside a traced sleep) | W2 pinned us/round trip | W2 pinned vs native |")
    out.append("|---|---|---|---|---|---|---|")
    names = ["native", "floor"] + sorted({v for (w, v) in s if v not in ("native", "floor")},
                                         key=lambda v: (v.startswith(("base", "old")), v))
    for v in names:
        w1 = s.get(("w1", v))
        w2 = s.get(("w2pin", v))
        nat2 = s.get(("w2pin", "native"))
        out.append("| %s | %s | %s | %s (%s) | %s (%s) | %s | %s |" % (
            v, w1[2] if w1 else "-", fmt(w1[0]) if w1 else "-",
            fmt(added(s, "w1", v)), fmt(added(s, "w1", v, 1)),
            fmt(added(s, "w4", v)), fmt(added(s, "w4", v, 1)),
            "%.1f" % (w2[0] / 1000) if w2 else "-",
            "%.3fx" % (w2[0] / nat2[0]) if w2 and nat2 else "-"))
    fl = added(s, "w1", "floor")
    for v in ("full", "base"):
        a = added(s, "w4", v)
        if a is not None and fl is not None:
            out.append("")
            out.append("W4 with %s: %.0f ns per call above the tracepoint floor." % (v, a - fl))
    w2 = w2pin_line(s)
    if w2:
        out.append("")
        out.append(w2)
    b = breakdown(s)
    if b:
        parts, full = b
        out.append("")
        out.append("The probe's W1 cost by part (full minus the build without it; "
                   "the task lookup is what `lookup_only` adds to `counts_only`):")
        out.append("")
        out.append("| part | ns/call |")
        out.append("|---|---|")
        for (name, _), x in zip(PARTS, parts):
            out.append("| %s | %s |" % (name, fmt(x)))
        out.append("| **full probe, added ns per traced syscall** | **%s** |" % fmt(full))
    return "\n".join(out) + "\n"


def svg(s, title):
    b = breakdown(s)
    if not b:
        return None
    parts, full = b
    width, left, barh = 760, 20, 34
    scale = (width - 2 * left) / max(full, parts[0], 1) * 0.9
    y = 60
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="12">' % (width, 250),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="24" font-size="15">%s</text>' % (left, title),
         '<text x="%d" y="44" fill="#555">added ns per traced getppid() (W1), '
         'stacked by part of the probe</text>' % left]
    x = left
    for (name, color), v in zip(PARTS[1:], parts[1:]):
        if color is None or v <= 0:
            continue
        w = v * scale
        o.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                 % (x, y, w, barh, color))
        if w > 28:
            o.append('<text x="%.1f" y="%d" fill="white" text-anchor="middle">%.0f</text>'
                     % (x + w / 2, y + barh / 2 + 4, v))
        x += w
    o.append('<text x="%.1f" y="%d">%.0f ns</text>' % (x + 6, y + barh / 2 + 4, full))
    fy = y + barh + 22
    fw = parts[0] * scale
    o.append('<rect x="%d" y="%d" width="%.1f" height="12" fill="none" stroke="black"/>'
             % (left, fy, fw))
    o.append('<text x="%.1f" y="%d">%.0f ns: the tracepoint flag alone (perf\'s idle probe)</text>'
             % (left + fw + 6, fy + 10, parts[0]))
    ly = fy + 34
    for i, ((name, color), v) in enumerate(zip(PARTS[1:], parts[1:])):
        lx = left + (i % 2) * 370
        yy = ly + (i // 2) * 20
        o.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (lx, yy, color))
        o.append('<text x="%d" y="%d">%s: %.0f ns%s</text>'
                 % (lx + 18, yy + 10, name, v, " (not drawn)" if v <= 0 else ""))
    o.append("</svg>")
    return "\n".join(o) + "\n"


def verdict(ok, value, bound):
    return "**%s** (%s; target %s)" % ("met" if ok else "missed", value, bound)


def hot_targets(res):
    """[(name, verdict)] for the hot path's targets of issue 15."""
    t = []
    w1, w2p, w4 = res.get("w1", {}), res.get("w2pin", {}), res.get("w4", {})
    a = w1.get("systrace", {}).get("added_per_unit_ns")
    b = w1.get("bpftrace", {}).get("added_per_unit_ns")
    if a is not None and b:
        t.append(("W1 systrace --counters none: added ns/syscall <= 1/10 of bpftrace",
                  verdict(a <= b / 10, "%.0f ns vs bpftrace %.0f ns: %.3f of it" % (a, b, a / b),
                          "<= 1/10")))
    x = w2p.get("systrace", {}).get("x_inner_ns")
    if x is not None:
        t.append(("W2 pinned systrace --counters none: ping-pong time <= 1.05x native",
                  verdict(x <= 1.05, "%.3fx" % x, "<= 1.05x")))
    a = w4.get("systrace", {}).get("added_per_unit_ns")
    f = w4.get("tp_floor", {}).get("added_per_unit_ns")
    if a is not None and f is not None:
        t.append(("W4 untraced W1 beside a systrace session: <= 40 ns/call above the tracepoint floor",
                  verdict(a - f <= 40, "%.0f ns above native, floor %.0f: %.0f above it" % (a, f, a - f),
                          "<= 40 ns")))
    return t


def results_section(db, bench_dir):
    """bench/RESULTS.md's lines on the hot path (issue 15): its targets in
    each kernel's make bench run, then bench/parts' last breakdown."""
    L = ["## The syscall probes' hot path (issue 15)", ""]
    for k in sorted(db):
        t = hot_targets(db[k].get("results", {}))
        if not t:
            continue
        L += ["Targets of the last `make bench` on %s (module %s):" % (
            k, db[k].get("info", {}).get("module_version", "?")),
            "", "| target | result |", "|---|---|"]
        L += ["| %s | %s |" % x for x in t]
        L.append("")
    md = os.path.join(bench_dir, "parts.md")
    if os.path.exists(md):
        L += ["### The probe by part (`bench/parts`, a boot of its own)", ""]
        with open(md) as f:
            L += f.read().rstrip("\n").split("\n")
        L.append("")
    return L


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", required=True)
    ap.add_argument("--kver", default="")
    ap.add_argument("--load", default="")
    ap.add_argument("--csv")
    ap.add_argument("--md")
    ap.add_argument("--svg")
    ap.add_argument("--note", default="", help="a sentence on the extra modules")
    a = ap.parse_args()
    rows = load(a.rows)
    s = stats(rows)
    text = summary(s, a.kver, a.load)
    print(text, end="")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["workload", "variant", "rep", "min_batch_ns", "p10_batch_ns",
                         "total_ns", "status"])
            wr.writerows(rows)
    if a.md:
        with open(a.md, "w") as f:
            f.write("Run %s. %s" % (time.strftime("%Y-%m-%d", time.gmtime()),
                                     a.note + " " if a.note else "") + text)
            if a.svg:
                f.write("\n![the probe's cost by part](parts.svg)\n")
    if a.svg:
        pic = svg(s, "systrace's syscall probe by part, %s" % (a.kver or "guest"))
        if pic:
            with open(a.svg, "w") as f:
                f.write(pic)


if __name__ == "__main__":
    main()
