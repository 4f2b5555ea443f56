#!/usr/bin/env bash
# The BPF backend's errno slots: a site row keeps 4 errnos, each with its
# exact count, and errno_other; progs/errno_slots makes openat fail with 6
# errnos from one syscall instruction:
#   order  one thread: 10 ENOENT, 1 EFAULT, 7 ENOTDIR, 3 ENAMETOOLONG,
#          20 EISDIR, 5 EINVAL: the first 4 errnos met are kept, listed
#          most frequent first ("ENOENT(2)=10 ENOTDIR(20)=7
#          ENAMETOOLONG(36)=3 EFAULT(14)=1"), the 25 others in errno_other,
#          the more frequent EISDIR included
#   race   20 processes, each with its own site row: 6 threads let go at
#          once, each with another errno first, 60 calls of each errno: 4
#          errnos kept whichever came first, each exactly 60 (a slot is
#          taken once, by one errno), errno_other 120, errors 360. (Two
#          threads taking one free slot at the same instant is a window of
#          a few instructions: the rows check the counts whatever the
#          order, they do not make that collision happen: the unit tests
#          bpf_errno_slot_race_* force it, on the program's own code,
#          user/bpf/errno_slots.h.)
# tags: bpf bpf-quick
# timeout: 180
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_bpf
need_prog errno_slots
on_exit mod_unload_quiet
mod_load

P=$PROGS/errno_slots
off=$(elf_offset "$P" site_open_insn) || exit 1
mkdir -p "$T/files"

# --- order ------------------------------------------------------------------------
trace -- "$P" "$T/files" order
assert_eq "$TRACE_RC" 0 "errno_slots order: exit status (every call failed as it should): $TRACE_ERR"
w=(path="$P" offset="$off")
expect_eq "$(q "$D/sites.csv" count "${w[@]}")" 1 "order: site rows of site_open"
expect_eq "$(q "$D/sites.csv" get calls "${w[@]}")" 46 "order: calls"
expect_eq "$(q "$D/sites.csv" get errors "${w[@]}")" 46 "order: errors"
expect_eq "$(q "$D/sites.csv" get errnos "${w[@]}")" \
	"ENOENT(2)=10 ENOTDIR(20)=7 ENAMETOOLONG(36)=3 EFAULT(14)=1" "order: errnos (the first 4 met)"
expect_eq "$(q "$D/sites.csv" get errno_other "${w[@]}")" 25 "order: errno_other (20 EISDIR, 5 EINVAL)"
# The sum per syscall keeps them: openat's other sites (the loader's) fail
# with ENOENT at most.
s=$(csvq --json pick syscalls errno_other syscall=openat <"$D/dump.json")
expect_eq "$s" 25 "order: dump --syscalls: openat's errno_other"
check_invariants "$D" || fail "order: the invariants"

# --- race -------------------------------------------------------------------------
trace -- "$P" "$T/files" race
assert_eq "$TRACE_RC" 0 "errno_slots race: exit status (every call failed as it should): $TRACE_ERR"
expect_eq "$(q "$D/sites.csv" count "${w[@]}")" 20 "race: site rows of site_open (one per process)"
expect_eq "$(q "$D/sites.csv" count "${w[@]}" calls=360 errors=360 errno_other=120)" 20 \
	"race: rows of 360 calls, 360 errors, errno_other 120"
one='(ENOENT\(2\)|EFAULT\(14\)|ENOTDIR\(20\)|ENAMETOOLONG\(36\)|EISDIR\(21\)|EINVAL\(22\))=60'
n=0
while IFS= read -r e; do
	n=$((n + 1))
	expect_match "$e" "^$one $one $one $one\$" "race: row $n: 4 of the program's errnos, each 60" &&
		expect_eq "$(tr ' ' '\n' <<<"$e" | sed 's/=.*//' | sort -u | wc -l)" 4 "race: row $n: 4 distinct errnos"
done < <(q "$D/sites.csv" get errnos "${w[@]}")
expect_eq "$n" 20 "race: errnos of the 20 rows"
log "race: the errnos kept, and in how many rows: $(q "$D/sites.csv" get errnos "${w[@]}" | sort | uniq -c | tr -s ' \n' ' ')"
check_invariants "$D" || fail "race: the invariants"
