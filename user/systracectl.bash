# bash completion for systracectl(8)                      -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0
#
# Completes the subcommands, each one's options, the values of --counters,
# --sort and --table (the tables of the report being asked for), diff's
# --by keys, common syscall names after --syscall, the report names,
# process ids after attach,
# session ids and names (from `systracectl list`: nothing, silently, when the
# module is not loaded or the caller may not list), file names after -o,
# --output and --input, and the command after start's --. It needs nothing
# from the bash-completion package. make install puts it in
# PREFIX/share/bash-completion/completions/systracectl; to try it from the
# source tree: . user/systracectl.bash
#
# The option lists are those of each subcommand's --help
# (user/tests/test_completion.sh checks that they agree).

_systracectl_subcommands="status start attach detach log dump list save export reset report diff top help"
_systracectl_reports="amortize short phases syscalls errors timeline paths"
# The selection options of dump, report and diff.
_systracectl_select="--sort --top --syscall --comm --pid --errors"

# _systracectl_options SUBCOMMAND [REPORT]: the options SUBCOMMAND takes.
_systracectl_options() {
	case $1 in
	status) echo "--json -h --help" ;;
	list) echo "--all --json -h --help" ;;
	save) echo "-h --help" ;;
	export) echo "-d --dir -h --help" ;;
	start) echo "-n --name -c --counters -b --backend --paths -q --quiet --self-usage --no-save --progress --no-progress --log --log-format --log-buffer --early-object -h --help --" ;;
	log) echo "-o --output -f --log-format -e --early-object --no-symbols -i --input -h --help" ;;
	dump) echo "--csv --json --processes --sites --syscalls -o --output --no-symbols $_systracectl_select -h --help" ;;
	attach) echo "-t --tree -T --threads-only -n --name -c --counters --paths -q --quiet --no-save -h --help" ;;
	detach) echo "-h --help" ;;
	reset) echo "--all -h --help" ;;
	top) echo "--interval --count --top --wide -h --help" ;;
	diff) echo "--input --by --csv --json -o --output --wide --threshold $_systracectl_select -h --help" ;;
	report)
		local o="--input --csv --json --table -o --output --wide $_systracectl_select --by --all"
		case ${2:-} in
		amortize) o+=" --threshold" ;;
		short) o+=" --threshold --max-ms" ;;
		syscalls | errors | phases | paths) ;;
		timeline) o+=" --svg" ;;
		*) o+=" --threshold --max-ms --svg" ;;
		esac
		echo "$o -h --help"
		;;
	esac
}

# _systracectl_tables [REPORT]: the tables REPORT prints (all, without one).
_systracectl_tables() {
	case ${1:-} in
	amortize) echo "totals histogram thresholds processes" ;;
	short) echo "totals cover functions unresolved" ;;
	phases) echo "totals syscalls processes" ;;
	syscalls) echo "totals syscalls processes" ;;
	errors) echo "errnos syscalls sites processes" ;;
	timeline) echo "totals processes" ;;
	paths) echo "paths" ;;
	*) echo "totals histogram thresholds processes cover functions unresolved syscalls errnos sites paths" ;;
	esac
}

# _systracectl_sessions CMD: the ids and names of the sessions, oldest first,
# from CMD list (one line per session after a header: ID NAME STATE ROOT_PID
# PROCS SYSCALLS DROPPED; "-" for no name). A name with a blank in it is
# left out: it cannot be completed as one word.
_systracectl_sessions() {
	"$1" list 2>/dev/null </dev/null |
		awk 'NR > 1 && NF >= 7 {
			if (!seen[$1]++) print $1
			if (NF == 7 && $2 != "-" && !seen[$2]++) print $2
		}'
}

_systracectl() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=''
	local cmd=${COMP_WORDS[0]} sub='' report='' dashdash=0 npos=0 i w
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# What the words before the cursor say: the subcommand, the report,
	# start's --, and how many positional arguments (SESSION) were given.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -z $sub ]]; then
			[[ $w == -* ]] || sub=$w
			continue
		fi
		if [[ $sub == start && $w == -- ]]; then
			dashdash=$i
			break
		fi
		case $w in
		-n | --name | -c | --counters | -b | --backend | --paths | -o | --output | --input | --table | --threshold | --max-ms | --top | --by | --svg | \
			--log | --log-format | --log-buffer | --early-object | -f | -e | -i | --sort | --syscall | --comm | --pid | \
			--interval | --count | -d | --dir)
			i=$((i + 1)) # its value
			;;
		-*) ;;
		*)
			if [[ $sub == report && -z $report ]]; then
				report=$w
			else
				npos=$((npos + 1))
			fi
			;;
		esac
	done

	if [[ -z $sub ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "-h --help --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$_systracectl_subcommands" -- "$cur")
		fi
		return 0
	fi

	# start -- CMD [ARGS...]: a command, then what bash completes by default.
	if ((dashdash)); then
		if ((COMP_CWORD == dashdash + 1)); then
			mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
		else
			compopt -o bashdefault -o default 2>/dev/null
		fi
		return 0
	fi

	# The value of the option before the cursor.
	case $sub:$prev in
	start:-c | start:--counters | attach:-c | attach:--counters)
		mapfile -t COMPREPLY < <(compgen -W "instructions cycles task-clock none" -- "$cur")
		return 0
		;;
	start:--paths | attach:--paths)
		mapfile -t COMPREPLY < <(compgen -W "errors all off" -- "$cur")
		return 0
		;;
	start:--log-format | log:-f | log:--log-format)
		mapfile -t COMPREPLY < <(compgen -W "csv jsonl chrome perfetto" -- "$cur")
		return 0
		;;
	start:--log-buffer)
		mapfile -t COMPREPLY < <(compgen -W "64K 1M 4M 16M 64M" -- "$cur")
		return 0
		;;
	export:-d | export:--dir)
		compopt -o dirnames 2>/dev/null
		return 0
		;;
	start:-b | start:--backend)
		mapfile -t COMPREPLY < <(compgen -W "auto kmod bpf" -- "$cur")
		return 0
		;;
	start:-n | start:--name | attach:-n | attach:--name | report:--threshold | report:--max-ms | \
		*:--top | diff:--threshold | *:--comm | *:--pid | top:--interval | top:--count)
		return 0
		;;
	diff:--sort)
		mapfile -t COMPREPLY < <(compgen -W "calls time errors" -- "$cur")
		return 0
		;;
	dump:--sort | report:--sort)
		mapfile -t COMPREPLY < <(compgen -W "time calls errors" -- "$cur")
		return 0
		;;
	*:--syscall)
		# Names from the completion's own list: those most asked about.
		mapfile -t COMPREPLY < <(compgen -W "openat open read write close stat newfstatat fstat lstat access readlink execve mmap munmap mprotect brk ioctl wait4 clone clone3 vfork fork futex poll epoll_wait getdents64 unlink rename connect socket sendto recvfrom" -- "$cur")
		return 0
		;;
	report:--by)
		mapfile -t COMPREPLY < <(compgen -W "process" -- "$cur")
		return 0
		;;
	diff:--by)
		# A list: the key after the last comma, among those not given yet.
		local done_=${cur%"${cur##*,}"} keys="syscall process site path amortize all" k
		if [[ -n $done_ ]]; then
			keys=
			for k in syscall process site path amortize; do
				[[ ,$done_ == *,$k,* ]] || keys+=" $k"
			done
		fi
		mapfile -t COMPREPLY < <(compgen -P "$done_" -W "$keys" -- "${cur##*,}")
		return 0
		;;
	start:--log | start:--early-object | log:-o | log:--output | log:-e | log:--early-object | log:-i | log:--input | \
		dump:-o | dump:--output | report:-o | report:--output | report:--input | report:--svg | diff:-o | diff:--output | diff:--input)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
		;;
	report:--table)
		mapfile -t COMPREPLY < <(compgen -W "$(_systracectl_tables "$report")" -- "$cur")
		return 0
		;;
	esac

	local words=
	case $sub in
	help)
		((npos == 0)) && [[ $cur != -* ]] && words=$_systracectl_subcommands
		;;
	status | list | start)
		words=$(_systracectl_options "$sub")
		;;
	attach)
		if [[ $cur != -* ]] && ((npos == 0)); then
			# The pids of running processes.
			words=$(cd /proc 2>/dev/null && compgen -G '[0-9]*')
		else
			words=$(_systracectl_options "$sub")
		fi
		;;
	reset | detach | save | export)
		# Several sessions (export: runs), none twice.
		if [[ $cur != -* ]]; then
			words=$(_systracectl_sessions "$cmd")
		else
			words=$(_systracectl_options "$sub")
		fi
		;;
	dump | log | top)
		if [[ $cur != -* ]] && ((npos == 0)); then
			words=$(_systracectl_sessions "$cmd")
		else
			words=$(_systracectl_options "$sub")
		fi
		;;
	diff)
		# A and B: sessions, unless --input files take their places.
		if [[ $cur != -* ]] && ((npos < 2)); then
			words=$(_systracectl_sessions "$cmd")
		else
			words=$(_systracectl_options "$sub")
		fi
		;;
	report)
		if [[ -z $report ]]; then
			if [[ $cur == -* ]]; then words="-h --help"; else words=$_systracectl_reports; fi
		elif [[ $cur != -* ]] && ((npos == 0)); then
			words=$(_systracectl_sessions "$cmd")
		else
			words=$(_systracectl_options report "$report")
		fi
		;;
	esac
	[[ -n $words ]] && mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
	return 0
}

complete -F _systracectl systracectl
