#!/usr/bin/env bash
# The paths of a real build's failed file calls (report paths, the
# module's default --paths errors) against strace's, as
# test_bpf_paths_build.sh on BPF: paths_build_test (paths_lib.sh), a
# 13-file `make -j2` whose top 20 (path, syscall, errno) counts and whole
# table equal `strace -ff -e trace=%file`'s.
# tags: trace full
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
. "$(dirname "$0")/paths_lib.sh"
need_root
need_cmd strace
need_cmd make
need_cmd cc
on_exit mod_unload_quiet
mod_load

paths_build_test
