/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LOG_READ_H
#define SYSTRACE_LOG_READ_H

/* The log's columns, for its readers (log_read.c, log_load.c). */
#include "log/log.h"

enum st_log_col {
	C_SESSION_ID, C_PROC_ID, C_PID, C_TID, C_COMM, C_SEQ, C_TS_NS, C_DUR_NS,
	C_EVENT, C_ABI, C_NR, C_SYSCALL, C_RET, C_ERRNO, C_ADDR, C_MAP, C_PATH,
	C_OFFSET, C_SYMBOL, C_PHASE, C_EARLY, C_CHILD_PROC_ID, C_CHILD_PID,
	C_EXIT_CODE, C_EXIT_SIGNAL, C_ARGV, C_ARGV_TRUNCATED, C_ARG_PATH, C_NCOLS
};

const char *st_log_col_name(enum st_log_col c);
/* Records of a kept spool cut short at its end: they are not read. */
uint64_t st_log_src_cut(const struct st_log_src *s);

#endif
