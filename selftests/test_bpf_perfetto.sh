#!/usr/bin/env bash
# The Perfetto trace of a real run (start --log x.pftrace, the BPF
# backend), decoded by protoc against user/tests/perfetto_subset.proto
# (Perfetto's field numbers and types):
#   names    a program whose name holds a byte that is not UTF-8 (0xff),
#            a control character and a line break (its comm and argv[0]):
#            protoc finds no invalid UTF-8 (it prints an error for each
#            string field that is not), and the comm's bad byte is U+FFFD,
#            as the JSON writers give it
#   threads  threads 4 500 (selftests/progs/threads.c: 4 threads, 500
#            getppid() each, none in the main thread): 5 ThreadDescriptor
#            tracks (pid: the process's; tids: the main thread's, the
#            pid, and 4 others), with 0, 500, 500, 500, 500 getppid
#            slices, as strace -f counts them per thread in the same
#            program; no slice on a track no descriptor names
#   start    the process's ProcessDescriptor has its start
#            (start_timestamp_ns), its exec's time
# tags: bpf
# timeout: 120
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf_lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_bpf
need_prog threads
need_cmd protoc protobuf-compiler
need_cmd strace
on_exit mod_unload_quiet
mod_load

# The C locale: a UTF-8 one's sed (trace's, reading the session id from
# start's "tracing NAME" line) stops its '.' at the byte that is not UTF-8.
export LC_ALL=C
odd=$'t\xffh\x01r\nd'
shown='"t\357\277\275h\001r\nd"'	# as protoc prints the comm made valid
mkdir -p "$T/bin"
ln -s "$PROGS/threads" "$T/bin/$odd"

# --- strace: the program's own counts, per thread ---------------------------
strace -f -qq -e trace=getppid -o "$T/strace.out" "$T/bin/$odd" 4 500 ||
	fail "strace of threads: exit $?"
# (A call's line, or its "resumed" line when threads interleave, has its result, " = ".)
expect_eq "$(awk '/ = / { n[$1]++ } END { for (t in n) print n[t] }' "$T/strace.out" | sort -n | paste -sd' ')" \
	"500 500 500 500" "strace -f: getppid() per thread"

# --- the trace -----------------------------------------------------------------
trace --log "$T/t.pftrace" -- "$T/bin/$odd" 4 500
assert_eq "$TRACE_RC" 0 "start --log t.pftrace -- threads 4 500: exit status"
protoc --proto_path="$TOP/user/tests" --decode=perfetto.protos.Trace \
	perfetto_subset.proto <"$T/t.pftrace" >"$T/t.txt" 2>"$T/t.err"
expect_eq "$?" 0 "protoc --decode of the trace: exit status"
expect_eq "$(cat "$T/t.err")" "" "protoc's errors (a string field that is not valid UTF-8)"
expect_eq "$(grep -cE '^ *[0-9]+:' "$T/t.txt")" 0 "fields perfetto_subset.proto lacks"

awk -v want=getppid -f "$TOP/user/tests/perfetto_threads.awk" "$T/t.txt" >"$T/threads"
grep -F " $shown" "$T/threads" | cut -d' ' -f1-3 >"$T/ours"
pid=$(awk '$1 == $2 { print $1 }' "$T/ours")
expect_eq "$(wc -l <"$T/ours") $(cut -d' ' -f2 "$T/ours" | sort -u | wc -l)" "5 5" \
	"ThreadDescriptor tracks named by the odd comm, and distinct tids"
expect_eq "$(cut -d' ' -f1 "$T/ours" | sort -u | paste -sd' ')" "$pid" "each thread's pid: the process's"
expect_eq "$(awk -v p="$pid" '$2 == p { print $3 }' "$T/ours") $(awk -v p="$pid" '$2 != p { print $3 }' "$T/ours" | paste -sd' ')" \
	"0 500 500 500 500" "getppid slices: the main thread's, then the other 4 threads' (strace: 500 each)"
expect_eq "$(tail -n 1 "$T/threads")" "untracked 0" "slices on a track no descriptor names"

# The process: its name, and its start, its exec's time (the exec instant on its main thread).
desc=$(awk -v p="$pid" '/^  track_descriptor \{/ { b = "" } { b = b $0 "\n" }
	/^      pid: / && $2 == p { hit = 1 } /^  \}/ && hit && b ~ /process \{/ { printf "%s", b; exit }' "$T/t.txt")
expect_contains "$desc" "process_name: $shown" "the process's name, its bad byte as U+FFFD"
expect_match "$desc" "start_timestamp_ns: [1-9][0-9]*" "the process's start_timestamp_ns"
