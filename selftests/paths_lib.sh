# shellcheck shell=bash
# What test_bpf_paths*.sh share: the rows of report paths and of strace,
# in one form to compare.
#
# rows CSV             "COUNT<TAB>PATH<TAB>SYSCALL<TAB>ERRNO_NAME" lines, sorted,
#                      of report paths --csv
# strace_rows FILE     the same from strace's output (-f -s 4096 -e trace=%file)

# "COUNT<TAB>PATH<TAB>SYSCALL<TAB>ERRNO_NAME" lines, sorted, of report paths --csv.
rows() {
	"$CSVQ" -f "$1" get count | paste - <("$CSVQ" -f "$1" get path) \
		<("$CSVQ" -f "$1" get syscall) <("$CSVQ" -f "$1" get errno_name) | sort
}

# The same from strace's output (-f -s 4096 -e trace=%file): each call's
# first quoted argument, its errno or ok; a path of more than 255 bytes and
# an unquoted pointer as report paths names them; the root's execve (the
# first line) left out: a session counts from the exec on.
strace_rows() {
	sed -e '1{/^[0-9]* *execve(/d}' "$1" | sed -n -E 's/^([0-9]+ +)?([a-z0-9_]+)\(/\2\t/p' |
		awk -F'\t' '{
			call = $1; rest = $2
			if (match(rest, /^[^"]*"/) && match(rest, /"([^"\\]|\\.)*"/)) {
				path = substr(rest, RSTART + 1, RLENGTH - 2)
				if (length(path) > 255)
					path = "<longer than 255 bytes>"
			} else {
				path = "<unreadable>"
			}
			res = "ok"
			if (match(rest, / = -1 E[A-Z0-9]+ /))
				res = substr(rest, RSTART + 6, RLENGTH - 7)
			print path "\t" call "\t" res
		}' | sort | uniq -c | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print n "\t" $0 }' | sort
}

