#!/usr/bin/env bash
# A thread's first and only exit syscall lies in a file new to the session
# while a sibling churns the mmap lock (progs/exitmap): its site is
# resolved late, after the thread has lost its files and fs, so the work
# goes to a live sibling. Once with force_late_resolve (every round takes
# that path; the old module dereferenced the exiting thread's NULL fs in
# d_path and panicked), then the natural race, repeated. Each file gives
# exactly one exit site row, in that file at the known offset, called once;
# nothing stays unknown but a forced exit_group. 8 forced rounds; natural
# rounds: SYSTRACE_EXITMAP_ROUNDS, 40 by default (the old module panicked
# within the first 40, with the parameter and without).
# tags: trace debug debug-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog exitmap
on_exit mod_unload_quiet
mod_load force_late_resolve=1
assert_eq "$(mod_param force_late_resolve)" Y "force_late_resolve after insmod"

P=$PROGS/exitmap
# Rounds: a worker thread each, a file each.
KF=8
KN=${SYSTRACE_EXITMAP_ROUNDS:-40}

mkdir "$T/forced" "$T/natural"
trace -- "$P" "$T/forced" "$KF"
assert_eq "$TRACE_RC" 0 "forced: exit status ($TRACE_ERR)"
assert_line "$TRACE_OUT" '^exit_site_offset 0x107$' "forced: the program's exit site offset"
dforced=$D
# Its invariants are checked below as a forced trace's.
TRACE_DIRS=${TRACE_DIRS/"$dforced"$'\n'/}

echo 0 >/sys/module/systrace/parameters/force_late_resolve
trace -- "$P" "$T/natural" "$KN"
assert_eq "$TRACE_RC" 0 "natural: exit status ($TRACE_ERR)"
dnatural=$D

pycheck "$dforced" "$T/forced" "$KF" "$dnatural" "$T/natural" "$KN" <<'EOF'
df, dirf, kf, dn, dirn, kn = ARGS
print("forced:", end=" ")
invariants(df, forced=True)


def rounds(d, files, k, forced):
    w = "%s (%d rounds): " % ("forced" if forced else "natural", k)
    t = Trace(d)
    eq(len(t.procs), 1, w + "process rows")
    p = t.root()
    eq((p["end"], p["exit_code"]), ("exited", 0), w + "end, exit_code")
    # The main thread, the churn thread, a worker per round.
    eq(p["threads"], k + 2, w + "threads")
    eq(t.session["clones"], k + 1, w + "session clones")
    mine = lambda x: (x["path"] or "").startswith(files + "/")
    got = sorted((x["path"], x["nr"], x["map"], x["offset"], x["calls"], x["errors"])
                 for x in t.sites if mine(x))
    want = sorted(("%s/exit.%d" % (files, i), 60, "file", "0x107", 1, 0) for i in range(k))
    eq(got, want, w + "site rows in the mapped files (path, nr, map, offset, calls, errors)")
    # The churn thread returns from its start routine: exit in libc.
    other = [x for x in t.sites_where(nr=60) if not mine(x)]
    eq([(x["map"], x["calls"]) for x in other], [("file", 1)], w + "the churn thread's exit site")
    for x in other:
        expect(x["path"] and "libc" in x["path"], w + "churn thread's exit site in libc: " + str(x["path"]))
    eq(t.calls(nr=60), k + 1, w + "exit calls")
    eq(t.calls(nr=231), 1, w + "exit_group calls")
    unknown = [x["syscall"] for x in t.sites_where(map="unknown")]
    s = t.session
    if forced:
        # Every first hit resolves late; exit_group's never returns.
        eq(unknown, ["exit_group"], w + "site rows left unknown")
        eq(s["dropped_resolve"], 1, w + "dropped_resolve")
        eq(s["late_resolves"], len(t.sites) - 1, w + "late_resolves")
    else:
        eq(unknown, [], w + "site rows left unknown")
        eq(s["dropped_resolve"], 0, w + "dropped_resolve")
        log("NOTE: natural race: %d of %d sites resolved late (%d rounds)"
            % (s["late_resolves"], len(t.sites), k))


rounds(df, dirf, int(kf), True)
rounds(dn, dirn, int(kn), False)
EOF
