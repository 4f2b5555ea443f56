/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_BACKEND_H
#define SYSTRACE_BACKEND_H

/*
 * What the CLI asks of the tracer: its status, sessions, and a session's
 * rows. A backend fills the plain structs of model.h; the CLI calls these
 * functions and never knows which backend answers: the kernel module's
 * (backend_kmod.c, on top of nl.c) or the BPF programs' (backend_bpf.c,
 * sessions in the pin tree /sys/fs/bpf/systrace/). Every function returns
 * 0 or -errno and, on failure, fills *err.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/err.h"
#include "model/model.h"

struct st_session_req {
	uint32_t pid;
	const char *name;	/* NULL: none */
	uint32_t flags;		/* SYSTRACE_SESSION_F_* */
	uint32_t counters;	/* enum systrace_counters */
	uint32_t log_buffer;	/* temporal log bytes per CPU; 0: no log */
	uint32_t paths;		/* enum st_paths_mode: which file calls' paths */
};

struct st_log;

struct st_backend_ops {
	int (*open)(void **priv, struct st_err *err);
	void (*close)(void *priv);
	int (*status)(void *priv, struct st_status *st, struct st_err *err);
	int (*session_new)(void *priv, const struct st_session_req *req,
			   struct st_session_row *out, struct st_err *err);
	int (*session_del)(void *priv, uint32_t id, struct st_err *err);
	int (*session_detach)(void *priv, uint32_t id, struct st_err *err);
	int (*session_get)(void *priv, uint32_t id, struct st_session_row *out,
			   struct st_err *err);
	int (*session_list)(void *priv, struct st_session_row **out, size_t *n,
			    bool *interrupted, struct st_err *err);
	/*
	 * Fills d->session, procs and sites (not sorted); sets d->interrupted.
	 * With a sink (NULL: none), the site rows go there (model.h).
	 */
	int (*dump)(void *priv, uint32_t id, struct st_dump *d,
		    const struct st_site_sink *sink, struct st_err *err);
	/*
	 * Appends the syscall events buffered for a session with a log,
	 * taking them out of the tracer (each is read once); *n: how many.
	 */
	int (*log_read)(void *priv, uint32_t id, struct st_log *log, size_t *n,
			struct st_err *err);
};

extern const struct st_backend_ops st_backend_kmod;
extern const struct st_backend_ops st_backend_bpf;

struct st_backend;

/*
 * SYSTRACE_BACKEND (kmod or bpf) when set, else the module when it is
 * loaded, else BPF.
 */
int st_backend_open(struct st_backend **bp, struct st_err *err);
/* For a new session: AUTO is the module when loaded, else BPF. */
int st_backend_open_kind(struct st_backend **bp, enum st_backend_kind kind,
			 struct st_err *err);
void st_backend_close(struct st_backend *b);

int st_backend_status(struct st_backend *b, struct st_status *st,
		      struct st_err *err);
int st_backend_session_new(struct st_backend *b,
			   const struct st_session_req *req,
			   struct st_session_row *out, struct st_err *err);
int st_backend_session_del(struct st_backend *b, uint32_t id,
			   struct st_err *err);
int st_backend_session_detach(struct st_backend *b, uint32_t id,
			      struct st_err *err);
int st_backend_session_get(struct st_backend *b, uint32_t id,
			   struct st_session_row *out, struct st_err *err);
int st_backend_session_list(struct st_backend *b, struct st_session_row **out,
			    size_t *n, bool *interrupted, struct st_err *err);
/* The session's rows into d; with a sink, its site rows go there (model.h). */
int st_backend_dump(struct st_backend *b, uint32_t id, struct st_dump *d,
		    const struct st_site_sink *sink, struct st_err *err);
int st_backend_log_read(struct st_backend *b, uint32_t id, struct st_log *log,
			size_t *n, struct st_err *err);

#endif
