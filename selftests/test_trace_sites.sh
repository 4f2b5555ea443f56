#!/usr/bin/env bash
# Per-site counts: 1000 + 250 getppid from two syscall instructions and 37
# failing close(-1) from a third: exact calls and errors per site, each site
# at the file offset of its instruction (nm + readelf), in call order.
# tags: trace debug bpf
# timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog sites
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
off_a=$(elf_offset "$P" site_a_insn) || exit 1
off_b=$(elf_offset "$P" site_b_insn) || exit 1
off_c=$(elf_offset "$P" site_c_insn) || exit 1
log "syscall instructions at file offsets: a $off_a, b $off_b, c $off_c"

trace -- "$P" 1000 250 37
assert_eq "$TRACE_RC" 0 "systracectl start's exit status (the program's)"
first=$D
trace -- "$P" 7 3 2
assert_eq "$TRACE_RC" 0 "exit status (7 3 2)"

pycheck test_trace_sites.py "$first" "$D" "$P" "$off_a" "$off_b" "$off_c" "$(stat -L -c %i "$P")"
