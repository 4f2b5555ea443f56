#!/usr/bin/env bash
# Late resolution of a site's mapping, made deterministic by the module's
# force_late_resolve (every first hit behaves as if the mmap lock were
# busy). Threads: every site resolves on the way back to user mode, a
# thread's exit through a sibling's address space; only exit_group stays
# unknown. An exec chain: each image's execve and each final exit_group
# stay unknown, counted in dropped_resolve; everything else resolves to
# the same file and offset as without the parameter.
# tags: trace debug debug-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog threads
need_prog execchain
on_exit mod_unload_quiet
mod_load force_late_resolve=1
assert_eq "$(mod_param force_late_resolve)" Y "force_late_resolve after insmod"

TP=$PROGS/threads
toff=$(elf_offset "$TP" thread_site_insn) || exit 1
E=$PROGS/execchain
eoff=$(elf_offset "$E" exec_site_insn) || exit 1

trace -- "$TP" 4 50
assert_eq "$TRACE_RC" 0 "threads: exit status"
dthreads=$D
trace -- "$E"
assert_eq "$TRACE_RC" 42 "execchain: exit status"
dchain=$D

pycheck "$dthreads" "$TP" "$toff" "$dchain" "$E" "$eoff" <<'EOF'
dt, tprog, toff, dc, eprog, eoff = ARGS
t = Trace(dt)
w = "threads 4 x 50: "
eq(len(t.procs), 1, w + "process rows")
s = t.site(w + "thread_site", nr=110)
if s:
    eq((s["map"], s["path"], s["offset"], s["calls"]), ("file", tprog, toff, 200),
       w + "thread_site: map, path, offset, calls")
unknown = t.sites_where(map="unknown")
eq([x["syscall"] for x in unknown], ["exit_group"], w + "site rows left unknown")
eq(t.session["dropped_resolve"], 1, w + "dropped_resolve")
eq(t.session["late_resolves"], len(t.sites) - 1, w + "late_resolves")
# The first thread to exit resolved the exit site through the main
# thread's address space, after its own was gone.
x = t.site(w + "exit", nr=60)
if x:
    eq((x["map"], x["calls"]), ("file", 4), w + "exit site: map, calls")
    expect(x["path"] and "libc" in x["path"], w + "exit site in libc: " + str(x["path"]))

t = Trace(dc)
w = "execchain: "
eq(len(t.procs), 5, w + "process rows")
# Three images end in execve, two (the root and c) in exit_group.
unknown = sorted(x["syscall"] for x in t.sites_where(map="unknown"))
eq(unknown, ["execve"] * 3 + ["exit_group"] * 2, w + "site rows left unknown")
eq(t.session["dropped_resolve"], 5, w + "dropped_resolve")
eq(t.session["late_resolves"], len(t.sites) - 5, w + "late_resolves")
for p in t.procs:
    ex = t.sites_where(proc_id=p["id"], nr=59)
    if p["end"] == "exec":
        eq([(x["map"], x["path"], x["offset"], x["calls"]) for x in ex],
           [("unknown", None, None, 1)], w + "row %d: its execve site" % p["id"])
    else:
        eq(ex, [], w + "row %d: no execve" % p["id"])
EOF

# Back to normal: the same chain resolves every site at its first hit.
echo 0 >/sys/module/systrace/parameters/force_late_resolve
trace -- "$E"
assert_eq "$TRACE_RC" 42 "execchain, parameter off: exit status"
pycheck "$D" "$E" "$eoff" <<'EOF'
d, eprog, eoff = ARGS
t = Trace(d)
w = "execchain, parameter off: "
eq(t.session["dropped_resolve"], 0, w + "dropped_resolve")
eq(t.sites_where(map="unknown"), [], w + "site rows of map unknown")
eq(sorted((x["map"], x["path"], x["offset"]) for x in t.sites_where(nr=59)),
   [("file", eprog, eoff)] * 3, w + "execve sites")
EOF
