#!/usr/bin/env bash
# A caller without CAP_NET_ADMIN gets EPERM from the kernel, and
# `systracectl status` run by nobody says "permission denied" and exits 3.
# tags: foundation
. "$(dirname "$0")/lib.sh"
need_root
need_cmd setpriv
on_exit mod_unload_quiet
mod_load

as_nobody "$SYSTRACECTL" status
expect_eq "$CTL_RC" 3 "status as nobody: exit code (3: permission denied)"
expect_contains "$CTL_ERR" "permission denied" "status as nobody: stderr"
expect_contains "$CTL_ERR" "root" "status as nobody: stderr says to run as root"
expect_eq "$CTL_OUT" "" "status as nobody: stdout"

# The kernel itself refuses (GENL_ADMIN_PERM), not only the tool.
as_nobody "$PROGS/nlbad" status_ok
expect_eq "$CTL_RC" 0 "nlbad as nobody: exit code"
expect_match "$CTL_OUT" '^status_ok errno=-1 EPERM ' "nlbad STATUS as nobody"

# And root still gets through afterwards.
ctl_ok status
