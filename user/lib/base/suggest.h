/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYSTRACE_SUGGEST_H
#define SYSTRACE_SUGGEST_H

#include <stddef.h>

/*
 * The word of words[0..n) nearest to word (fewest single-letter inserts,
 * deletes, changes or swaps of neighbours), when it is near enough to be
 * what was meant: at most 1 edit for words of up to 4 letters, 2 for
 * longer ones. The first of equals; NULL when none is near.
 */
const char *st_suggest(const char *word, const char *const *words, size_t n);
/* "did you mean 'x'? " or "", for a message. */
const char *st_did_you_mean(char *buf, size_t len, const char *nearest);

#endif
