#!/usr/bin/env bash
# The paths of file calls in the temporal log (start --log, the arg_path
# column) on the BPF backend: paths_log_test (paths_lib.sh),
# progs/pathprobe's calls with --paths errors, all and off, the events
# that carry a path and their paths in order against `strace -f -e
# trace=%file`, in JSONL, CSV, Chrome and Perfetto.
# tags: bpf
# timeout: 240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
. "$(dirname "$0")/paths_lib.sh"
need_bpf
need_cmd protoc protobuf-compiler
need_cmd strace
need_prog pathprobe
on_exit mod_unload_quiet
mod_load

paths_log_test
