#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What systracectl says before it asks any tracer: --version, help --help,
# option errors in one voice ("systracectl: ..." then the synopsis, exit
# 1), the exit codes each --help lists, reset and detach refusing to guess
# a session, names refused. Nothing here reaches a tracer: a start that
# would run anyway names the module (--backend kmod), which the host cannot
# load, so that it never makes a BPF session on the host's shared bpffs.
. "$(dirname "$0")/testlib.sh"

# run ARGS...: sets OUT, ERR, RC.
run() {
	local e
	e=$(mktemp)
	OUT=$("$CTL" "$@" 2>"$e")
	RC=$?
	ERR=$(cat "$e")
	rm -f "$e"
}

run --version
ver=$(git -C "$TOP" describe --always --dirty 2>/dev/null)
eq "--version: the build's git describe and the ABI" \
	"$RC|$OUT" "0|systracectl ${ver:-$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")} (systrace ABI 1)"

run help --help
eq "help --help: help's usage, exit 0" "$RC|$(head -n 1 <<<"$OUT")" "0|Usage: systracectl help [SUBCOMMAND]"
eq "help --help: exit codes 0 and 1 only" \
	"$(awk '/^Exit codes:/ { on = 1; next } on { print $1 }' <<<"$OUT" | paste -sd' ')" "0 1"

# Each --help lists the codes its command can return.
codes() { "$CTL" "$1" --help | awk '/^Exit codes:/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print $1 }' | paste -sd' '; }
for sub in status list log; do
	eq "$sub --help: exit codes" "$(codes "$sub")" "0 1 2 3 4 6"
done
eq "attach --help: exit codes (7: the BPF programs refused)" "$(codes attach)" "0 1 2 3 4 6 7"
for sub in dump report diff; do
	eq "$sub --help: exit codes (5: the totals check)" "$(codes "$sub")" "0 1 2 3 4 5 6"
done
for sub in reset detach; do
	eq "$sub --help: exit codes" "$(codes "$sub")" "0 1 2 3 4 6"
done
eq "start --help: exit codes, and CMD's status" \
	"$(codes start)|$("$CTL" start --help | grep -c "exits with CMD's status")" "0 1 2 3 4 5 6 7|1"

# Option errors: one line "systracectl: ...", the synopsis, exit 1; getopt
# prints nothing of its own.
check_usage_error() {
	local what=$1 want=$2
	shift 2
	run "$@"
	eq "$what" "$RC|$(head -n 1 <<<"$ERR")|$(sed -n 2p <<<"$ERR" | cut -d' ' -f1-2)|$OUT" \
		"1|systracectl: $want|Usage: systracectl|"
}
check_usage_error "an unknown long option" "unknown option '--foo'" dump --foo
check_usage_error "an unknown short option" "unknown option '-x'" report syscalls -x
check_usage_error "a long option without its argument" "option '--output' needs an argument" dump --output
check_usage_error "a short option without its argument" "option '-o' needs an argument" diff -o
check_usage_error "a flag given an argument" "option '--json' takes no argument" list --json=1
check_usage_error "--top 0" "--top needs a number >= 1" report errors --top 0
check_usage_error "--sort of diff" "--sort: 'total': give calls, time or errors" diff --sort total 1 2
check_usage_error "an unknown syscall, and the nearest" "--syscall: no syscall is named 'opneat'; did you mean 'openat'?" dump --syscall opneat
check_usage_error "a bad pid" "--pid: 'x' is not a process id" report syscalls --pid 1,x
check_usage_error "reset without SESSION" "which sessions? give SESSION... or --all (see: systracectl list)" reset
check_usage_error "reset of SESSION and --all" "give SESSION... or --all, not both" reset 3 --all
check_usage_error "detach without SESSION" "which sessions? give SESSION... (see: systracectl list)" detach
check_usage_error "an empty name" "--name: the name is empty" start --backend kmod --name "" -- true
check_usage_error "a name of digits" "--name: '42' is a number, which SESSION reads as an id" attach --name 42 1
check_usage_error "a name with a newline" "--name: control characters are not allowed" start --backend kmod --name $'a\nb' -- true
check_usage_error "a name too long" "--name: at most 31 bytes" start --backend kmod --name 0123456789abcdef0123456789abcdef -- true

check_usage_error "log: a Perfetto trace in .zst" \
	"/nonexistent/t.pftrace.zst: only csv and jsonl logs are compressed (.zst); Perfetto opens a perfetto trace as it is" \
	log --input /nonexistent/in.csv -o /nonexistent/t.pftrace.zst
check_usage_error "start: a Chrome trace in .zst, before CMD runs" \
	"/nonexistent/t.json.zst: only csv and jsonl logs are compressed (.zst); Perfetto opens a chrome trace as it is" \
	start --backend kmod --log /nonexistent/t.json.zst -- true
check_usage_error "log: --log-format perfetto of a name in .zst" \
	"/nonexistent/t.csv.zst: only csv and jsonl logs are compressed (.zst); Perfetto opens a perfetto trace as it is" \
	log --input /nonexistent/in.csv -o /nonexistent/t.csv.zst --log-format perfetto

check_usage_error "report: --input twice" \
	"--input given twice ('/nonexistent/a.json', '/nonexistent/b.json'): a report reads one dump or log" \
	report syscalls --input /nonexistent/a.json --input /nonexistent/b.json
check_usage_error "log: --input twice" \
	"--input given twice ('/nonexistent/a.csv', '/nonexistent/b.csv'): log converts one LOG" \
	log --input /nonexistent/a.csv --input /nonexistent/b.csv -o /nonexistent/c.csv
notlog=$(mktemp /tmp/systrace-test-cli.XXXXXX)
printf 'time,value\n1,2\n' >"$notlog"
run report syscalls --input "$notlog"
eq "report --input of a CSV that is no log: exit 6, its name, line and what was expected" "$RC|$ERR|$OUT" \
	"6|systracectl: --input: $notlog:1: neither a dump (the JSON object of dump --json) nor a log (its first line is no log header: a log's names the columns event, proc_id and ts_ns, at least)|"
rm -f "$notlog"

check_usage_error "top --interval 0" "--interval needs 1 to 3600 seconds" top --interval 0
check_usage_error "top with two sessions" "unexpected argument '2'" top 1 2
eq "top --help: exit codes" "$(codes top)" "0 1 2 3 4 6"

done_testing
