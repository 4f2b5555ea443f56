#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The temporal log's files, on the host (no tracer needed): logs that
# tests/log_gen writes with exactly known counts are converted to every
# format and back, byte for byte; report phases and timeline read them
# with the generator's exact counts; the readers' peak RSS does not grow
# with the number of events (10x the events, the same rows: the reader
# that held every event grew by hundreds of MB), nor report syscalls' by
# more than 320 bytes per site row; what is not a log is
# refused with its line, exit 6; a log path that is no regular file
# (a device node, a FIFO) is written in place, never replaced; the
# Perfetto trace decodes against Perfetto's field numbers, its strings
# valid UTF-8 whatever the log's bytes, a track per thread; the timeline
# renders to a PNG of the size its lanes give; the status line shows on a
# terminal only, at most 4 times a second.
. "$(dirname "$0")/testlib.sh"

GEN=$TOP/user/tests/log_gen
T=$(mktemp -d /tmp/systrace-test-log.XXXXXX)
trap 'rm -rf "$T"' EXIT

# runrss OUT CMD...: runs CMD (stdout to OUT, stderr to OUT.err); sets rc and rss (KiB).
runrss() {
	local out=$1
	shift
	/usr/bin/time -f '%M' -o "$out.rss" "$@" >"$out" 2>"$out.err"
	rc=$?
	rss=$(tail -n 1 "$out.rss")
}

# gen FILE ARGS...: a log; its counts in FILE.counts ("key value" lines).
gen() {
	local f=$1
	shift
	"$GEN" "$@" -o "$f" 2>"$f.counts" || { not_ok "log_gen $*"; diag <"$f.counts"; done_testing; }
}
count() { awk -v k="$2" '$1 == k { print $2 }' "$1.counts"; }

gen "$T/a.csv" -n 200 -k 40 -j 3
gen "$T/a.jsonl" -n 200 -k 40 -j 3 --jsonl

# Every format and back: CSV -> JSONL -> CSV, the same bytes; .zst too.
"$CTL" log --input "$T/a.csv" -o "$T/b.jsonl" 2>"$T/err" &&
	"$CTL" log --input "$T/b.jsonl" -o "$T/c.csv.zst" 2>>"$T/err" &&
	"$CTL" log --input "$T/c.csv.zst" -o "$T/d.csv" 2>>"$T/err"
eq "CSV -> JSONL -> CSV.zst -> CSV: exit 0" "$?" 0
eq "CSV -> JSONL -> CSV.zst -> CSV: the same bytes" "$(cmp "$T/a.csv" "$T/d.csv" 2>&1)" ""
eq "the generator's JSONL converts to the generator's CSV" \
	"$("$CTL" log --input "$T/a.jsonl" -o "$T/e.csv" 2>/dev/null; cmp "$T/a.csv" "$T/e.csv" 2>&1)" ""
eq "c.csv.zst is a whole zstd stream" "$(zstd -tq "$T/c.csv.zst" 2>&1; echo $?)" 0
eq "no FILE.partial is left" "$(find "$T" -name '*.partial' | wc -l)" 0
eq "log --input says how many events" "$(sed -n 1p "$T/err")" \
	"systracectl: log: $(count "$T/a.csv" events) events from $T/a.csv to $T/b.jsonl (jsonl)"
"$CTL" log --input "$T/a.csv" -o "$T/a.json" 2>/dev/null
eq "the Chrome trace is one JSON document: an X event per syscall, a flow per fork" \
	"$(for ph in X s f; do "$TOP/selftests/csvq" -f "$T/a.json" --json count traceEvents "ph=$ph"; done | paste -sd' ')" \
	"$(count "$T/a.csv" syscalls) 200 200"

# Perfetto: decodes against Perfetto's field numbers, nothing unknown;
# a slice per syscall and per image; every slice ends.
"$CTL" log --input "$T/a.csv" -o "$T/a.pftrace" 2>/dev/null
if command -v protoc >/dev/null; then
	protoc --proto_path="$TOP/user/tests" --decode=perfetto.protos.Trace \
		perfetto_subset.proto <"$T/a.pftrace" >"$T/pf.txt" 2>"$T/pf.err"
	eq "the Perfetto trace decodes as perfetto.protos.Trace" "$?" 0
	eq "the Perfetto trace has no field Perfetto's protos lack" "$(grep -cE '^ *[0-9]+:' "$T/pf.txt")" 0
	eq "the Perfetto trace begins a slice per syscall and per image" \
		"$(grep -c 'type: TYPE_SLICE_BEGIN' "$T/pf.txt")" \
		"$(($(count "$T/a.csv" syscalls) + $(count "$T/a.csv" images)))"
	eq "the Perfetto trace ends every slice it begins" \
		"$(grep -c 'type: TYPE_SLICE_END' "$T/pf.txt")" "$(grep -c 'type: TYPE_SLICE_BEGIN' "$T/pf.txt")"
	eq "the Perfetto trace has a flow from each fork to its child" \
		"$(grep -c 'terminating_flow_ids' "$T/pf.txt")" 200

	# A log with odd names: a comm with a byte that is not UTF-8 (0xff), a
	# control character and a line break; a path and a symbol with bytes
	# that are not UTF-8 either; 4 threads making 2, 3, 4 and 5 calls.
	# protoc warns of a string field that is not valid UTF-8: nothing on
	# stderr; each bad byte is U+FFFD (\357\277\275), as in the JSON.
	comm=$'od\xffd\x01\nx'
	{
		echo "session_id,proc_id,pid,tid,comm,seq,ts_ns,dur_ns,event,abi,nr,syscall,ret,errno,addr,map,path,offset,symbol,phase,early,child_proc_id,child_pid,exit_code,exit_signal"
		echo "5,1,200,200,\"$comm\",,1000,,exec,,,,,,,,/tmp/b"$'\xfe'"in,,,,,,,,"
		ts=1100 seq=0
		for tid in 200 201 202 203; do
			for ((i = 0; i < tid - 198; i++)); do
				echo "5,1,200,$tid,\"$comm\",$seq,$ts,10,syscall,x64,110,getppid,1,,0x401000,file,/tmp/b"$'\xfe'"in,0x1000,s"$'\xff'"ym,program,0,,,,"
				seq=$((seq + 1)) ts=$((ts + 100))
			done
		done
		echo "5,1,200,200,\"$comm\",,$ts,,exit,,,,,,,,,,,,,,,0,"
	} >"$T/odd.csv"
	"$CTL" log --input "$T/odd.csv" -o "$T/odd.pftrace" 2>/dev/null
	protoc --proto_path="$TOP/user/tests" --decode=perfetto.protos.Trace \
		perfetto_subset.proto <"$T/odd.pftrace" >"$T/odd.txt" 2>"$T/odd.err"
	eq "odd names: the trace decodes, protoc says nothing (no invalid UTF-8)" "$? $(cat "$T/odd.err")" "0 "
	odd='"od\357\277\275d\001\nx"'
	eq "odd names: a ThreadDescriptor track per thread (pid, tid), its 2, 3, 4, 5 slices, the comm's bad byte as U+FFFD" \
		"$(awk -f "$TOP/user/tests/perfetto_threads.awk" "$T/odd.txt" | paste -sd,)" \
		"200 200 2 $odd,200 201 3 $odd,200 202 4 $odd,200 203 5 $odd,untracked 0"
	eq "odd names: the process's name, its start (its exec) and its track's name" \
		"$(grep -E '^      (process_name|start_timestamp_ns):|^    name: .* 200"$' "$T/odd.txt" | sed 's/^ *//' | sort -u | paste -sd,)" \
		"name: \"od\\357\\277\\275d\\001\\nx 200\",process_name: $odd,start_timestamp_ns: 1000"
	eq "odd names: the path and the symbol, each bad byte as U+FFFD" \
		"$(grep -cE '^      str: "(/tmp/b\\357\\277\\275in|s\\357\\277\\275ym)"$' "$T/odd.txt")" 2
else
	skip "the Perfetto trace decodes against Perfetto's field numbers" "no protoc (protobuf-compiler)"
fi

# The reports from a log: the generator's exact counts.
out=$("$CTL" report phases --input "$T/a.csv" --csv --table totals 2>&1)
eq "report phases --input: the generator's processes and loader calls" \
	"$(sed -n 2p <<<"$out" | cut -d, -f1,6,8)" \
	"$(count "$T/a.csv" images),$(count "$T/a.csv" loader),$(($(count "$T/a.csv" syscalls) - $(count "$T/a.csv" loader)))"
eq "report phases --input: the generator's site rows" \
	"$("$CTL" report syscalls --input "$T/a.csv" --wide 2>&1 | sed -n 1p)" \
	"report syscalls: session 7 (finished, from $T/a.csv): $(count "$T/a.csv" images) processes, $(count "$T/a.csv" sites) site rows, $(count "$T/a.csv" syscalls) syscalls"

# Memory: 10x the events, the same rows, the same peak RSS (within 8 MiB).
gen "$T/small.csv" -n 500 -k 200 -j 4
gen "$T/big.csv" -n 500 -k 2000 -j 4
for what in "report phases" "report timeline" "report syscalls" "log --input"; do
	read -r -a cmd <<<"$what"
	extra=()
	[ "$what" != "log --input" ] || extra=(-o "$T/out.jsonl")
	[ "$what" = "log --input" ] || cmd+=(--input)
	runrss "$T/rs" "$CTL" "${cmd[@]}" "$T/small.csv" "${extra[@]}"
	rc_s=$rc rss_s=$rss
	runrss "$T/rb" "$CTL" "${cmd[@]}" "$T/big.csv" "${extra[@]}"
	if [ "$rc_s$rc" = 00 ] && [ "$rss" -le $((rss_s + 8192)) ]; then
		ok "$what: peak RSS $rss_s KiB at $(count "$T/small.csv" events) events, $rss KiB at $(count "$T/big.csv" events)"
	else
		not_ok "$what: peak RSS $rss_s KiB at $(count "$T/small.csv" events) events, $rss KiB at $(count "$T/big.csv" events) (exit $rc_s, $rc)"
		diag <"$T/rb.err"
	fi
done
# Memory per site row: 10x the rows, at most 320 bytes more per row (a
# row is 152 bytes; report syscalls kept every process's sums, its sums'
# groups and a copy of them beside the rows: 477 bytes a row).
gen "$T/rows1.csv" -n 500 -k 40 -j 4
gen "$T/rows10.csv" -n 5000 -k 40 -j 4
runrss "$T/rs" "$CTL" report syscalls --input "$T/rows1.csv"
rc_s=$rc rss_s=$rss
runrss "$T/rb" "$CTL" report syscalls --input "$T/rows10.csv"
rows=$(($(count "$T/rows10.csv" sites) - $(count "$T/rows1.csv" sites)))
per_row=$(((rss - rss_s) * 1024 / rows))
if [ "$rc_s$rc" = 00 ] && [ "$per_row" -le 320 ]; then
	ok "report syscalls: $per_row bytes of peak RSS per site row ($rss_s KiB, $rss KiB)"
else
	not_ok "report syscalls: $per_row bytes of peak RSS per site row ($rss_s KiB, $rss KiB; exit $rc_s, $rc)"
	diag <"$T/rb.err"
fi
rm -f "$T/rows1.csv" "$T/rows10.csv"
eq "report phases of the big log: the generator's loader calls" \
	"$("$CTL" report phases --input "$T/big.csv" --csv --table totals 2>/dev/null | sed -n 2p | cut -d, -f6)" \
	"$(count "$T/big.csv" loader)"

# What is not a log: refused with its line and why, exit 6 (docs/cli.md).
printf '' >"$T/empty"
printf '[1,2,3]\n' >"$T/array"
printf '42\n' >"$T/number"
for f in empty array number; do
	"$CTL" log --input "$T/$f" -o "$T/$f.out" 2>"$T/$f.err"
	rc=$?
	case $f in
	empty) why="not a log: the file is empty" ;;
	array) why="not a log: a JSON array (a log is CSV with a header row, or JSONL: one object per line)" ;;
	number) why="not a log: its first line is no log header (a log's names the columns event, proc_id and ts_ns, at least)" ;;
	esac
	eq "log --input of $f: exit 6, the line and why" "$rc $(cat "$T/$f.err")" \
		"6 systracectl: read log: $T/$f:1: $why"
	eq "log --input of $f: no output file" "$(ls "$T/$f.out"* 2>/dev/null)" ""
done

# A compressed log cut short, or damaged: refused, exit 6, no output.
head -c 3000 "$T/c.csv.zst" >"$T/cut.csv.zst"
"$CTL" log --input "$T/cut.csv.zst" -o "$T/cut.out" 2>"$T/cut.err"
eq "log --input of a zstd stream cut short: exit 6, says so, no output" \
	"$? $(cat "$T/cut.err") $(find "$T" -name 'cut.out*' | wc -l)" \
	"6 systracectl: read log: $T/cut.csv.zst: the zstd stream is cut short 0"

# A path that is no regular file is written in place, not replaced.
if mknod "$T/null" c 1 3 2>/dev/null; then
	"$CTL" log --input "$T/a.csv" -o "$T/null" 2>/dev/null
	eq "log -o a character device: exit 0, still that device, no .partial" \
		"$? $(stat -c %F "$T/null") $(find "$T" -name "*.partial" | wc -l)" "0 character special file 0"
else
	skip "log -o a character device is written in place" "mknod is not allowed here"
fi
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.got" &
"$CTL" log --input "$T/a.csv" -o "$T/fifo" 2>/dev/null
wait
eq "log -o a FIFO: the reader gets the log, the FIFO stays" \
	"$(cmp "$T/fifo.got" "$T/a.csv" 2>&1) $(stat -c %F "$T/fifo")" " fifo"

# The timeline: its SVG renders to a PNG as tall as its lanes say.
"$CTL" report timeline --input "$T/a.csv" --svg "$T/t.svg" >/dev/null 2>&1
if command -v rsvg-convert >/dev/null; then
	rsvg-convert "$T/t.svg" -o "$T/t.png"
	# make, and the 3 jobs' children: 4 lanes of 14 px from y 262, then 6 + 30 px.
	eq "the timeline's PNG: 1200 x (262 + 4 x 14 + 36) px, and the colours of loader, program, critical path" \
		"$(python3 "$TOP/user/tests/png_info.py" "$T/t.png" e8a33d 4e79a7 d62728 9467bd)" \
		"1200 354 e8a33d:yes 4e79a7:yes d62728:yes 9467bd:yes"
else
	skip "the timeline's PNG" "no rsvg-convert (librsvg2-bin)"
fi

# The status line: on a terminal only, at most 4 times a second. The
# converter asks whether a line is due every 65,536 events; with
# ST_TEST_PROGRESS_EVERY=2 every second ask is due, whatever the
# clock: an exact count of rewrites ("\r"), plus the one that clears the
# line at the end and the terminal's "\r\n" after the summary, on any
# machine. The clock's own limit is an upper bound.
# TERM=xterm: the line is drawn with the sequences terminfo gives for it.
ST_TEST_PROGRESS_EVERY=2 "$CTL" log --input "$T/big.csv" -o "$T/p.csv" 2>"$T/notty.err"
eq "no status line when stderr is no terminal" "$(grep -c $'\r' "$T/notty.err")" 0
ST_TEST_PROGRESS_EVERY=2 TERM=xterm script -qfec "'$CTL' log --input '$T/big.csv' -o '$T/p.csv'" /dev/null \
	>"$T/tty.out" </dev/null
eq "the status line on a terminal, one due every 2 asks: $(count "$T/big.csv" events) events, rewrites and the last line" \
	"$(tr -cd '\r' <"$T/tty.out" | wc -c) $(tr '\r' '\n' <"$T/tty.out" | grep -c 'converting .*big.csv: .* events, .*/s, [0-9]*%')" \
	"$(($(count "$T/big.csv" events) / 65536 / 2 + 2)) $(($(count "$T/big.csv" events) / 65536 / 2))"
start=$(date +%s.%N)
TERM=xterm script -qfec "'$CTL' log --input '$T/big.csv' -o '$T/p.csv'" /dev/null >"$T/tty.out" </dev/null
end=$(date +%s.%N)
n=$(tr -cd '\r' <"$T/tty.out" | wc -c)
max=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%d", (b - a) * 4 + 2 }')
if [ "$n" -le "$max" ]; then
	ok "the status line on a terminal, by the clock: $n rewrites in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s (at most $max)"
else
	not_ok "the status line on a terminal, by the clock: $n rewrites, at most $max"
	tr '\r' '\n' <"$T/tty.out" | tail -n 5 | diag
fi

done_testing
