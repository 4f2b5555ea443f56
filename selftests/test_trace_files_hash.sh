#!/usr/bin/env bash
# The session's table of mapped files cannot be aimed: memfds 2000 maps
# 2000 memfds that all fall in one bucket of the unkeyed 64-bucket hash the
# module used up to 4853894, and calls getpid once from each. Exact rows:
# 2000 file sites in 2000 distinct memfd files, one call each. The table
# (debugfs systrace/files) holds exactly the files the dump names, in 1024
# buckets (it doubles past two files a bucket on average: 2003 files), and
# its longest chain is at most 16 (the unkeyed hash: all 2000 in one). With
# a random seed, 2003 keys in 1024 buckets make a chain of 16 or more with
# a probability under 1e-5.
# tags: trace debug
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog memfds
on_exit mod_unload_quiet
mod_load
F=/sys/kernel/debug/systrace/files
[ -r "$F" ] || skip "no $F (a kernel without debugfs)"

N=2000
trace -- "$PROGS/memfds" "$N"
assert_eq "$TRACE_RC" 0 "memfds: exit status ($TRACE_ERR)"
log "$TRACE_OUT"
expect_eq "$(q "$D/sites.csv" count path~^/memfd:st map=file syscall=getpid)" "$N" "file sites in memfds"
expect_eq "$(q "$D/sites.csv" sum calls path~^/memfd:st)" "$N" "calls from the memfds"
# The files the table must hold: every distinct (path, file) of a site,
# and the executable's. The memfds share one path: count them by their
# sites, one each.
other=$(q "$D/sites.csv" get path map=file | grep -v '^/memfd:st' | sort -u | wc -l)
exe=$(q "$D/procs.csv" get exe)
q "$D/sites.csv" get path map=file | grep -qxF "$exe" || other=$((other + 1))
files=$((N + other))
log "files: $N memfds and $other others"
line=$(awk -v id="$SID" '$1 == id' "$F")
log "$F: $line"
read -r _ tfiles buckets longest <<<"$line"
expect_eq "$tfiles" "$files" "files in the table"
expect_eq "$buckets" 1024 "buckets of the table"
expect_le "$longest" 16 "the table's longest chain"
ctl_ok reset "$SID"
