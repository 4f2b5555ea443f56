#!/usr/bin/env bash
# The vDSO's clocks are not syscalls unless the vDSO itself makes one:
# coarse clocks and time() never enter the kernel; CLOCK_MONOTONIC and
# gettimeofday enter (from the vDSO's own code) only when the clocksource
# cannot be read from user mode; CPU-time clocks always do.
# tags: trace
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog vdso
on_exit mod_unload_quiet
mod_load

N=1000 CPU=10
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
case $cs in
tsc | kvm-clock | hyperv_clocksource_tsc_page) hres=0 ;; # the vDSO reads it itself
*) hres=$N ;; # hpet, acpi_pm (TCG: TSC unstable): the vDSO falls back to the syscall
esac
log "clocksource $cs: CLOCK_MONOTONIC and gettimeofday make $hres syscalls each"

trace -- "$PROGS/vdso" $N $CPU
assert_eq "$TRACE_RC" 0 "exit status"
pycheck "$D" $N $CPU $hres <<'EOF'
d, n, cpu, hres = ARGS[0], int(ARGS[1]), int(ARGS[2]), int(ARGS[3])
t = Trace(d)
eq(t.calls(nr=201), 0, "time calls")
# 2 x N coarse clock_gettime calls are not among these.
eq(t.calls(nr=228), hres + cpu, "clock_gettime calls")
eq(t.calls(nr=96), hres, "gettimeofday calls")
eq([s["map"] for s in t.sites if s["nr"] in (96, 228) and s["map"] != "vdso"], [],
   "clock_gettime and gettimeofday rows outside the vDSO")
for s in t.sites_where(map="vdso"):
    eq(s["offset"], s["addr"], "offset of vDSO site %s (its address)" % s["addr"])
    eq(s["path"], None, "path of vDSO site %s" % s["addr"])
EOF
