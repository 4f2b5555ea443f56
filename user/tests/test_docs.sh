#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# docs/cli.md's synopsis (its first code block) names every subcommand of
# systracectl --help and, for each, exactly the options its --help lists
# (long names; a short one in the synopsis counts as its long name), as
# test_man.sh checks the man page; and each --help's own synopsis names
# only options that --help lists.
. "$(dirname "$0")/testlib.sh"

DOC=$TOP/docs/cli.md

# The synopsis: the first ``` block, its continuation lines joined to the
# line they continue, SELECTION spelled out.
synopsis=$(awk '/^```/ { if (on) exit; on = 1; next } on' "$DOC" |
	awk '/^systracectl / || /^SELECTION:/ { if (line != "") print line; line = $0; next }
		{ sub(/^ +/, " "); line = line $0 } END { if (line != "") print line }')
selection=$(grep '^SELECTION:' <<<"$synopsis" | sed 's/^SELECTION://')
synopsis=$(grep -v '^SELECTION:' <<<"$synopsis" | sed "s/\[SELECTION\]/$selection/")

# long_options: the long options of stdin's words, shorts mapped to longs
# by the pairs ("-o --output") given as $1.
long_options() {
	grep -oE -- '(^|[][ |(])--?[a-zA-Z][-a-zA-Z]*' | sed 's/^[][ |(]//' |
		awk -v pairs="$1" 'BEGIN { n = split(pairs, p, "\n"); for (i = 1; i <= n; i++) { split(p[i], w, " "); map[w[1]] = w[2] } }
			/^--/ { print; next } ($0 in map) { print map[$0] }' | sort -u
}

same_set "docs/cli.md's synopsis has a line for each subcommand of systracectl --help" \
	"$(awk '{ print $2 }' <<<"$synopsis" | grep -v '^-' | sort -u)" "$(help_subcommands | sort -u)"

for sub in $(help_subcommands); do
	help=$("$CTL" "$sub" --help)
	pairs=$(grep -E '^  -[a-zA-Z], --' <<<"$help" | awk '{ sub(/,$/, "", $1); print $1, $2 }')
	listed=$(grep -E '^  -' <<<"$help" | option_words | grep -- '^--' | grep -vx -- --help | sort -u)
	doc=$(grep "^systracectl $sub " <<<"$synopsis" | sed "s/^systracectl $sub //" |
		long_options "$pairs" | grep -vx -- --help)
	if [ "$sub" = help ]; then
		eq "docs/cli.md's synopsis gives help no option" "$doc" ""
		continue
	fi
	if [ -z "$listed" ]; then
		eq "docs/cli.md's synopsis of $sub names no option, as its --help" "$doc" ""
	else
		same_set "docs/cli.md's synopsis of $sub names the options of 'systracectl $sub --help'" \
			"$doc" "$listed"
	fi
	usage=$(awk '/^$/ { exit } { print }' <<<"$help" | long_options "$pairs")
	extra=$(comm -23 <(echo "$usage") <(echo "$listed") | paste -sd' ')
	eq "'systracectl $sub --help': its synopsis names only options it lists" "$extra" ""
done

done_testing
