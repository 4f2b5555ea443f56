# SPDX-License-Identifier: GPL-2.0
"""Checks of test_trace_backends.sh, run by its pycheck after the traces."""
from trace_check import begin, done, eq, Trace

ARGS = begin()


def procs(t):
    return sorted((p["exe"], p["end"], p["exit_code"], p["threads"], p["syscalls"],
                   p["errors"], p["sites"]) for p in t.procs)


def sites(t):
    exe = {p["id"]: p["exe"] for p in t.procs}
    return sorted((exe[s["proc_id"]], s["path"], s["offset"], s["syscall"], s["abi"],
                   s["map"], s["inode"], s["dev"], s["mtime_ns"], s["calls"], s["errors"])
                  for s in t.sites)


for kmod_dir, bpf_dir in zip(ARGS[0::2], ARGS[1::2]):
    k, b = Trace(kmod_dir), Trace(bpf_dir)
    what = k.root()["exe"] or kmod_dir
    eq(k.session["backend"], "kmod", what + ": the first trace's backend")
    eq(b.session["backend"], "bpf", what + ": the second trace's backend")
    eq(procs(b), procs(k), what + ": process rows, bpf vs kmod")
    only_k = [s for s in sites(k) if s not in sites(b)]
    only_b = [s for s in sites(b) if s not in sites(k)]
    eq(only_b, only_k, what + ": site rows only one backend has (bpf vs kmod)")
    for key in ("syscalls", "errors", "forks", "clones", "execs", "exits", "signal_exits"):
        eq(b.session[key], k.session[key], what + ": session " + key)
done()
