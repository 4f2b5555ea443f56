#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --sort takes every column a report's text lists show, by the heading the
# text shows ("avg" for avg_ns) or the full name; each order is checked
# with sort(1); a wrong key, table, report or subcommand lists what there
# is and names the nearest; report timeline's list takes --top and --sort.
# The histogram and thresholds of amortize and
# the greedy cover of short keep their own order.
. "$(dirname "$0")/testlib.sh"

T=$(mktemp -d /tmp/systrace-test-sort.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$TOP/user/tests/log_gen" -n 6 -k 9 -j 2 -o "$T/b.csv" 2>/dev/null

# The headings of the text's lists (the line under each title but totals).
headings() {
	"$CTL" report "$1" --input "$T/b.csv" --wide 2>/dev/null |
		awk 'p { print } { p = 0 } prev == "" && NF && NR > 1 && $0 != "totals" { p = 1 } { prev = $0 }' |
		tr -s ' ' '\n' | grep . | sort -u
}
for r in amortize short phases syscalls errors; do
	refused=$(headings "$r" | while read -r h; do
		"$CTL" report "$r" --input "$T/b.csv" --sort "$h" >/dev/null 2>&1 || echo "$h"
	done | paste -sd' ')
	case $r in
	amortize) want="calls_fraction cumulative_sites_fraction max_calls min_calls processes sites_fraction threshold" ;;
	short) want="cumulative cumulative_fraction processes_clean processes_clean_fraction reason removed step" ;;
	*) want="" ;;
	esac
	eq "report $r: --sort takes each heading of its lists ($(headings "$r" | grep -c .) headings; refused: ${want:-none})" \
		"$refused" "$want"
done

# report syscalls' list by each column, heading and full name: the column is
# in sort(1)'s order (numbers largest first, text A to Z).
cols=$("$CTL" report syscalls --input "$T/b.csv" --csv --table syscalls | head -n 1)
i=0
for col in ${cols//,/ }; do
	i=$((i + 1))
	head=${col%_ns}
	for key in "$head" "$col"; do
		"$CTL" report syscalls --input "$T/b.csv" --csv --table syscalls --top 1000 --sort "$key" \
			>"$T/out" 2>"$T/err"
		rc=$?
		case $col in
		syscall | abi) flags="" ;;
		*) flags="-g -r" ;;
		esac
		# shellcheck disable=SC2086 # the flags are words
		if [ $rc -eq 0 ] && tail -n +2 "$T/out" | cut -d, -f$i | sort -c $flags 2>"$T/sort"; then
			ok "report syscalls --sort $key: column $i ($col) in order ($(($(wc -l <"$T/out") - 1)) rows)"
		else
			not_ok "report syscalls --sort $key: column $i ($col) in order"
			diag <"$T/err"
			diag <"$T/sort"
		fi
		[ "$key" = "$col" ] && break
	done
done

err() {
	"$CTL" "$@" >"$T/out" 2>"$T/err"
	echo "$?|$(head -n 1 "$T/err")|$(wc -c <"$T/out")"
}
eq "--sort totl: the nearest, and the keys" "$(err report syscalls --input "$T/b.csv" --sort totl)" \
	"1|systracectl: --sort: report syscalls has no column 'totl'; did you mean 'total'? keys: time_percent, total, avg, min, max, calls, errors, sites, abi, nr, syscall, time, proc_id, pid, comm, syscalls|0"
eq "--sort of timeline: its columns" "$(err report timeline --input "$T/b.csv" --sort total)" \
	"1|systracectl: --sort: report timeline has no column 'total'; keys: proc_id, pid, comm, start_ms, end_ms, duration_ms, loader_ms, running|0"
# report timeline: --top N rows, and --sort by each of its columns in sort(1)'s order.
eq "report timeline --top 3: 3 rows of 13" \
	"$("$CTL" report timeline --input "$T/b.csv" --csv --top 3 | tail -n +2 | wc -l) $("$CTL" report timeline --input "$T/b.csv" --csv | tail -n +2 | wc -l)" "3 13"
i=0
for col in proc_id pid comm start_ms end_ms duration_ms loader_ms running; do
	i=$((i + 1))
	flags="-g -r"
	[ "$col" = comm ] && flags=""
	# shellcheck disable=SC2086 # the flags are words
	if "$CTL" report timeline --input "$T/b.csv" --csv --sort "$col" 2>"$T/err" | tail -n +2 | cut -d, -f$i | sort -c $flags 2>"$T/sort"; then
		ok "report timeline --sort $col: column $i in order"
	else
		not_ok "report timeline --sort $col: column $i in order"
		diag <"$T/err"
		diag <"$T/sort"
	fi
done
eq "--table syscals: the nearest, and the tables" "$(err report syscalls --input "$T/b.csv" --csv --table syscals)" \
	"1|systracectl: report syscalls has no table 'syscals'; did you mean 'syscalls'? tables: totals, syscalls, processes|0"
eq "report sycalls: the nearest, and the reports" "$(err report sycalls --input "$T/b.csv")" \
	"1|systracectl: unknown report 'sycalls'; did you mean 'syscalls'? reports: amortize, short, phases, syscalls, errors, timeline|0"
eq "stauts: the nearest subcommand" "$(err stauts)" "1|systracectl: unknown subcommand 'stauts'; did you mean 'status'?|0"
eq "help stauts: the nearest subcommand" "$(err help stauts)" "1|systracectl: unknown subcommand 'stauts'; did you mean 'status'?|0"
eq "xyzzy: no subcommand near" "$(err xyzzy)" "1|systracectl: unknown subcommand 'xyzzy'|0"
done_testing
