# SPDX-License-Identifier: GPL-2.0
"""The table that bench/RESULTS.md leads with: start-up, the cost per call
above the floor, the cost to untraced tasks, and the real build's ratios,
each peer beside systrace, every figure from the one run that measured it
(each row names its source). Read from the results files the benchmarks
write: startup/results.csv, host/results.csv, host/build.csv and
results.csv (the guests). Nothing is measured here."""
import csv
import os
import statistics

BEGIN = "<!-- the leading table, written by bench/lead.py -->"
END = "<!-- the end of the leading table -->"


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("status", "0") == "0"]


def med(rs, key, **match):
    v = [int(r[key]) / int(r.get("n", 1) or 1) for r in rs if all(r.get(k) == x for k, x in match.items())]
    return statistics.median(v) if v else None


def ns(x):
    return "%.0f ns" % x


def startup(bench):
    rs = rows(os.path.join(bench, "startup", "results.csv"))
    s, n = med(rs, "wall_ns", variant="strace"), med(rs, "wall_ns", variant="new")
    if None in (s, n):
        return []
    return [("start-up, `start -q -- true` (BPF), fork to return", "%.1f ms" % (n / 1e6),
             "strace -f: %.1f ms (%.2fx)" % (s / 1e6, n / s), "under 50 ms", "startup/results.csv")]


def host(bench):
    rs = rows(os.path.join(bench, "host", "results.csv"))
    L = []
    n = med(rs, "inner_ns", workload="w1", variant="native")
    t = med(rs, "inner_ns", workload="w1", variant="systrace_bpf")
    fl = med(rs, "inner_ns", workload="w1", variant="bpf_floor")
    if None not in (n, t):
        peers = "; ".join("%s +%s" % (name, ns(med(rs, "inner_ns", workload="w1", variant=v) - n))
                          for v, name in (("bpftrace", "bpftrace"), ("perf_trace", "perf trace"),
                                          ("strace", "strace"))
                          if med(rs, "inner_ns", workload="w1", variant=v) is not None)
        L.append(("per traced call (W1 getppid, BPF), added to native", "+" + ns(t - n),
                  peers, "floor + 50 ns" + ("; floor here +%s, systrace %s above it" % (
                      ns(fl - n), ns(t - fl)) if fl is not None else " (no floor in this run)"),
                  "host/results.csv"))
    n = med(rs, "inner_ns", workload="w4", variant="native")
    t = med(rs, "inner_ns", workload="w4", variant="systrace_bpf")
    fl = med(rs, "inner_ns", workload="w4", variant="bpf_floor")
    b = med(rs, "inner_ns", workload="w4", variant="bpftrace")
    if None not in (n, t):
        L.append(("per untraced call while a session runs (W4, BPF)", "+" + ns(t - n),
                  "bpftrace +%s" % ns(b - n) if b is not None else "-",
                  "floor + 20 ns" + ("; floor here +%s, systrace %s above it" % (
                      ns(fl - n), ns(t - fl)) if fl is not None else " (no floor in this run)"),
                  "host/results.csv"))
    return L


def build(bench):
    rs = rows(os.path.join(bench, "host", "build.csv"))
    n = med(rs, "inner_ns", variant="native")
    if n is None:
        return []
    L = []
    peers = "; ".join("%s %.3fx" % (name, med(rs, "inner_ns", variant=v) / n)
                      for v, name in (("strace", "strace -f -c"), ("perf_trace", "perf trace -s"))
                      if med(rs, "inner_ns", variant=v) is not None)
    for v, what, goal in (("systrace_bpf", "a real build (W5, tinyconfig), BPF, against untraced", "1.05x"),
                          ("systrace_bpf_log", "the same with the temporal log", "1.10x")):
        t = med(rs, "inner_ns", variant=v)
        if t is not None:
            L.append((what, "%.3fx" % (t / n), peers, goal, "host/build.csv"))
    return L


def guest(bench):
    rs = rows(os.path.join(bench, "results.csv"))
    L = []
    for k in sorted({r["kernel"] for r in rs}):
        n = med(rs, "inner_ns", kernel=k, workload="w1", variant="native")
        t = med(rs, "inner_ns", kernel=k, workload="w1", variant="systrace")
        b = med(rs, "inner_ns", kernel=k, workload="w1", variant="bpftrace")
        if None not in (n, t):
            L.append(("per traced call (W1, module, guest %s under TCG), added to native" % k,
                      "+" + ns(t - n), "bpftrace +%s" % ns(b - n) if b is not None else "-",
                      "1/3 of bpftrace's", "results.csv"))
    return L


def table(bench):
    """The leading table, between its markers."""
    R = startup(bench) + host(bench) + build(bench) + guest(bench)
    L = [BEGIN, "", "## At a glance", "",
         "Medians, each row from the one run of its source file (the sections below give each run's "
         "date, commit and load). The floor is what the kernel's own hooks cost: empty BPF "
         "programs on the same tracepoints.", "",
         "| what | systrace | peers, in the same run | goal | source |", "|---|---|---|---|---|"]
    L += ["| %s |" % " | ".join(r) for r in R]
    if not R:
        L.append("| (no results yet) | | | | |")
    return "\n".join(L + ["", END])


def put(text, bench):
    """text with its leading table replaced (or put after the title line)."""
    t = table(bench)
    if BEGIN in text and END in text:
        a, rest = text.split(BEGIN, 1)
        return a + t + rest.split(END, 1)[1]
    first, nl, rest = text.partition("\n")
    return first + "\n\n" + t + nl + rest
