/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_DUMP_JSON_H
#define SYSTRACE_DUMP_JSON_H

/* The JSON documents of dump, status and list (dump_json.c). */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include "model/columns.h"
#include "model/model.h"

#define ST_SCHEMA_VERSION 1

json_t *st_json_session(const struct st_session_row *s);
json_t *st_json_status(const struct st_status *st, const struct st_session_row *ss,
		       size_t n);
json_t *st_json_totals(const struct st_dump *d, bool live);
int st_json_dump(FILE *f, const struct st_view *v, bool syscalls, bool live);
int st_json_print(FILE *f, json_t *doc);

/* dump_load.c: a `dump --json` document back into a struct st_dump. */
struct st_err;
int st_dump_load(const char *path, struct st_dump *d, struct st_err *err);
int st_dump_load_json(json_t *doc, struct st_dump *d, char *why, size_t len);

#endif
