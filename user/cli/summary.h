/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ST_CLI_SUMMARY_H
#define ST_CLI_SUMMARY_H

#include <stdint.h>

struct st_backend;

/*
 * Print session @id's summary and the totals check's verdict on stderr.
 * Errors are printed, not returned: the summary is a courtesy, the run is
 * saved apart.
 */
void st_start_summary(struct st_backend *be, uint32_t id);

#endif
