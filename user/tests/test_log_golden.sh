#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every output of the log's readers and writers, byte for byte: logs of
# known content (tests/log_gen's, fixed sizes, CSV and JSONL; and three
# written here with what a real log may hold: quoted CSV fields with commas,
# quotes and a line break, UTF-8, errors, a signal, every map and abi, ids
# as names or numbers, hex numbers, reordered and unknown columns, CRLF,
# JSON escapes and surrogate pairs) are converted to every format (csv,
# jsonl, chrome, perfetto; csv.zst and jsonl.zst decompressed) and read by
# every report that takes a log (text, --json, --csv, the timeline's SVG).
# Each output's SHA-256 must be the one in tests/expected/log-golden.sums:
# a change that makes the readers faster must not change a byte of what
# they write. When an output changes on purpose (a new column), rewrite
# the sums with GOLDEN_UPDATE=1 bash tests/test_log_golden.sh (that run
# fails, always: see below), check the next run passes, and say why in the
# commit.
. "$(dirname "$0")/testlib.sh"

GEN=$TOP/user/tests/log_gen
SUMS=$TOP/user/tests/expected/log-golden.sums
T=$(mktemp -d /tmp/systrace-test-golden.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

cat >edge.csv <<'EOF'
session_id,proc_id,pid,tid,comm,seq,ts_ns,dur_ns,event,abi,nr,syscall,ret,errno,addr,map,path,offset,symbol,phase,early,child_proc_id,child_pid,exit_code,exit_signal
3,1,100,100,sh,,1000,,exec,,,,,,,,"/bin/my ""quoted"", sh",,,,,,,,
3,1,100,100,sh,0,1100,50,syscall,x64,12,brk,0,,0x7f0000001010,file,/lib/ld-linux.so.2,0x1010,_dl_start,loader,1,,,,
3,1,100,100,sh,1,1200,70,syscall,x64,2,open,-2,2,0x7f0000001020,file,/lib/ld-linux.so.2,0x1020,"foo(int, char)",loader,0,,,,
3,1,100,100,sh,2,1300,30,syscall,x64,257,openat,-13,13,0x7f0000101020,file,"/lib/libc ""x"".so",0x2020,"open\at",program,0,,,,
3,1,100,100,sh,3,1400,30,syscall,x64,257,openat,-13,13,0x7f0000101020,file,"/lib/libc ""x"".so",0x2020,"open\at",program,0,,,,
3,1,100,100,sh,4,1450,20,syscall,x64,0,read,-1,1,0x7ffff000,anon,,,,program,0,,,,
3,1,100,100,sh,5,1460,20,syscall,ia32,20,getpid,100,,0xffffe400,vdso,[vdso],0x400,__kernel_vsyscall,program,0,,,,
3,1,100,100,sh,6,1470,25,syscall,x64,39,getpid,100,,0x0,unknown,,,,,,,,,
3,1,100,100,sh,7,1480,25,syscall,x64,60,exit,-4096,,0xffffffffff600000,vsyscall,,0x0,,program,0,,,,
3,1,100,100,sh,,1500,,fork,,,,,,,,,,,,,2,101,,
3,2,101,101,"sh, child",0,1600,10,syscall,x32,1073741863,getpid,101,,0x7f0000101030,file,"/lib/libc ""x"".so",0x2030,getpid,,,,,,
3,2,101,101,sh,,1700,,exec,,,,,,,,/usr/bin/é✓ tool,,,,,,,,
3,3,101,102,tool,0,1800,15,syscall,x64,1,write,-9223372036854775808,,0x7f0000101040,file,/usr/lib/é✓.so,0xdeadbeef,"sym ""q""",program,0,,,,
3,3,101,101,tool,1,1900,15,syscall,x64,1,write,5,,0x7f0000101040,file,/usr/lib/é✓.so,0xdeadbeef,"sym ""q""",program,0,,,,
3,3,101,101,tool,,2000,,exit,,,,,,,,,,,,,,,,9
3,4,105,105,orphan,0,2100,5,syscall,x64,1,write,-4095,4095,0x1,file,"line
break",0x0,,program,0,,,,
3,1,100,100,sh,8,2200,40,syscall,x64,61,wait4,101,,0x7f0000101050,file,"/lib/libc ""x"".so",0x2050,wait4,program,0,,,,
3,1,100,100,sh,,2300,,exit,,,,,,,,,,,,,,,2,
EOF
cat >odd.jsonl <<'EOF'
{ "event" : "exec", "proc_id": 10, "ts_ns": 5000, "pid": 7, "comm": "a\u00e9\ud83d\ude00", "path": "/x\/y\\z\t", "session_id": 9 }
{"ts_ns":5100,"proc_id":10,"event":"syscall","pid":7,"tid":7,"seq":"0x0","dur_ns":"0x10","abi":"0","nr":"1","ret":-5,"addr":"0xABC","map":"1","path":"/lib/a.so","offset":"0x100","symbol":null,"phase":"loader","early":"1"}
{"ts_ns":5200,"proc_id":10,"event":"syscall","pid":7,"tid":8,"seq":1,"dur_ns":3,"abi":"x64","nr":0,"ret":3,"addr":"0xabc","map":"file","path":"/lib/a.so","offset":"0x100","phase":"program","early":false}

{"event":"exit","proc_id":10,"ts_ns":5300,"pid":7,"exit_code":1}
EOF
printf 'ts_ns,event,proc_id,pid,junk,comm,nr,seq,abi,addr,map,path,ret\r\n100,exec,1,5,zz,"c",,,,,,"/p, q",\r\n200,syscall,1,5,zz,c,0x3,0,x64,0x10,vdso,,-0\r\n\r\n300,exit,1,5,,,,,,,,,\r\n' >crlf.csv
"$GEN" -n 300 -k 50 -j 3 -o a.csv 2>/dev/null
"$GEN" -n 40 -k 9 -j 2 --jsonl -o b.jsonl 2>/dev/null

# Each output with its command's exit status (rc=N) at its end.
for in in a.csv b.jsonl edge.csv odd.jsonl crlf.csv; do
	"$CTL" log --input $in -o $in.zst.csv.zst 2>/dev/null
	zstd -dcq $in.zst.csv.zst >$in.zst.csv
	for fmt in csv jsonl chrome perfetto; do
		"$CTL" log --input $in -f $fmt -o $in.$fmt 2>/dev/null
		echo "rc=$?" >>$in.$fmt
	done
	"$CTL" log --input $in -o $in.jsonl.zst 2>/dev/null
	zstd -dcq $in.jsonl.zst >$in.zjsonl
	"$CTL" log --input $in.jsonl.zst -o $in.back.csv 2>/dev/null
	for r in phases timeline syscalls errors; do
		"$CTL" report $r --input $in >$in.$r.txt 2>&1
		echo "rc=$?" >>$in.$r.txt
		"$CTL" report $r --input $in --json >$in.$r.json 2>&1
		echo "rc=$?" >>$in.$r.json
		"$CTL" report $r --input $in --csv >$in.$r.csvr 2>&1
		echo "rc=$?" >>$in.$r.csvr
	done
	"$CTL" report timeline --input $in --svg $in.svg >/dev/null 2>&1
	"$CTL" report phases --input $in.zst.csv.zst >$in.zphases.txt 2>&1
done
sha256sum a.csv?* b.jsonl?* edge.csv?* odd.jsonl?* crlf.csv?* | grep -v '\.zst$' |
	awk '{ print $2, $1 }' >got.sums

# GOLDEN_UPDATE never passes: the outputs are still checked against the
# sums (so a change shows what it changed), the new sums are written, and
# the test fails; a run that a stray GOLDEN_UPDATE in the environment would
# have waved through fails too. Under CI nothing is rewritten.
if [ -n "${GOLDEN_UPDATE:-}" ] && [ -n "${CI:-}" ] && [ "$CI" != false ] && [ "$CI" != 0 ]; then
	not_ok "GOLDEN_UPDATE is set under CI: the sums are never rewritten there"
	done_testing
fi
eq "as many outputs as tests/expected/log-golden.sums names" "$(wc -l <got.sums)" "$(wc -l <"$SUMS")"
while read -r name want; do
	got=$(awk -v n="$name" '$1 == n { print $2 }' got.sums)
	eq "$name: the same bytes" "$got" "$want"
	[ "$got" = "$want" ] || [ ! -f "$name" ] || head -c 600 "$name" | diag
done <"$SUMS"
if [ -n "${GOLDEN_UPDATE:-}" ]; then
	cp got.sums "$SUMS"
	not_ok "GOLDEN_UPDATE: the sums are rewritten to $SUMS; review them (git diff) and run again without it"
fi
done_testing
