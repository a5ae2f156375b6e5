/* strv.c: NULL-terminated string vectors. */
#include "policy/strv.h"

#include <stdlib.h>
#include <string.h>

/* Number of strings in v (0 for NULL). */
size_t
strv_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

/* Take ownership of s and append it; returns -1 (and frees s) on failure. */
int
strv_push(char ***v, char *s)
{
	size_t n;
	char **nv;

	if (s == NULL)
		return -1;
	n = strv_len(*v);
	nv = realloc(*v, (n + 2) * sizeof *nv);
	if (nv == NULL) {
		free(s);
		return -1;
	}
	nv[n] = s;
	nv[n + 1] = NULL;
	*v = nv;
	return 0;
}

/* Append a copy of s to *v; returns 0, or -1 when out of memory. */
int
strv_append(char ***v, const char *s)
{
	return strv_push(v, strdup(s));
}

/* True when v holds a string equal to s. */
int
strv_contains(char *const *v, const char *s)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (strcmp(v[i], s) == 0)
			return 1;
	}
	return 0;
}

/* Append a copy of s unless an equal string is already there. */
int
strv_add_unique(char ***v, const char *s)
{
	if (strv_contains(*v, s))
		return 0;
	return strv_append(v, s);
}

/* A deep copy of v (NULL for NULL); *ok is set to 0 on allocation failure. */
char **
strv_copy(char *const *v, int *ok)
{
	char **out = NULL;
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if (strv_append(&out, v[i]) == -1) {
			*ok = 0;
			break;
		}
	}
	return out;
}

/* Free v and its strings. */
void
strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* v as a JSON array of strings (a new reference), NULL on ENOMEM. */
json_t *
strv_json(char *const *v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && v != NULL && v[i] != NULL; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}
