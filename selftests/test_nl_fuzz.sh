#!/usr/bin/env bash
# The family survives progs/nlfuzz, a structure-aware fuzzer: mutated
# requests of every command (attributes, nests, lengths, flags, batches)
# interleaved with sessions made on live workloads, dumped whole or
# abandoned mid-dump, and deleted. nlfuzz itself fails when a request that
# must be answered is not, an answer is malformed, the real work fails, or
# a session, a byte or a workload is lost. Afterwards the module still
# works: status shows no session and 0 bytes, a fresh trace of progs/sites
# gives its exact counts, reset --all leaves no session, 0 bytes and the
# probes unhooked, and the module unloads. The runner fails the test on any
# kernel-log report (oops, KASAN, lockdep, ...).
#
# SYSTRACE_FUZZ_COUNT messages: default 4000 (about 30 s in the 6.1 guest),
# 1000 on a kernel with kmemleak (the debug kernel); SYSTRACE_FUZZ_SEED
# replays a run (nlfuzz prints its seed first); SYSTRACE_FUZZ_CHURN=1 lets
# the probes come and go with the sessions (nlfuzz --churn-probes: for
# single-threaded TCG only). scripts/fuzz runs 100,000 messages.
# tags: nl debug
# timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trace_lib.sh"
need_root
need_prog nlfuzz
need_prog sites
on_exit mod_unload_quiet
mod_load

if [ -e /sys/kernel/debug/kmemleak ]; then
	count=${SYSTRACE_FUZZ_COUNT:-1000}
else
	count=${SYSTRACE_FUZZ_COUNT:-4000}
fi
args=(--count "$count")
[ -z "${SYSTRACE_FUZZ_SEED:-}" ] || args+=(--seed "$SYSTRACE_FUZZ_SEED")
# Churning the probes flips static keys hundreds of times: only for
# single-threaded TCG guests (see nlfuzz.c), as scripts/fuzz boots them.
if [ "${SYSTRACE_FUZZ_CHURN:-0}" = 1 ]; then
	args+=(--churn-probes)
fi
log "nlfuzz ${args[*]}"
# Its output streams: a full run takes long.
"$PROGS/nlfuzz" "${args[@]}" 2>"$T/fuzz.err" | tee "$T/fuzz.out"
rc=${PIPESTATUS[0]}
head -n 60 "$T/fuzz.err"
first=$(head -n 1 "$T/fuzz.out")
assert_match "$first" '^nlfuzz: seed [0-9]+$' "nlfuzz's first line"
seed=${first#nlfuzz: seed }
assert_eq "$rc" 0 "nlfuzz's exit status (seed $seed: SYSTRACE_FUZZ_SEED=$seed replays it)"
summary=$(tail -n 1 "$T/fuzz.out")
assert_match "$summary" "^nlfuzz: seed $seed, ([0-9]+) messages \\(([0-9]+) mutated, ([0-9]+) unmutated, ([0-9]+) real work\\)" \
	"nlfuzz's summary line"
msgs=${BASH_REMATCH[1]}
expect_eq "$((BASH_REMATCH[2] + BASH_REMATCH[3] + BASH_REMATCH[4]))" "$msgs" \
	"mutated + unmutated + real work messages"
# Past the count: the first STATUS and the anchor session, the last
# iteration (at most 4 requests, or 7 of real work: a session dump, 3
# deletions, a new anchor after a deletion and a new session) and the end
# (a session dump, up to 16 deletions, another dump, a STATUS).
expect_ge "$msgs" "$count" "messages sent"
expect_le "$msgs" "$((count + 2 + 7 + 19))" "messages sent"
if [ "$count" -ge 1000 ]; then
	# Every kind of answer came: acks, rejections by the policy, by the
	# genl core and by the module itself.
	for e in 0 EINVAL ERANGE EOPNOTSUPP ENOENT; do
		expect_match "$summary" " $e x[1-9][0-9]*" "answers with errno $e"
	done
	expect_match "$summary" "sessions made [1-9][0-9]* " "sessions made by the real work"
fi

# The module still works, and nlfuzz left nothing behind.
ctl_ok status --json
expect_eq "$(csvq --json len sessions <<<"$CTL_OUT")" 0 "sessions after nlfuzz"
expect_eq "$(csvq --json get mem_bytes <<<"$CTL_OUT")" 0 "status mem_bytes after nlfuzz"

P=$PROGS/sites
off_a=$(elf_offset "$P" site_a_insn) || exit 1
off_b=$(elf_offset "$P" site_b_insn) || exit 1
off_c=$(elf_offset "$P" site_c_insn) || exit 1
trace -- "$P" 300 40 11
assert_eq "$TRACE_RC" 0 "sites 300 40 11 after the fuzzing: exit status"
pycheck test_nl_fuzz.py "$D" "$P" "$off_a" "$off_b" "$off_c"

ctl_ok reset --all
ctl_ok status --json
expect_eq "$(csvq --json len sessions <<<"$CTL_OUT")" 0 "sessions after reset --all"
expect_eq "$(csvq --json get mem_bytes <<<"$CTL_OUT")" 0 "status mem_bytes after reset --all"
# The probes are unhooked by a work item soon after the last session goes.
for ((i = 0; i < 100; i++)); do
	ctl_ok status --json
	[ "$(csvq --json get probes_active <<<"$CTL_OUT")" = false ] && break
	sleep 0.1
done
expect_eq "$(csvq --json get probes_active <<<"$CTL_OUT")" false "probes_active after reset --all"
# A mutated pid of 1 may have made a session on the guest's init with a
# software counter: the work that starts its counter waits in init, which
# sleeps in sigsuspend, and holds a module reference until it runs
# (docs/semantics.md, Memory). SIGCHLD wakes init (its shell goes back to
# waiting) and the work runs; then the module unloads.
if [ "$(cat /sys/module/systrace/refcnt 2>/dev/null)" != 0 ]; then
	log "module references after reset --all: $(cat /sys/module/systrace/refcnt); waking pid 1"
	kill -CHLD 1 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		[ "$(cat /sys/module/systrace/refcnt 2>/dev/null)" = 0 ] && break
		sleep 0.1
	done
fi
mod_unload
