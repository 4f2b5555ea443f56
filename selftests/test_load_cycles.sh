#!/usr/bin/env bash
# 100 load/status/unload cycles (20 on a KASAN kernel) leave no kernel
# warning (the runner scans the log) and no growth of the memory held in
# kmalloc slabs.
# tags: foundation debug full
# timeout: 900
. "$(dirname "$0")/lib.sh"
need_root
on_exit mod_unload_quiet

# KASAN's quarantine keeps freed objects allocated for a while: there the
# slab sums mean nothing, kmemleak (selftests/run -k) looks for leaks, and 20
# cycles are enough for lockdep and the other checkers (a cycle takes about
# 5 s on that kernel).
kasan=0
on_kasan && kasan=1
if [ $kasan = 1 ]; then
	cycles=${SELFTEST_CYCLES:-20}
else
	cycles=${SELFTEST_CYCLES:-100}
fi

# Tolerance: the bytes of active kmalloc-* objects (/proc/slabinfo, after
# drop_caches) moved by +16320, -12160 and 0 bytes over three runs of 100
# cycles of this loop on 6.1 (per-CPU slabs, 9p dentry names, netlink and
# exec buffers that come and go). 64 KiB is four times that noise and catches
# any leak of 656 bytes or more per cycle; smaller leaks are kmemleak's job
# (the debug tier). The whole-slab sum (dentries, inodes: +-140 KB) and
# MemAvailable are printed for the record only.
tolerance=65536

cycle() {
	mod_load
	ctl_ok status
	assert_line "$CTL_OUT" '^abi version: +1$' "status in cycle $1"
	mod_unload
}

# Warm-up: the first cycles fill caches (module loader, sysfs, the 9p
# dentries of systracectl and its libraries) that later cycles reuse.
for i in 1 2 3; do cycle "warm-up $i"; done
settle_memory
kmalloc0=$(kmalloc_bytes)
slab0=$(slab_bytes)
avail0=$(meminfo MemAvailable)
start=$SECONDS
for ((i = 1; i <= cycles; i++)); do
	cycle "$i"
done
secs=$((SECONDS - start))
settle_memory
kmalloc1=$(kmalloc_bytes)
slab1=$(slab_bytes)
avail1=$(meminfo MemAvailable)
log "$cycles cycles in ${secs}s"
log "kmalloc bytes in use: $kmalloc0 -> $kmalloc1 ($((kmalloc1 - kmalloc0)))"
log "all slab bytes in use: $slab0 -> $slab1 ($((slab1 - slab0)))"
log "MemAvailable kB: $avail0 -> $avail1 ($((avail1 - avail0)))"

if [ $kasan = 1 ]; then
	log "KASAN kernel: the slab growth is not checked here (kmemleak is)"
else
	assert_le $((kmalloc1 - kmalloc0)) $tolerance "kmalloc slab growth over $cycles cycles, bytes"
fi
