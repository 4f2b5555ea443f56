#!/usr/bin/env bash
# The paths of file calls (start --paths, report paths) on the BPF
# backend: paths_probe_test (paths_lib.sh), progs/pathprobe's known calls
# with --paths errors, all and off, exact rows in text, CSV and JSON (a
# path past the bound and an unreadable pointer named as such) and the
# whole table against `strace -f -e trace=%file`.
# tags: bpf bpf-quick
# timeout: 240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
. "$(dirname "$0")/paths_lib.sh"
need_bpf
need_prog pathprobe
need_cmd strace
on_exit mod_unload_quiet
mod_load

paths_probe_test
