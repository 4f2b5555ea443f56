#!/usr/bin/env bash
# The BPF backend's pin tree is root's only, in a private mount namespace
# with its own bpffs (mode 1777, as mounted by default) and a user made by
# useradd:
#   squat      the user makes /sys/fs/bpf/systrace first: start, list and
#              reset refuse it (exit 6, "owned by uid N", how to fix it),
#              nothing of root's goes into it, and a symlink "1" in it to a
#              directory of root's files (info, meta, procs...) does not get
#              them deleted by reset 1
#   link       /sys/fs/bpf/systrace is the user's symlink: refused, not followed
#   mode       root's, but mode 0755: refused ("chmod 0700")
#   old        an older systracectl's layout (1/meta...): refused ("rm -r"),
#              left as it is
#   stranger   an entry no layout has, or a pin of the wrong map: refused
#   pin        a pin of root's tree owned by the user: refused
#   repair     a tree whose making was killed (pins, no host) is made again
#   clean      after rm -r, start makes the tree: root's, mode 0700, its maps,
#              keep/, the pins of the 5 programs a session without counters
#              attaches, and (once the keeper is done) the 6 spare maps
#   replaced   root removes the tree while session A runs, and B starts in a
#              new tree (id 1 again): when A ends, its keeper leaves B's
#              tree alone: B's keeper lock stays, B ends finished with its
#              10 getppid calls
#   held       a command holds the tree it read first: reset --all, stopped
#              between its list and its delete (SYSTRACE_BPF_STOP=change,
#              test-only), then root removes the tree and B starts in a new
#              one (id 1 again): the reset deletes nothing of B's (exit 4,
#              "the pin tree this command read was removed"); B ends
#              finished with its 10 getppid calls
#   umask      under umask 0277, start makes the tree and uses it again:
#              directories 0700, pins 0600, whatever the umask
# tags: bpf bpf-quick
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
need_bpf
need_prog sites
need_cmd useradd
need_cmd setpriv
need_cmd fuser
in_private_bpffs "$@"

user=systrace-squat
if ! id -u "$user" >/dev/null 2>&1; then
	useradd -r -M -s /usr/sbin/nologin "$user" || fail "useradd $user"
	on_exit "userdel $user 2>/dev/null"
fi
U=$(id -u "$user")
G=$(id -g "$user")
as_user() { setpriv --reuid="$U" --regid="$G" --clear-groups "$@"; }
start() { ctl start --backend bpf --counters none --quiet -- "$PROGS/sites" 7 3 2; }
assert_eq "$(stat -c %a /sys/fs/bpf)" 1777 "the fresh bpffs' mode"

# --- squat: the user's directory ---------------------------------------------
as_user mkdir "$BPF_TREE" || fail "the user cannot make $BPF_TREE"
victim=$T/victim
mkdir "$victim"
for f in info meta procs sites tasks files sys_enter; do echo "root's $f" >"$victim/$f"; done
as_user ln -s "$victim" "$BPF_TREE/1" || fail "the user cannot make a link in $BPF_TREE"
start
expect_eq "$CTL_RC" 6 "start with the user's $BPF_TREE: exit status"
expect_contains "$CTL_ERR" "owned by uid $U, not root" "start with the user's $BPF_TREE: message"
expect_contains "$CTL_ERR" "rm -r $BPF_TREE" "start with the user's $BPF_TREE: how to fix it"
expect_eq "$(find "$BPF_TREE" -mindepth 1 -printf '%f ')" "1 " "what the user's $BPF_TREE holds after root's start"
ctl list
expect_eq "$CTL_RC" 6 "list with the user's $BPF_TREE: exit status"
ctl reset 1
expect_eq "$CTL_RC" 6 "reset 1 with the user's $BPF_TREE: exit status"
expect_eq "$(find "$victim" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')" "files info meta procs sites sys_enter tasks " \
	"root's files behind the user's link 1 after reset 1"
rm -r "$BPF_TREE"

# --- link: the user's symlink ------------------------------------------------
as_user mkdir /sys/fs/bpf/elsewhere
as_user ln -s /sys/fs/bpf/elsewhere "$BPF_TREE"
start
expect_eq "$CTL_RC" 6 "start with $BPF_TREE a link: exit status"
expect_contains "$CTL_ERR" "a symbolic link" "start with $BPF_TREE a link: message"
expect_eq "$(find /sys/fs/bpf/elsewhere -mindepth 1)" "" "what the link's target holds after root's start"
rm -r "$BPF_TREE" /sys/fs/bpf/elsewhere

# --- mode: root's directory, but others may write or read it -----------------
mkdir -m 0755 "$BPF_TREE"
start
expect_eq "$CTL_RC" 6 "start with $BPF_TREE of mode 0755: exit status"
expect_contains "$CTL_ERR" "mode 0755, not 0700" "start with $BPF_TREE of mode 0755: message"
expect_contains "$CTL_ERR" "chmod 0700 $BPF_TREE" "start with $BPF_TREE of mode 0755: how to fix it"
rmdir "$BPF_TREE"

# --- old: the layout of an older systracectl ----------------------------------
mkdir -m 0700 "$BPF_TREE" "$BPF_TREE/1"
bpftool map create "$BPF_TREE/1/meta" type array key 4 value 8 entries 1 name meta ||
	fail "bpftool map create $BPF_TREE/1/meta"
for cmd in "start" "list" "status" "reset --all"; do
	# shellcheck disable=SC2086 # the subcommand and its arguments
	if [ "$cmd" = start ]; then start; else ctl $cmd; fi
	expect_eq "$CTL_RC" 6 "$cmd with an older layout: exit status"
	expect_contains "$CTL_ERR" "sessions of an older systracectl (1)" "$cmd with an older layout: message"
	expect_contains "$CTL_ERR" "rm -r $BPF_TREE" "$cmd with an older layout: how to remove it"
done
expect_eq "$(find "$BPF_TREE/1" -mindepth 1 -printf '%f ')" "meta " "the older layout's pins after the refusals"
rm -r "$BPF_TREE"

# --- stranger: what this layout has no place for -----------------------------
start
assert_eq "$CTL_RC" 0 "start with no tree: exit status ($CTL_ERR)"
bpftool map create "$BPF_TREE/evil" type array key 4 value 8 entries 1 name evil || fail "bpftool map create"
start
expect_eq "$CTL_RC" 6 "start with an unknown entry: exit status"
expect_contains "$CTL_ERR" "holds \"evil\", which this systracectl did not make" "start with an unknown entry: message"
rm "$BPF_TREE/evil"
rm "$BPF_TREE/tasks"
bpftool map create "$BPF_TREE/tasks" type hash key 4 value 8 entries 1 name st_tasks || fail "bpftool map create"
start
expect_eq "$CTL_RC" 6 "start with a hash map as tasks: exit status"
expect_contains "$CTL_ERR" "tasks is not the map this systracectl pins there" "start with a hash map as tasks: message"
bpf_wait_keepers 10
rm -r "$BPF_TREE"

# --- pin: a pin of the user's in root's tree ---------------------------------
start
assert_eq "$CTL_RC" 0 "start with no tree: exit status ($CTL_ERR)"
chown "$U:$G" "$BPF_TREE/tasks" || fail "chown $BPF_TREE/tasks"
start
expect_eq "$CTL_RC" 6 "start with the user's pin as tasks: exit status"
expect_contains "$CTL_ERR" "tasks is not a pinned BPF map of root's" "start with the user's pin as tasks: message"
rm -r "$BPF_TREE"

# --- repair: a making killed before its host entry ---------------------------
start
assert_eq "$CTL_RC" 0 "start: exit status"
rm "$BPF_TREE/host"
start
expect_eq "$CTL_RC" 0 "start with a tree whose host entry is missing: exit status ($CTL_ERR)"
ctl list
expect_eq "$(grep -c '^[0-9]' <<<"$CTL_OUT")" 1 "sessions after the tree was made again"

# --- clean: the tree start makes ---------------------------------------------
bpf_wait_keepers 10
rm -r "$BPF_TREE"
start
assert_eq "$CTL_RC" 0 "start with no tree: exit status ($CTL_ERR)"
expect_eq "$(stat -c '%u %a %F' "$BPF_TREE")" "0 700 directory" "the tree start makes: owner, mode, type"
bpf_wait_keepers 10
expect_eq "$(find "$BPF_TREE" -mindepth 1 -maxdepth 1 -printf '%f\n' | sed 's/^prog-[0-9a-f]\{16\}-/prog-DIGEST-/' |
	sort | tr '\n' ' ')" \
	"argv counters files host keep logs notify paths procs prog-DIGEST-st_exec prog-DIGEST-st_exit prog-DIGEST-st_fork prog-DIGEST-st_sys_enter prog-DIGEST-st_sys_exit sessions sites spare-argv spare-files spare-notify spare-paths spare-procs spare-sites tasks " \
	"the tree's entries"
ctl_ok dump --json --no-symbols -o "$T/d.json"
expect_eq "$(csvq -f "$T/d.json" --json sum processes syscalls)" "$(csvq -f "$T/d.json" --json get session.syscalls)" \
	"the session's syscalls are its rows'"

# --- umask: a strict umask changes no mode of the tree -------------------------
bpf_wait_keepers 10
rm -r "$BPF_TREE"
umask 0277
start
expect_eq "$CTL_RC" 0 "start with umask 0277 and no tree: exit status ($CTL_ERR)"
start
umask 022
expect_eq "$CTL_RC" 0 "start with umask 0277 and the tree it made: exit status ($CTL_ERR)"
bpf_wait_keepers 10
expect_eq "$(stat -c '%u %a' "$BPF_TREE")" "0 700" "the tree's owner and mode, made under umask 0277"
expect_eq "$(find "$BPF_TREE" -mindepth 1 -type d ! -perm 0700 | wc -l)" 0 "directories in the tree of a mode other than 0700 (umask 0277)"
expect_eq "$(find "$BPF_TREE" -mindepth 1 -type f ! -perm 0600 | wc -l)" 0 "pins in the tree of a mode other than 0600 (umask 0277)"
expect_eq "$(find "$BPF_TREE" -mindepth 1 -maxdepth 1 -type f | wc -l)" 22 "pins in the tree (11 maps, 5 programs, 6 spares)"

# --- replaced: a keeper whose tree root removed ---------------------------------
bpf_wait_keepers 10
# start_kept NAME: `sites 5 5 0 $T/goNAME` started in the background (its pid
# in STARTED, its stderr in $T/NAME.err), once its session id is out and its
# keeper holds keep/.
start_kept() {
	"$SYSTRACECTL" start --backend bpf --counters none -q -- "$PROGS/sites" 5 5 0 "$T/go$1" 2>"$T/$1.err" &
	STARTED=$!
	for ((i = 0; i < 200; i++)); do
		[ -n "$(bpf_sid "$T/$1.err" 2>/dev/null)" ] && [ -n "$(ls "$BPF_TREE/keep" 2>/dev/null)" ] && break
		sleep 0.05
	done
}

# finished_b NAME PID: B (start_kept NAME, pid PID) let go: it exits 0, its
# session finished with its 10 getppid calls.
finished_b() {
	local sid
	sid=$(bpf_sid "$T/$1.err")
	touch "$T/go$1"
	wait "$2"
	expect_eq "$?" 0 "B's start: exit status ($(cat "$T/$1.err"))"
	ctl_ok dump "$sid" --json --no-symbols -o "$T/$1.json"
	expect_eq "$(csvq -f "$T/$1.json" --json get session.state)" finished "B's state"
	expect_eq "$(csvq -f "$T/$1.json" --json sum sites calls nr=110)" 10 "B's getppid calls"
	ctl_ok reset --all
}

ctl_ok reset --all
rm -r "$BPF_TREE"
start_kept a
a=$STARTED
rm -r "$BPF_TREE"
start_kept b
b=$STARTED
bsid=$(bpf_sid "$T/b.err")
expect_eq "$(bpf_sid "$T/a.err") $bsid" "1 1" "A's id and B's, each the first of its tree"
touch "$T/goa"
wait "$a"
sleep 1
expect_eq "$(ls "$BPF_TREE/keep")" "$bsid" "B's keeper lock once A (of the removed tree) ended"
finished_b b "$b"

# --- held: a command whose tree root removed meanwhile -------------------------
bpf_wait_keepers 10
rm -r "$BPF_TREE"
start_kept c
a=$STARTED
env SYSTRACE_BPF_STOP=change "$SYSTRACECTL" reset --all >"$T/r.out" 2>"$T/r.err" &
r=$!
bpf_stopped "$r" || fail "reset --all did not stop before its delete (SYSTRACE_BPF_STOP=change): $(cat "$T/r.err")"
rm -r "$BPF_TREE"
start_kept d
b=$STARTED
bsid=$(bpf_sid "$T/d.err")
expect_eq "$(bpf_sid "$T/c.err") $bsid" "1 1" "A's id and B's, each the first of its tree"
kill -CONT "$r"
wait "$r"
expect_eq "$?" 4 "reset --all of the removed tree: exit status ($(cat "$T/r.err"))"
expect_contains "$(cat "$T/r.err")" "the pin tree this command read was removed" "reset --all of the removed tree: message"
expect_eq "$(ls "$BPF_TREE/keep")" "$bsid" "B's keeper lock after the reset of the removed tree"
touch "$T/goc"
wait "$a"
finished_b d "$b"
