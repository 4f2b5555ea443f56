/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LOG_WRITER_H
#define SYSTRACE_LOG_WRITER_H

/* The log's writers, one per format, behind st_log_writer (log_write.c). */
#include "log/log.h"
#include "out/table.h"

struct st_log_writer;

struct st_log_writer_ops {
	int (*begin)(struct st_log_writer *w);
	int (*event)(struct st_log_writer *w, const struct st_event *ev);
	int (*end)(struct st_log_writer *w);
	void (*free)(struct st_log_writer *w);
};

struct st_log_writer {
	const struct st_log_writer_ops *ops;
	FILE *f;
	int fd;			/* f's, or -1 (a zstd stream): the worker's writes */
	struct st_obuf o;	/* everything goes through it */
	struct st_log_meta meta;
	uint64_t events;
	int werr;		/* the first write error (errno), atomic */
	bool begun;
	void *priv;		/* the format's */
};

extern const struct st_log_writer_ops st_log_chrome_ops;
extern const struct st_log_writer_ops st_log_perfetto_ops;

/* The kernel's convention: -4095..-1 is an error. */
static inline bool st_ret_is_error(int64_t ret)
{
	return ret < 0 && ret >= -4095;
}

/* The exec's executable, an exit's row: what a process event names. */
static inline const char *st_event_exe(const struct st_event *ev)
{
	return ev->kind == ST_EV_EXEC && ev->proc ? ev->proc->exe : NULL;
}

#endif
