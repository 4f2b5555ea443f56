/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_DUMP_ROW_H
#define SYSTRACE_DUMP_ROW_H

/*
 * The rows of a saved dump document, as dump_load.c reads them
 * (dump_row.c): an object's scalars parsed in place, its keys by hash, and
 * the typed getters that say why a value is refused.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a getter says why it refused a value: the first reason is kept. */
struct ctx {
	char *why;
	size_t len;
	bool bad;
};

/*
 * A row: an object whose values are scalars, parsed in place by
 * dr_row_parse() (the common case), or taken from jansson's tree when the
 * row has anything else (a nested value, bad JSON: jansson says why).
 * Its keys are found by a hash of slots; a key given twice in a row
 * keeps its last value, as jansson does.
 */
/* V_STRS: an array of strings, s[0, i) each ending in NUL (an argv). */
enum vkind { V_NULL, V_TRUE, V_FALSE, V_INT, V_REAL, V_STR, V_STRS, V_OTHER };

struct field {
	const char *key;
	size_t klen;
	enum vkind kind;
	json_int_t i;
	double real;
	const char *s;
};

struct row {
	bool object;		/* false: the row is not a JSON object */
	struct field *f;
	size_t n, cap;
	uint32_t *slot;		/* a key's field index + 1; 0 when free */
	size_t nslot;		/* a power of 2, at least twice n */
	char *buf;		/* the decoded keys and strings */
	size_t bufcap;
	json_t *tree;		/* jansson's parse, when the row has one */
};


void dr_fail(struct ctx *c, const char *what, const char *key);
void dr_fail_why(struct ctx *c, const char *what, const char *key,
		 const char *why);
uint64_t dr_get_u64(struct ctx *c, const struct row *o, const char *what,
		    const char *key);
bool dr_get_opt_u64(struct ctx *c, const struct row *o, const char *what,
		    const char *key, uint64_t *out);
const char *dr_get_opt_str(struct ctx *c, const struct row *o, const char *what,
			   const char *key);
bool dr_get_true(const struct row *o, const char *key);
const char *dr_get_str(struct ctx *c, const struct row *o, const char *what,
		       const char *key);
uint64_t dr_get_hex(struct ctx *c, const struct row *o, const char *what,
		    const char *key, bool *has);
uint32_t dr_get_enum(struct ctx *c, const struct row *o, const char *what,
		     const char *key, const char *(*name)(uint32_t));
const struct field *dr_row_get(const struct row *r, const char *key);
bool dr_row_parse(struct row *r, const char *text, size_t len);
bool dr_row_from_json(struct row *r, json_t *o);
json_t *dr_row_to_json(const struct row *r);
void dr_row_free(struct row *r);

#endif
