/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LIB_H
#define SYSTRACE_LIB_H

/*
 * libsystrace: what the CLI and the reports use of lib/. The backend fills
 * the model from the tracer; a saved `dump --json` document fills it from
 * a file; the columns, the table writer (text, CSV, JSON), the JSON
 * documents, the totals check, the names and the symbolizer read it. lib/'s other headers are its own.
 */
#include <jansson.h>
#include "backend.h"
#include "columns.h"
#include "err.h"
#include "interp.h"
#include "log.h"
#include "model.h"
#include "names.h"
#include "output.h"
#include "symbolize.h"
#include "table.h"

/* dump_load.c: a `dump --json` document back into a struct st_dump. */
int st_dump_load(const char *path, struct st_dump *d, struct st_err *err);
int st_dump_load_json(json_t *doc, struct st_dump *d, char *why, size_t len);

#endif
