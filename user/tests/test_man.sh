#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The man pages: both render with man -l without a warning, systracectl(8)
# lists exactly the subcommands of systracectl --help and, for each, exactly
# the options of its --help (both ways), the reports with their own options
# as report --help names them, the exit codes of --help, and global options
# that the program takes; systrace(4) lists exactly the module's parameters
# (modinfo -p of a module built by make modules-all); the ENVIRONMENT of
# each page names the SYSTRACE_* variables systracectl reads.
. "$(dirname "$0")/testlib.sh"

P8=$TOP/build/man/systracectl.8
P4=$TOP/build/man/systrace.4

if ! out=$(make -s -C "$TOP" man 2>&1); then
	not_ok "make man renders the man pages"
	echo "$out" | diag
	done_testing
fi
ok "make man renders the man pages"

# man -l: exit 0, nothing on stderr (--warnings: groff's warnings too), the
# page's title line, and no word broken by a hyphen (U+2010): the Makefile's
# .nh after .TH keeps --input and modprobe(8) whole.
for p in "$P8" "$P4"; do
	name=$(basename "$p")
	title="${name%.*}(${name##*.})"
	err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >"$p.txt")
	rc=$?
	if [ $rc -ne 0 ] || [ -n "$err" ]; then
		not_ok "man -l $name renders without a warning"
		echo "exit $rc: $err" | diag
	elif [[ $(head -n 1 "$p.txt") != "$title "* ]]; then
		not_ok "man -l $name renders without a warning"
		echo "first line is not the title $title: $(head -n 1 "$p.txt")" | diag
	elif grep -q $'\xe2\x80\x90' "$p.txt"; then
		not_ok "man -l $name renders without a warning"
		grep $'\xe2\x80\x90' "$p.txt" | diag
	else
		ok "man -l $name renders without a warning ($(wc -l <"$p.txt") lines)"
	fi
	rm -f "$p.txt"
done

# Subcommands, both ways.
same_set "systracectl(8) has a section for each subcommand of systracectl --help" \
	"$(man_subsections "$P8" COMMANDS)" "$(help_subcommands)"

terms=$(man_terms "$P8" COMMANDS)
for sub in $(help_subcommands); do
	man_opts=$(awk -F'\t' -v s="$sub" '$1 == s { print $2 }' <<<"$terms" | grep '^-' | option_words)
	if [ "$sub" = help ]; then
		# systracectl help takes a subcommand name, no option.
		eq "systracectl(8) gives help no option" "$man_opts" ""
		continue
	fi
	same_set "systracectl(8) lists the options of 'systracectl $sub --help'" \
		"$man_opts" "$(help_options "$sub")"
done

# The reports and their own options, as report --help writes them.
eq "systracectl(8) names the reports with their options as report --help does" \
	"$(awk -F'\t' '$1 == "report" && $2 !~ /^-/ { print $2 }' <<<"$terms")" "$(help_reports)"

# Exit codes: the numbers --help lists.
eq "systracectl(8) EXIT STATUS has the codes of systracectl --help" \
	"$(man_terms "$P8" "EXIT STATUS" | cut -f2)" \
	"$("$CTL" --help | awk '/^Exit codes:/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print $1 }')"

# Global options: each one the page lists works (exit 0, prints to stdout);
# --store takes a PATH and a subcommand after it (here --version, which
# reads no store), and systracectl --help names it.
globals=$(man_terms "$P8" "GLOBAL OPTIONS" | cut -f2 | option_words)
bad=
for o in $globals; do
	if [ "$o" = --store ]; then
		out=$("$CTL" --store "$TOP/build/man/no-such.db" --version 2>/dev/null)
	else
		out=$("$CTL" "$o" 2>/dev/null)
	fi && [ -n "$out" ] || bad+=" $o"
done
eq "systracectl takes each global option of systracectl(8) (${globals//$'\n'/ })" "${bad# }" ""
same_set "systracectl(8) GLOBAL OPTIONS are -h, --help, --version and --store" "$globals" $'-h\n--help\n--version\n--store'
eq "systracectl --help names --store PATH" "$("$CTL" --help | grep -c '^--store PATH:')" 1

# ENVIRONMENT: the SYSTRACE_* variables systracectl reads (the string
# literals of that form in its sources), both ways, in each page.
env_vars=$(cat "$TOP"/user/lib/*.c "$TOP"/user/lib/*/*.c "$TOP"/user/cli/*.c | grep -oE '"SYSTRACE_[A-Z_]+"' | tr -d '"' | sort -u)
for p in "$P8" "$P4"; do
	same_set "$(basename "$p") ENVIRONMENT names the SYSTRACE_* variables systracectl reads" \
		"$(man_terms "$p" ENVIRONMENT | cut -f2 | grep -oE 'SYSTRACE_[A-Z_]+' | sort -u)" "$env_vars"
done

# systrace(4): the module's parameters, both ways.
# shellcheck disable=SC2012 # build directories are kernel release names
ko=$(ls "$TOP"/build/*/kmod/systrace.ko 2>/dev/null | sort | head -n 1)
modinfo=$(PATH=$PATH:/usr/sbin:/sbin command -v modinfo)
if [ -z "$ko" ] || [ -z "$modinfo" ]; then
	skip "systrace(4) lists the module's parameters" "no build/*/kmod/systrace.ko (make modules-all) or no modinfo (kmod)"
else
	same_set "systrace(4) lists the parameters of $(basename "$(dirname "$(dirname "$ko")")")'s module (modinfo -p)" \
		"$(man_terms "$P4" PARAMETERS | cut -f2 | sed 's/=.*//')" \
		"$("$modinfo" -p "$ko" | cut -d: -f1)"
fi

done_testing
