# SPDX-License-Identifier: GPL-2.0
"""The sections at the end of bench/RESULTS.md, each written by its own
benchmark into its own file: the BPF backend on the host
(bench/host/SECTION.md), the real build's (bench/host/BUILD.md), the scale section (bench/scale/SECTION.md),
the log's (bench/scale/LOG.md), the glibc build's (bench/glibc/SECTION.md)
start-up's (bench/startup/SECTION.md) and the cost of paths
(bench/paths/SECTION.md).
Whoever rewrites RESULTS.md puts them all back, in this order, from their
files, so that no run drops another's section."""
import os

import lead  # bench/lead.py

FILES = [os.path.join("host", "SECTION.md"), os.path.join("host", "BUILD.md"), os.path.join("scale", "SECTION.md"), os.path.join("scale", "LOG.md"),
         os.path.join("glibc", "SECTION.md"), os.path.join("startup", "SECTION.md"),
         os.path.join("paths", "SECTION.md")]
MARK = "<!-- bench/"


def texts(bench):
    """The sections that exist, in order."""
    out = []
    for f in FILES:
        p = os.path.join(bench, f)
        if os.path.exists(p):
            with open(p) as fh:
                out.append(fh.read().rstrip("\n") + "\n")
    return out


def rewrite(bench):
    """RESULTS.md's own part, then every section from its file."""
    res = os.path.join(bench, "RESULTS.md")
    old = ""
    if os.path.exists(res):
        with open(res) as f:
            old = f.read()
    head = lead.put(old.split(MARK)[0].rstrip("\n"), bench)
    with open(res, "w") as f:
        f.write(head + "\n\n" + "\n".join(texts(bench)))
