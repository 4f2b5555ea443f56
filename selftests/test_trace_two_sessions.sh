#!/usr/bin/env bash
# Two sessions at once, each tracing its own workload while the other
# runs: each one's rows are exactly its own program's numbers.
# tags: trace debug bpf
# timeout: 180
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog sites
on_exit mod_unload_quiet
mod_load

P=$PROGS/sites
go=$T/go
"$SYSTRACECTL" start --counters none --name one -- "$P" 3000 20 11 "$go" >"$T/one.out" 2>"$T/one.err" &
p1=$!
"$SYSTRACECTL" start --counters none --name two -- "$P" 500 700 3 "$go" >"$T/two.out" 2>"$T/two.err" &
p2=$!
on_exit "kill $p1 $p2 2>/dev/null"
# Both programs wait for $go: both sessions are live at once.
for ((i = 0; i < 300; i++)); do
	ctl list
	[ "$(grep -cE ' (one|two) +running ' <<<"$CTL_OUT")" -eq 2 ] && break
	sleep 0.1
done
log "$CTL_OUT"
assert_eq "$(grep -cE ' (one|two) +running ' <<<"$CTL_OUT")" 2 "sessions running at once"
touch "$go"
wait $p1
rc1=$?
wait $p2
rc2=$?
assert_eq "$rc1" 0 "session one: exit status"
assert_eq "$rc2" 0 "session two: exit status"

sid() { sed -n 's/^systracectl: session \([0-9][0-9]*\) .*: tracing .*/\1/p' "$1" | head -n 1; }
s1=$(sid "$T/one.err")
s2=$(sid "$T/two.err")
{ [ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" != "$s2" ]; } || fail "two session ids, got '$s1' and '$s2'"
D=$T/one && mkdir -p "$D" && trace_dump "$s1"
D=$T/two && mkdir -p "$D" && trace_dump "$s2"
off_a=$(elf_offset "$P" site_a_insn) || exit 1
off_b=$(elf_offset "$P" site_b_insn) || exit 1
off_c=$(elf_offset "$P" site_c_insn) || exit 1

pycheck test_trace_two_sessions.py "$P" "$off_a" "$off_b" "$off_c" "$T/one" "3000 20 11" "$T/two" "500 700 3"
