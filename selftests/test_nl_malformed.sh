#!/usr/bin/env bash
# Malformed and wrong requests to the "systrace" family (built byte by byte by
# progs/nlbad on a raw socket) each get a clean error: the exact errno and an
# extack message (or the missing attribute's type), the offset of the
# attribute at fault where one is (and none where none is: too many
# sessions), and the socket still works afterwards. Nothing is logged but the kernel's ratelimited
# "netlink: ..." notes.
# tags: foundation debug debug-quick
. "$(dirname "$0")/lib.sh"
need_root
need_prog nlbad
on_exit mod_unload_quiet
mod_load

# case | errno | extack message ("" where the genl core rejects the request
# before the family sees it: it sets no message there) | missing attribute
# type ("-": none) | where given, the offset of the attribute at fault (20:
# the first after the netlink and genl headers, 28: the second). The "invalid attribute length" and "bytes leftover"
# messages come from the strict policy validation the family asks for.
expected='
status_ok|0||-
status_unknown_attr|-22|Unknown attribute type|-
status_unexpected_attr|-22|Unknown attribute type|-
status_pad_attr|-22|Attribute failed policy validation|-
status_trunc_attr|-22|bytes leftover after parsing attributes|-
status_short_attr|-22|bytes leftover after parsing attributes|-
status_trunc_genlhdr|-22||-
status_trunc_datagram|noreply||-
status_reserved|-22|genlmsghdr.reserved field is not 0|-
status_bad_flags|-22|ambiguous or reserved bits set in nlmsg_flags|-
status_dump|-95||-
unknown_cmd|-95||-
unspec_cmd|-95||-
del_u16_id|-22|invalid attribute length|-
del_u64_id|-22|invalid attribute length|-
del_missing_id|-22|systrace: missing session id|8
del_zero_id|-34|integer out of range|-
new_str_pid|-22|invalid attribute length|-
new_name_unterminated|-22|Attribute failed policy validation|-
new_name_too_long|-22|Attribute failed policy validation|-
new_bad_flags|-22|reserved bit set|-
new_pid_zero|-34|integer out of range|-
new_tree_on_exec|-22|systrace: the tree flag goes with neither on-exec nor threads-only|-|28
new_kthread|-22|systrace: the process is a kernel thread|-|20
'
# Cases whose rejection happens in the genl core, before the family: the
# core gives no message, and nothing in the module could add one.
core_only=" status_trunc_genlhdr status_trunc_datagram status_dump unknown_cmd unspec_cmd status_ok "

"$PROGS/nlbad" >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out"
assert_eq "$rc" 0 "nlbad exit status (stderr: $(cat "$T/err"))"

declare -A answer
while IFS= read -r line; do
	answer[${line%% *}]=$line
done <"$T/out"

n=0
while IFS='|' read -r name errno msg miss offs; do
	[ -n "$name" ] || continue
	n=$((n + 1))
	line=${answer[$name]:-}
	[ -n "$line" ] || { _lib_report "$name: no answer line from nlbad"; continue; }
	if [ "$errno" = noreply ]; then
		expect_eq "$line" "$name noreply" "$name: the kernel drops the message silently"
		continue
	fi
	[[ $line =~ ^$name\ errno=(-?[0-9]+)\ [A-Z?0-9]+\ msg=\"(.*)\"\ offs=([-0-9]+)\ miss=([-0-9]+)$ ]] ||
		{ _lib_report "$name: cannot parse '$line'"; continue; }
	expect_eq "${BASH_REMATCH[1]}" "$errno" "$name: errno"
	expect_eq "${BASH_REMATCH[2]}" "$msg" "$name: extack message"
	expect_eq "${BASH_REMATCH[4]}" "$miss" "$name: missing attribute type"
	[ -z "$offs" ] || expect_eq "${BASH_REMATCH[3]}" "$offs" "$name: offset of the attribute at fault"
	if [[ $core_only != *" $name "* ]] && [ -z "${BASH_REMATCH[2]}" ] && [ "${BASH_REMATCH[4]}" = - ]; then
		_lib_report "$name: rejected by the family without an extack message or missing-attribute type"
	fi
done <<<"$expected"
expect_eq "${#answer[@]}" "$n" "answer lines (one per case)"

# The module is still healthy after all of that.
ctl_ok status
mod_unload

# A valid request refused by a limit: no attribute is at fault.
mod_load max_sessions=0
"$PROGS/nlbad" new_init >"$T/out" 2>"$T/err"
assert_eq "$?" 0 "nlbad new_init exit status (stderr: $(cat "$T/err"))"
expect_eq "$(cat "$T/out")" \
	'new_init errno=-28 ENOSPC msg="systrace: too many sessions: reset one, or raise max_sessions" offs=- miss=-' \
	"SESSION_NEW of pid 1 with max_sessions=0"
mod_unload
