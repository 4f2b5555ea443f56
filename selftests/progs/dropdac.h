/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drop_dac(): CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH leave the calling
 * thread's effective set (raw capget/capset), so that even root gets
 * EACCES from a file's mode bits. Threads made afterwards inherit it.
 * Returns 0, or -1 with errno.
 */
#ifndef SELFTESTS_DROPDAC_H
#define SELFTESTS_DROPDAC_H

#include <linux/capability.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int drop_dac(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_TO_INDEX(CAP_DAC_OVERRIDE)].effective &=
		~CAP_TO_MASK(CAP_DAC_OVERRIDE);
	d[CAP_TO_INDEX(CAP_DAC_READ_SEARCH)].effective &=
		~CAP_TO_MASK(CAP_DAC_READ_SEARCH);
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

#endif
