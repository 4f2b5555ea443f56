#!/usr/bin/env bash
# The vDSO's clocks are not syscalls unless the vDSO itself makes one:
# coarse clocks and time() never enter the kernel; CLOCK_MONOTONIC and
# gettimeofday enter (from the vDSO's own code) only when the clocksource
# cannot be read from user mode; CPU-time clocks always do.
# tags: trace bpf bpf-quick
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
pycheck test_trace_vdso.py "$D" $N $CPU $hres
