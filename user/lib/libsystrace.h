/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_LIBSYSTRACE_H
#define SYSTRACE_LIBSYSTRACE_H

/*
 * libsystrace: what the CLI and the reports use of lib/. The backend fills
 * the model from the tracer; a saved `dump --json` document fills it from
 * a file; the columns, the table writer (text, CSV, JSON), the JSON
 * documents, the totals check, the names and the symbolizer read it.
 * lib/'s other headers are its own.
 */
#include "backend.h"
#include "model/columns.h"
#include "base/err.h"
#include "base/parse.h"
#include "base/suggest.h"
#include "sym/interp.h"
#include "log/log.h"
#include "log/recorder.h"
#include "model/model.h"
#include "model/names.h"
#include "model/syscall_class.h"
#include "model/check.h"
#include "model/dump_json.h"
#include "out/json_str.h"
#include "sym/symbolize.h"
#include "out/outfile.h"
#include "out/table.h"

#endif
