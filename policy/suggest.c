/* suggest.c: "did you mean": the closest name to a word by edit distance. */
#include "policy/suggest.h"

#include <string.h>

/* Edit distance between two short words (insert, delete, replace, swap);
 * 99 for words of 32 bytes or more. */
static size_t
suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d[32][32];

	if (la >= 32 || lb >= 32)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < c)
				c = d[i - 2][j - 2] + 1;
			d[i][j] = c;
		}
	}
	return d[la][lb];
}

/* The closest of names to word, or NULL when none is close. */
const char *
suggest_closest(const char *word, const char *const *names)
{
	const char *best = NULL;
	size_t bd = 3, d, len = strlen(word), i;

	for (i = 0; word != NULL && names != NULL && names[i] != NULL; i++) {
		if (strcmp(names[i], word) == 0)
			continue;
		d = suggest_distance(word, names[i]);
		if (len >= 3 && strncmp(names[i], word, len) == 0)
			d = 1;
		if (d < bd && (len > 2 || d < 2)) {
			bd = d;
			best = names[i];
		}
	}
	return best;
}
