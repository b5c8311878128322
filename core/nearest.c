/* Typo suggestions (offlink/nearest.h). */
#include "offlink/nearest.h"

#include <string.h>

/* Words longer than this are no typo of an option or command name. */
#define NEAREST_MAX 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* Optimal string alignment distance: Levenshtein plus swaps of neighbours
 * ("jbos" is one edit from "jobs"), three rows of the table. */
static size_t distance(const char *a, size_t n, const char *b, size_t m)
{
	size_t rows[3][NEAREST_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t i = 1; i <= n; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			cur[j] =
			    min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

const char *ofl_nearest(const char *word, size_t len, const char *const *choices, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3; /* more than 2 edits is no typo */
	for (size_t i = 0; len <= NEAREST_MAX && i < n; i++) {
		size_t m = strlen(choices[i]);
		if (m > NEAREST_MAX)
			continue;
		size_t d = distance(word, len, choices[i], m);
		if (d < best_d && 2 * d < m) {
			best = choices[i];
			best_d = d;
		}
	}
	return best;
}
