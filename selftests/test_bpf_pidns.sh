#!/usr/bin/env bash
# The BPF backend in a pid namespace (a container), in a private mount
# namespace with its own bpffs. A python3 workload writes its getpid() and
# getppid() and its child's, the child makes 10 getppid():
#   start      in `unshare -p -f --mount-proc` (level 1) and in two nested ones
#              (level 2): the rows' pid, tgid and ppid are the namespace's, as
#              the workload saw them
#   attach     --tree from inside `unshare -p -f --mount-proc`, to a running
#              workload: attached, its 2 rows with the namespace's pids (the
#              child's PPid in the namespace's /proc agrees), linked, the
#              child's 10 getppid counted
#   foreign    in `unshare -p -f` (the host's /proc): start and attach are
#              refused (exit 4), saying /proc is not the namespace's; no
#              session is made
# tags: bpf bpf-quick
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_cmd unshare
need_cmd python3
in_private_bpffs "$@"

cat >"$T/work.py" <<'EOF'
import os, sys, time
if sys.argv[1] == "exe":
    print(sys.executable)
    sys.exit(0)
out, go = sys.argv[1], sys.argv[2]
def put(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)
def wait_go():
    while not os.path.exists(go):
        time.sleep(0.01)
pid = os.fork()
if pid == 0:
    put(out + ".child", "%d %d\n" % (os.getpid(), os.getppid()))
    wait_go()
    for _ in range(10):
        os.getppid()
    os._exit(0)
put(out, "%d %d\n" % (os.getpid(), os.getppid()))
wait_go()
os.waitpid(pid, 0)
EOF
export SYSTRACECTL T
# python3 itself, not a wrapper script in PATH (whose processes would be traced too).
py=$(python3 "$T/work.py" exe)
py=$(readlink -f "$py")

# rows_check JSON OUT N WHAT: the dump's 2 rows carry the pids in OUT (the
# parent's "pid ppid") and OUT.child, the child's row linked to the
# parent's, its N getppid() counted.
rows_check() {
	local json=$1 out=$2 n=$3 what=$4 ppid pppid cpid cppid
	read -r ppid pppid <"$out" || fail "$what: the workload wrote no pids"
	read -r cpid cppid <"$out.child" || fail "$what: the child wrote no pids"
	expect_eq "$cppid" "$ppid" "$what: the child's getppid() is its parent's getpid()"
	expect_eq "$(csvq -f "$json" --json len processes)" 2 "$what: rows"
	expect_eq "$(csvq -f "$json" --json pick processes pid | sort -n | tr '\n' ' ')" \
		"$(printf '%s\n' "$ppid" "$cpid" | sort -n | tr '\n' ' ')" "$what: the rows' pids"
	expect_eq "$(csvq -f "$json" --json pick processes tgid pid="$cpid") $(csvq -f "$json" --json pick processes tgid pid="$ppid")" \
		"$cpid $ppid" "$what: the rows' tgids"
	expect_eq "$(csvq -f "$json" --json pick processes ppid pid="$cpid")" "$ppid" "$what: the child's ppid"
	expect_eq "$(csvq -f "$json" --json pick processes ppid pid="$ppid")" "$pppid" "$what: the parent's ppid"
	expect_eq "$(csvq -f "$json" --json pick processes parent_id pid="$cpid")" \
		"$(csvq -f "$json" --json pick processes id pid="$ppid")" "$what: the child's row links to its parent's"
	expect_eq "$(csvq -f "$json" --json sum sites calls nr=110 pid="$cpid")" "$n" "$what: the child's getppid calls"
}

# --- start: at level 1, and at level 2 -------------------------------------------
for level in 1 2; do
	ns=(unshare -p -f --mount-proc)
	[ $level = 1 ] || ns+=("${ns[@]}")
	touch "$T/go"
	"${ns[@]}" "$SYSTRACECTL" start --backend bpf --counters none -q -n "start$level" -- \
		"$py" "$T/work.py" "$T/start$level" "$T/go" >"$T/start$level.log" 2>&1
	expect_eq "$?" 0 "start at level $level: exit status ($(cat "$T/start$level.log"))"
	ctl_ok dump "start$level" --json --no-symbols -o "$T/start$level.json"
	rows_check "$T/start$level.json" "$T/start$level" 11 "start at level $level"
	rm -f "$T/go"
done

# --- attach: from inside the namespace, to a running workload -------------------
cat >"$T/attach.sh" <<'EOF'
"$PY" "$T/work.py" "$T/att" "$T/go" &
w=$!
for ((i = 0; i < 500; i++)); do
	[ -e "$T/att" ] && [ -e "$T/att.child" ] && break
	sleep 0.02
done
read -r cpid _ <"$T/att.child"
echo "$w $(awk '/^PPid:/ { print $2 }' "/proc/$cpid/status")" >"$T/att.proc"
"$SYSTRACECTL" attach --tree --counters none -q -n att "$w" >"$T/att.sid" 2>"$T/att.err"
echo $? >"$T/att.rc"
touch "$T/go"
wait "$w"
EOF
rm -f "$T/go"
PY=$py unshare -p -f --mount-proc bash "$T/attach.sh"
expect_eq "$(cat "$T/att.rc")" 0 "attach --tree in the namespace: exit status ($(cat "$T/att.err"))"
read -r w ppid_proc <"$T/att.proc"
expect_eq "$(cut -d' ' -f1 "$T/att")" "$w" "attach: the workload's getpid() is the pid its shell started (\$!)"
expect_eq "$ppid_proc" "$w" "attach: the child's PPid in the namespace's /proc is the workload's pid"
ctl_ok dump att --json --no-symbols -o "$T/att.json"
rows_check "$T/att.json" "$T/att" 10 "attach --tree in the namespace"
expect_eq "$(csvq -f "$T/att.json" --json pick processes attached | sort | tr '\n' ' ')" "true true " \
	"attach: both rows attached"

# --- foreign: a pid namespace with the host's /proc ------------------------------
ctl list
sessions=$(grep -c '^[0-9]' <<<"$CTL_OUT")
for cmd in start attach; do
	if [ $cmd = start ]; then
		unshare -p -f "$SYSTRACECTL" start --backend bpf --counters none -q -- /bin/true \
			>"$T/foreign.out" 2>"$T/foreign.err"
	else
		# shellcheck disable=SC2016 # expanded by the namespace's shell
		unshare -p -f sh -c 'sleep 5 & "$0" attach --counters none -q $!; rc=$?; kill $!; exit $rc' \
			"$SYSTRACECTL" >"$T/foreign.out" 2>"$T/foreign.err"
	fi
	expect_eq "$?" 4 "$cmd in a pid namespace with the host's /proc: exit status ($(cat "$T/foreign.err"))"
	expect_contains "$(cat "$T/foreign.err")" "/proc is not mounted for this process's pid namespace" \
		"$cmd in a pid namespace with the host's /proc: message"
	expect_contains "$(cat "$T/foreign.err")" "unshare --pid --fork --mount-proc" \
		"$cmd in a pid namespace with the host's /proc: how to fix it"
done
ctl list
expect_eq "$(grep -c '^[0-9]' <<<"$CTL_OUT")" "$sessions" "sessions after the refusals"
ctl_ok reset --all
