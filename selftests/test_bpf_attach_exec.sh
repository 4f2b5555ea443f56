#!/usr/bin/env bash
# attach --tree through the BPF backend, with a descendant that execs
# between the iterator's passes (in a private bpffs): attach stopped after
# its marking passes, before the pass that links the rows to their parents
# (SYSTRACE_BPF_STOP=link, test-only), while the child of a python3 parent
# execs `sites 5 5 0`. Once the attach goes on, the session's 3 rows are:
# the parent's (attached, no parent: it is the root), the child's as
# attached (python3, parent: the root's row) and the child's exec'd image
# (sites, parent: the root's row too, prev: the child's attached row), with
# the pids and ppid the workload and /proc give, and sites' 10 getppid.
# tags: bpf bpf-quick
# timeout: 180
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_prog sites
need_cmd python3
in_private_bpffs "$@"

cat >"$T/work.py" <<'EOF'
import os, sys, time
t, sites = sys.argv[1], sys.argv[2]
pid = os.fork()
if pid == 0:
    with open(t + "/child.tmp", "w") as f:
        f.write("%d %d\n" % (os.getpid(), os.getppid()))
    os.rename(t + "/child.tmp", t + "/child")
    while not os.path.exists(t + "/exec"):
        time.sleep(0.01)
    os.execv(sites, [sites, "5", "5", "0", t + "/go"])
os.waitpid(pid, 0)
EOF
python3 "$T/work.py" "$T" "$PROGS/sites" &
p=$!
on_exit "kill $p 2>/dev/null"
for ((i = 0; i < 500; i++)); do
	[ -e "$T/child" ] && break
	sleep 0.02
done
read -r c cp <"$T/child" || fail "the child wrote no pid"
expect_eq "$cp" "$p" "the child's getppid() is the parent's pid"

env SYSTRACE_BPF_STOP=link "$SYSTRACECTL" attach --tree --counters none -q -n ax "$p" >"$T/a.out" 2>"$T/a.err" &
a=$!
on_exit "kill -9 $a 2>/dev/null"
# Loading the programs takes most of a minute in a TCG guest.
stopped=0
for ((i = 0; i < 6 && !stopped; i++)); do
	bpf_stopped "$a" && stopped=1
done
[ $stopped = 1 ] || fail "attach did not stop before its link pass (SYSTRACE_BPF_STOP=link): $(cat "$T/a.err")"
touch "$T/exec"
for ((i = 0; i < 500; i++)); do
	[ "$(readlink "/proc/$c/exe")" = "$PROGS/sites" ] && break
	sleep 0.02
done
expect_eq "$(readlink "/proc/$c/exe")" "$PROGS/sites" "the child's image once it exec'd, /proc/PID/exe"
kill -CONT "$a"
wait "$a"
expect_eq "$?" 0 "attach --tree: exit status ($(cat "$T/a.err"))"
touch "$T/go"
# Its exit's program has run by the time it is reaped: the session is finished.
wait "$p"
ctl_ok dump ax --json --no-symbols -o "$T/d.json"
d() { csvq -f "$T/d.json" --json pick processes "$@"; }
expect_eq "$(csvq -f "$T/d.json" --json len processes)" 3 "rows"
root=$(d id pid="$p")
attached=$(d id pid="$c" attached=true)
image=$(d id pid="$c" attached=false)
expect_eq "$(d parent_id pid="$p") $(d attached pid="$p")" " true" "the root's row: no parent, attached"
expect_eq "$(d parent_id id="$attached")" "$root" "the child's attached row: parent"
expect_eq "$(d exe id="$image")" "$PROGS/sites" "the child's exec'd image: exe"
expect_eq "$(d parent_id id="$image")" "$root" "the child's exec'd image: parent (linked by the pass after its exec)"
expect_eq "$(d prev_id id="$image")" "$attached" "the child's exec'd image: prev"
expect_eq "$(d ppid id="$image") $(d tgid id="$image")" "$p $c" "the child's exec'd image: ppid and tgid"
expect_eq "$(d end id="$attached") $(d end id="$image")" "exec exited" "the child's rows' ends"
expect_eq "$(csvq -f "$T/d.json" --json sum sites calls nr=110 proc_id="$image")" 10 "the exec'd image's getppid calls"
ctl_ok reset --all
