#!/usr/bin/env bash
# An exec chain (fork, then a -> b -> c): one row per image linked by
# prev_id, end=exec, the execve counted once in each old image and as a
# success; a failed execve (ENOENT) is an error in its caller.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog execchain
on_exit mod_unload_quiet
mod_load

P=$PROGS/execchain
off=$(elf_offset "$P" exec_site_insn) || exit 1

trace -- "$P"
assert_eq "$TRACE_RC" 42 "exit status (c's 42, passed on by the root)"
chain=$D
trace -- "$P" fail
assert_eq "$TRACE_RC" 0 "execchain fail: exit status (0: execve failed with ENOENT)"

pycheck "$chain" "$D" "$P" "$off" <<'EOF'
d, dfail, prog, off = ARGS
t = Trace(d)
eq(len(t.procs), 5, "process rows: the root, the forked child, a, b, c")
root = t.root()
eq(root["end"], "exited", "root end")
eq(root["exit_code"], 42, "root exit_code")
eq(t.calls(proc_id=root["id"], nr=59), 0, "execve calls of the root")

# Walk the chain from the forked child's image through prev_id.
first = t.proc("the image the root forked", parent_id=root["id"], prev_id=None)
chain = [first] if first else []
while chain and len(chain) < 6:
    nxt = t.procs_where(prev_id=chain[-1]["id"])
    if not nxt:
        break
    eq(len(nxt), 1, "images replacing row %d" % chain[-1]["id"])
    chain.append(nxt[0])
log("chain of images: %s" % [p["id"] for p in chain])
eq(len(chain), 4, "images in the chain (fork child, a, b, c)")
for k, p in enumerate(chain):
    w = "image %d (row %d): " % (k, p["id"])
    eq(p["parent_id"], root["id"], w + "parent_id")
    eq(p["ppid"], root["pid"], w + "ppid")
    eq(p["pid"], chain[0]["pid"], w + "pid")
    eq(p["exe"], prog, w + "exe")
    if k < 3:
        eq(p["end"], "exec", w + "end")
        eq(p["exit_code"], None, w + "exit_code")
        eq(t.calls(proc_id=p["id"], nr=59), 1, w + "execve calls")
        eq(t.errors(proc_id=p["id"], nr=59), 0, w + "execve errors")
        s = t.site(w + "execve at exec_site", proc_id=p["id"], nr=59, path=prog, offset=off)
        # The old image's last syscall is its execve.
        if s:
            eq(s["first_ordinal"], p["syscalls"] - 1, w + "execve's first_ordinal")
    else:
        eq(p["end"], "exited", w + "end")
        eq(p["exit_code"], 42, w + "exit_code")
        eq(t.calls(proc_id=p["id"], nr=59), 0, w + "execve calls")
eq(t.session["execs"], 4, "session execs (the root's and 3)")
eq(t.session["forks"], 1, "session forks")
eq(t.session["exits"], 2, "session exits")

# A failed execve: an error where it was called, and no new image.
t = Trace(dfail)
eq(len(t.procs), 1, "execchain fail: process rows")
eq(t.procs[0]["end"], "exited", "execchain fail: end")
eq(t.calls(nr=59, path=prog, offset=off), 1, "execchain fail: execve calls")
eq(t.errors(nr=59, path=prog, offset=off), 1, "execchain fail: execve errors")
eq(t.session["execs"], 1, "execchain fail: session execs")
EOF
