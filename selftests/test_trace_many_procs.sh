#!/usr/bin/env bash
# 200 short processes at once (a shell starting /bin/true 200 times in the
# background): 200 rows of true that exited 0, each the exec of a shell
# child, and the shell's rows: 403 rows in all, none dropped.
# tags: trace
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
on_exit mod_unload_quiet
mod_load

trace -- bash -c 'for i in $(seq 200); do /bin/true & done; wait'
assert_eq "$TRACE_RC" 0 "exit status"
pycheck "$D" <<'EOF'
t = Trace(ARGS[0])
root = t.root()
eq(root["comm"], "bash", "root comm")
eq(root["end"], "exited", "root end")
eq(root["exit_code"], 0, "root exit_code")
# The root bash, 201 children (200 for true, 1 for $(seq 200)), each
# replaced by its exec.
eq(len(t.procs), 403, "process rows")
trues = t.procs_where(comm="true")
eq(len(trues), 200, "rows of true")
eq(sorted({(p["end"], p["exit_code"]) for p in trues}), [("exited", 0)], "how the trues ended")
eq(len({p["pid"] for p in trues}), 200, "distinct pids of the trues")
by_id = {p["id"]: p for p in t.procs}
bad = 0
for p in trues:
    prev = by_id.get(p["prev_id"])
    if not prev or prev["comm"] != "bash" or prev["end"] != "exec" or prev["parent_id"] != root["id"] \
            or p["parent_id"] != root["id"] or p["pid"] != prev["pid"]:
        bad += 1
eq(bad, 0, "trues that are not the exec of a child of the root shell")
seq = t.proc("seq", comm="seq")
if seq:
    eq((seq["end"], seq["exit_code"]), ("exited", 0), "seq's end")
eq(len(t.children(root)), 402, "rows whose parent is the root (201 forks and their 201 execs)")
eq(t.session["forks"], 201, "session forks")
eq(t.session["execs"], 202, "session execs")
eq(t.session["exits"], 202, "session exits")
EOF
