#!/usr/bin/env bash
# 100 load/status/unload cycles leave no kernel warning and no slab growth.
# tags: foundation debug
# timeout: 900
. "$(dirname "$0")/lib.sh"
need_root
on_exit mod_unload_quiet

cycles=${SELFTEST_CYCLES:-100}

cycle() {
	mod_load
	ctl_ok status
	assert_line "$CTL_OUT" '^abi version: +1$' "status in cycle $1"
	mod_unload
}

# Warm up: the first cycles fill caches (module loader, sysfs, 9p dentries
# of systracectl and its libraries) that later cycles reuse.
for i in 1 2 3; do cycle "warm-up $i"; done
settle_memory
slab0=$(slab_bytes)
avail0=$(meminfo MemAvailable)
start=$(date +%s)
for ((i = 1; i <= cycles; i++)); do
	cycle "$i"
done
secs=$(($(date +%s) - start))
settle_memory
slab1=$(slab_bytes)
avail1=$(meminfo MemAvailable)
log "$cycles cycles in ${secs}s; slab bytes in use $slab0 -> $slab1 ($((slab1 - slab0))); MemAvailable kB $avail0 -> $avail1 ($((avail1 - avail0)))"
