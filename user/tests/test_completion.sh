#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bash completion (user/systracectl.bash), driven as bash drives it:
# COMP_WORDS and COMP_CWORD set, _systracectl called, COMPREPLY compared
# exactly, for subcommands, options, --counters modes, report names, the
# tables of a report, diff's --by keys, file names after -o; session completion says nothing
# at all when the module is not loaded. Its option lists are those of each
# subcommand's --help (and of each report's line in report --help), both
# ways. (selftests/test_dkms.sh completes real session ids and names, and
# checks the table names against report --json, in the VM.)
. "$(dirname "$0")/testlib.sh"

D=$(mktemp -d /tmp/systrace-completion.XXXXXX)
trap 'rm -rf "$D"' EXIT

# shellcheck source=user/systracectl.bash
. "$TOP/user/systracectl.bash"

eq "sourcing the completion registers _systracectl for systracectl" \
	"$(complete -p systracectl 2>&1)" "complete -F _systracectl systracectl"

# complete WORD...: COMPREPLY for the command line WORD... with the cursor
# at the end of the last word (give "" for an empty word), one a line; the
# function's stderr is kept in $D/err.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_systracectl 2>"$D/err"
	((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
}

# case WANT WORD...: one test, COMPREPLY must be WANT's words in order.
case_() {
	local want=$1
	shift
	eq "complete '$*'" "$(complete_words "$@")" "$(tr ' ' '\n' <<<"$want" | grep .)"
}

case_ "status start attach detach log dump list save export reset report diff top help" systracectl ""
case_ "reset report" systracectl re
case_ "-h --help --version" systracectl -
case_ "status start" systracectl help st
case_ "instructions cycles task-clock none" systracectl start --counters ""
case_ "task-clock" systracectl start -n build -c t
case_ "" systracectl start --name ""
case_ "amortize short phases syscalls errors timeline paths" systracectl report ""
case_ "short syscalls" systracectl report s
case_ "totals histogram thresholds processes" systracectl report amortize --csv --table ""
case_ "totals" systracectl report syscalls 3 --csv --table t
case_ "totals syscalls processes" systracectl report syscalls 3 --csv --table ""
case_ "process" systracectl report errors --by ""
case_ "--input --csv --json --table --output --wide --sort --top --syscall --comm --pid --errors --by --all --threshold --max-ms --help" systracectl report short --
case_ "--table --top" systracectl report phases --json -o out.json --t
case_ "--sites --syscalls --sort --syscall" systracectl dump --s
case_ "--all" systracectl reset --a
case_ "--tree --threads-only" systracectl attach --t
case_ "none" systracectl attach -t --counters n
eq "complete 'systracectl attach ' offers this shell's pid" \
	"$(complete_words systracectl attach "" | grep -cx "$$")" 1
case_ "syscall site" systracectl diff --by s
case_ "syscall,site,process syscall,site,path syscall,site,amortize" systracectl diff 3 --by syscall,site,
case_ "calls time errors" systracectl diff --input a.json --by site --sort ""
case_ "openat open" systracectl report errors --syscall op
case_ "errnos syscalls sites processes" systracectl report errors --csv --table ""

mkdir -p "$D/files/sub"
: >"$D/files/a.csv"
: >"$D/files/b.json"
eq "complete 'systracectl dump -o ' in a directory holding a.csv, b.json, sub/" \
	"$(cd "$D/files" && complete_words systracectl dump -o "")" $'a.csv\nb.json\nsub'

# Sessions: the real CLI, without the module, or without a session (the
# BPF backend then lists none: exit 0 and only the header).
lines=$("$CTL" list 2>/dev/null | wc -l)
"$CTL" list >/dev/null 2>&1
rc=$?
if [ $rc -eq 2 ] || [ $rc -eq 3 ] || { [ $rc -eq 0 ] && [ "$lines" -le 1 ]; }; then
	for words in "dump " "reset " "report amortize " "diff 3 "; do
		# shellcheck disable=SC2086
		got=$(complete_words "$CTL" $words "")
		eq "complete '$words' without the module or a session: no word and no message" \
			"$got|$(cat "$D/err")" "|"
	done
else
	skip "session completion without the module" "systracectl list exits $rc here with $lines lines, not 2 (not loaded), 3, or 0 with no session"
fi

# The option lists, against --help.
same_set "the completion offers the subcommands of systracectl --help" \
	"$(complete_words systracectl "")" "$(help_subcommands)"
for sub in $(help_subcommands); do
	[ "$sub" = help ] && continue
	got=$(complete_words systracectl "$sub" - | grep -vx -- --)
	if [ "$sub" = report ]; then
		got=$(complete_words systracectl report amortize - && complete_words systracectl report short - &&
			complete_words systracectl report phases - && complete_words systracectl report syscalls - &&
			complete_words systracectl report errors - && complete_words systracectl report timeline -)
	fi
	same_set "the completion offers the options of 'systracectl $sub --help'" "$got" "$(help_options "$sub")"
done
report_only=$'--threshold\n--max-ms\n--svg'
common=$(help_options report | grep -vxF -- "$report_only")
while read -r report rest; do
	same_set "the completion offers report $report's options: report --help's common ones and '$rest'" \
		"$(complete_words systracectl report "$report" -)" \
		"$common${rest:+$'\n'}$(option_words <<<"${rest//[][]/}")"
done < <(help_reports)
eq "the completion's reports are those of report --help" \
	"$(complete_words systracectl report "")" "$(help_reports | cut -d' ' -f1)"

done_testing
