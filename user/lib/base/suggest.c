// SPDX-License-Identifier: GPL-2.0
/*
 * "Did you mean": the nearest of a list of valid words to a wrong one, by
 * the optimal string alignment distance (Damerau-Levenshtein without
 * edits of a substring edited before). Words here are short: the cost is
 * the product of the two lengths, capped at 64 letters each.
 */
#include <stdio.h>
#include <string.h>
#include "suggest.h"

#define MAXLEN 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

static size_t distance(const char *a, const char *b)
{
	size_t d[MAXLEN + 1][MAXLEN + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > MAXLEN || lb > MAXLEN)
		return (size_t)-1;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

const char *st_suggest(const char *word, const char *const *words, size_t n)
{
	size_t i, dist, best = (size_t)-1, limit = strlen(word) <= 4 ? 1 : 2;
	const char *nearest = NULL;

	for (i = 0; i < n; i++) {
		dist = distance(word, words[i]);
		if (dist <= limit && dist < best) {
			best = dist;
			nearest = words[i];
		}
	}
	return nearest;
}

const char *st_did_you_mean(char *buf, size_t len, const char *nearest)
{
	if (!nearest)
		return "";
	snprintf(buf, len, "did you mean '%s'? ", nearest);
	return buf;
}
