# SPDX-License-Identifier: GPL-2.0
"""Checks of test_bpf_store.sh's export: Dask's distributed scheduler reads it.

    test_bpf_store.py DIR RUNS SYSCALLS SITES PATHS

DIR is an export tree of two stores (two hosts); RUNS, SYSCALLS, SITES and
PATHS hold what the sqlite3 CLI answered of the two stores: "host|run_id"
per run, "syscall|calls|errors" per syscall, "path|offset|syscall|calls"
per site (a site: its file and offset), "kind|path|syscall|errno_name|count"
per path of file calls (the paths table). A LocalCluster of 2 worker
processes reads the gzip'd CSV partitions and must find the same, line
for line.
"""
import re
import sys

import dask.dataframe as dd
from dask.distributed import Client, LocalCluster

TEXT = {c: "object" for c in ("comm", "addr", "abi", "syscall", "map", "path",
                              "offset", "errnos")}
PATHS_TEXT = {c: "object" for c in ("comm", "addr", "abi", "syscall", "errno_name",
                                    "kind", "path")}
PART = re.compile(r"/sites/host=([^/]+)/run=([0-9]+)/part-0\.csv\.gz$")


def lines(path):
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def text(v):
    return "" if v != v else str(v)     # NaN (an empty CSV field): ""


def main():
    top, runs_file, syscalls_file, sites_file, paths_file = sys.argv[1:6]
    failed = False
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        workers = len(client.scheduler_info()["workers"])
        sites = dd.read_csv(top + "/sites/host=*/run=*/part-0.csv.gz", compression="gzip",
                            blocksize=None, dtype=TEXT, include_path_column="file",
                            keep_default_na=False, na_values=[""])
        files = sorted(set(sites["file"].compute()))
        per_syscall = sites.groupby("syscall")[["calls", "errors"]].sum().compute()
        sites["path"] = sites["path"].fillna("")
        sites["offset"] = sites["offset"].fillna("")
        per_site = sites.groupby(["path", "offset", "syscall"])["calls"].sum().compute()
        paths = dd.read_csv(top + "/paths/host=*/run=*/part-0.csv.gz", compression="gzip",
                            blocksize=None, dtype=PATHS_TEXT, keep_default_na=False,
                            na_values=[""])
        for c in ("path", "errno_name"):
            paths[c] = paths[c].fillna("")
        per_path = paths.groupby(["kind", "path", "syscall", "errno_name"])["count"].sum().compute()
    checks = [
        ("2 worker processes", ["2"], [str(workers)]),
        ("the runs (host|run) of the partitions",
         sorted(lines(runs_file)),
         sorted("%s|%s" % PART.search(f).groups() for f in files)),
        ("per-syscall calls and errors",
         lines(syscalls_file),
         ["%s|%d|%d" % (s, r.calls, r.errors) for s, r in sorted(per_syscall.iterrows())]),
        ("per-site calls",
         lines(sites_file),
         ["%s|%s|%s|%d" % (text(p), text(o), s, c) for (p, o, s), c in sorted(per_site.items())]),
        ("per-path counts",
         lines(paths_file),
         ["%s|%s|%s|%s|%d" % (k, p, s, e, c) for (k, p, s, e), c in sorted(per_path.items())]),
    ]
    for what, want, got in checks:
        if want != got:
            failed = True
            print("FAIL: Dask's %s: %d lines, the stores' SQL %d; first differences:"
                  % (what, len(got), len(want)))
            for w, g in [(w, g) for w, g in zip(want, got) if w != g][:5]:
                print("  sql %r, dask %r" % (w, g))
        else:
            print("ok: Dask's %s equal the stores' SQL (%d lines)" % (what, len(want)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
