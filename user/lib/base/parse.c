// SPDX-License-Identifier: GPL-2.0
/* Numbers from the command line and the environment (parse.h). */
#include <errno.h>
#include <stdlib.h>
#include "base/parse.h"

int st_parse_u64(const char *s, uint64_t *out, uint64_t min)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}
