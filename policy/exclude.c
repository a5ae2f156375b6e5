/* exclude.c: matching a command line against a profile's `exclude`
 * patterns; one definition for command.exec's argv and for the programs
 * sbox-init sees started inside a sandbox. */
#include "policy/exclude.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Join the words, the first replaced by first (capped); NULL on OOM. */
static char *
exclude_join(const char *first, char *const *argv)
{
	size_t i, len = 0, n;
	char *out;

	if ((out = malloc(EXCLUDE_LINE_MAX + 1)) == NULL)
		return NULL;
	for (i = 0; argv[i] != NULL && len < EXCLUDE_LINE_MAX; i++) {
		const char *w = i == 0 ? first : argv[i];
		if (i > 0)
			out[len++] = ' ';
		n = strlen(w);
		if (n > EXCLUDE_LINE_MAX - len)
			n = EXCLUDE_LINE_MAX - len;
		memcpy(out + len, w, n);
		len += n;
	}
	out[len] = '\0';
	return out;
}

/* Does one joined line match one pattern? */
static int
exclude_line_matches(const char *pat, const char *line)
{
	size_t n = strlen(pat);

	if (fnmatch(pat, line, 0) == 0)
		return 1;
	return n >= 2 && strcmp(pat + n - 2, " *") == 0 &&
	    strlen(line) == n - 2 && strncmp(line, pat, n - 2) == 0;
}

/* The last component of a path. */
static const char *
exclude_base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s != NULL && s[1] != '\0' ? s + 1 : p;
}

/* Does the command line match one of the patterns? */
const char *
exclude_match(char *const *patterns, char *const *argv, const char *program)
{
	const char *firsts[4];
	const char *hit = NULL;
	size_t i, k, nf = 0;
	char *line;

	if (patterns == NULL || patterns[0] == NULL || argv == NULL ||
	    argv[0] == NULL)
		return NULL;
	firsts[nf++] = argv[0];
	firsts[nf++] = exclude_base(argv[0]);
	if (program != NULL && program[0] != '\0') {
		firsts[nf++] = program;
		firsts[nf++] = exclude_base(program);
	}
	for (k = 0; hit == NULL && k < nf; k++) {
		if (k > 0 && strcmp(firsts[k], firsts[k - 1]) == 0)
			continue;
		if ((line = exclude_join(firsts[k], argv)) == NULL)
			return NULL;
		for (i = 0; hit == NULL && patterns[i] != NULL; i++)
			if (exclude_line_matches(patterns[i], line))
				hit = patterns[i];
		free(line);
	}
	return hit;
}

/* The patterns from JSON (absent or null: none); validated. */
int
exclude_from_json(char ***out, json_t *a, sbox_error *err)
{
	size_t i, n;
	json_t *v;

	*out = NULL;
	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_array(a) || (n = json_array_size(a)) > EXCLUDE_MAX)
		return error_set(err, E_INVALID_PARAMS, "exclude: at most %d "
		    "patterns", EXCLUDE_MAX);
	if ((*out = calloc(n + 1, sizeof **out)) == NULL)
		return error_nomem(err);
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || json_string_length(v) == 0 ||
		    json_string_length(v) > 1024 ||
		    strlen(json_string_value(v)) != json_string_length(v))
			return error_set(err, E_INVALID_PARAMS, "exclude[%zu]: a "
			    "pattern is a non-empty string", i);
		if (((*out)[i] = strdup(json_string_value(v))) == NULL)
			return error_nomem(err);
	}
	return 0;
}
