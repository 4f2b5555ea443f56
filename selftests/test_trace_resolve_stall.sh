#!/usr/bin/env bash
# Deferred work never waits on the traced program's mmap lock (issue 34,
# B): with force_late_resolve=Y every new site is left to its thread's
# deferred work. fusestall's target, traced from its exec, holds its own
# mmap lock (a FUSE fault that its server never answers, an mmap() queued
# behind it); its main thread then makes W getppid at worker_site, a new
# site, and says "worked". The work finds the lock taken, and tries again
# at a later syscall exit instead of sleeping (c3ccaa5 slept in
# mmap_read_lock_killable: no "worked" until the server died). Once the
# server is killed, the target runs on and exits 5: its row has exactly W
# calls at worker_site, resolved to the file and offset after all, and K
# at stall_site.
# tags: trace debug
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog fusestall
[ -c /dev/fuse ] || modprobe fuse 2>/dev/null
[ -c /dev/fuse ] || skip "no FUSE in this kernel (/dev/fuse)"
on_exit mod_unload_quiet
mod_load force_late_resolve=Y

P=$PROGS/fusestall
K=7 W=13
mkdir -p "$T/mnt"
"$SYSTRACECTL" start --counters none --name stall -- "$P" "$T/mnt" $K $W \
	>"$T/start.out" 2>"$T/start.err" &
sp=$!
on_exit "umount -l $T/mnt 2>/dev/null"
on_exit "kill -9 $sp 2>/dev/null"
SRV="" TGT=""
for ((i = 0; i < 600; i++)); do
	read -r _ SRV TGT < <(grep '^held ' "$T/start.out")
	[ -n "$TGT" ] && break
	sleep 0.1
done
[ -n "$TGT" ] || fail "fusestall never held its target's mmap lock: $(cat "$T/start.err")"
on_exit "kill -9 $SRV 2>/dev/null"
log "server $SRV, target $TGT: the target holds its mmap lock"
for ((i = 0; i < 200; i++)); do
	grep -q '^worked$' "$T/start.out" && break
	sleep 0.1
done
expect_eq "$(grep -c '^worked$' "$T/start.out")" 1 \
	"\"worked\" within 20 s: $W calls at a new site while the mmap lock is held"
[ -d "/proc/$TGT" ] && log "target's threads: $(cat /proc/"$TGT"/task/*/stat 2>/dev/null | awk '{print $1, $3}' | paste -sd' ' -)"
kill -9 "$SRV"
for ((i = 0; i < 300; i++)); do
	kill -0 "$sp" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$sp" 2>/dev/null && fail "systracectl start still runs 30 s after the server was killed"
wait "$sp" 2>/dev/null	# killed by SIGKILL as its CMD was
log "systracectl start: exit $?: $(cat "$T/start.err")"
sid=$(sed -n 's/^systracectl: session \([0-9][0-9]*\) .*: tracing .*/\1/p' "$T/start.err" | head -n 1)
[ -n "$sid" ] || fail "no session id: $(cat "$T/start.err")"
D=$T/dump
mkdir -p "$D"
trace_dump "$sid"
pycheck test_trace_resolve_stall.py "$D" "$P" "$TGT" $K $W \
	"$(elf_offset "$P" stall_site_insn)" "$(elf_offset "$P" worker_site_insn)"
