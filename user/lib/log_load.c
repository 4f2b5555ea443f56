// SPDX-License-Identifier: GPL-2.0
/* Reading a saved log back (log.h): not yet. */
#include <errno.h>
#include "log.h"

int st_log_load(const char *path, struct st_log *log, struct st_dump *d,
		struct st_err *err)
{
	(void)log;
	(void)d;
	st_err_set(err, ST_ERR_LOCAL, ENOSYS, "read log", "%s: not supported yet", path);
	return -ENOSYS;
}
