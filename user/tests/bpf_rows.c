// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_rows ID: the process rows of BPF session ID as the backend fills the
 * model, one JSON object per line, for the tests of what `dump` does not
 * show: {"id", "parent_id", "prev_id", "pid", "tgid", "attached",
 * "argv_hex" (the argv bytes in hex, null when unknown), "argv_truncated"}.
 * Read with the backend itself (st_backend_bpf), not through systracectl.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <jansson.h>
#include "backend.h"

static json_t *hex(const char *p, uint32_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = malloc(2 * (size_t)n + 1);
	json_t *j;
	uint32_t i;

	if (!s)
		return NULL;
	for (i = 0; i < n; i++) {
		s[2 * i] = digits[(unsigned char)p[i] >> 4];
		s[2 * i + 1] = digits[(unsigned char)p[i] & 15];
	}
	s[2 * n] = '\0';
	j = json_string(s);
	free(s);
	return j;
}

int main(int argc, char **argv)
{
	struct st_err err = { 0 };
	struct st_dump d;
	void *priv;
	size_t i;
	char *end;
	unsigned long id;

	if (argc != 2 || !(id = strtoul(argv[1], &end, 10)) || *end) {
		fprintf(stderr, "usage: bpf_rows SESSION_ID\n");
		return 2;
	}
	if (st_backend_bpf.open(&priv, &err) ||
	    st_backend_bpf.dump(priv, (uint32_t)id, &d, NULL, &err)) {
		st_err_print(&err);
		return 1;
	}
	for (i = 0; i < d.nprocs; i++) {
		const struct st_proc_row *r = &d.procs[i];
		json_t *o = json_pack("{sI sI sI si si sb so sb}",
				      "id", (json_int_t)r->id,
				      "parent_id", (json_int_t)r->parent_id,
				      "prev_id", (json_int_t)r->prev_id,
				      "pid", (int)r->pid, "tgid", (int)r->tgid,
				      "attached", (int)r->attached,
				      "argv_hex", r->argv ? hex(r->argv, r->argv_len) : json_null(),
				      "argv_truncated", (int)r->argv_truncated);
		char *s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

		if (!s)
			return 1;
		puts(s);
		free(s);
		json_decref(o);
	}
	st_dump_free(&d);
	st_backend_bpf.close(priv);
	return 0;
}
