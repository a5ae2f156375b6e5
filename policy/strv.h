/* strv.h: NULL-terminated string vectors (char **) as used across policy/.
 * A NULL vector is a valid empty vector everywhere. */
#ifndef SBOX_STRV_H
#define SBOX_STRV_H

#include <jansson.h>
#include <stddef.h>

/* Number of strings in v (0 for NULL). */
size_t strv_len(char *const *v);
/* Append a copy of s to *v; returns 0, or -1 when out of memory. */
int strv_append(char ***v, const char *s);
/* Append a copy of s unless an equal string is already there. */
int strv_add_unique(char ***v, const char *s);
/* Take ownership of s and append it; returns -1 (and frees s) on failure. */
int strv_push(char ***v, char *s);
/* True when v holds a string equal to s. */
int strv_contains(char *const *v, const char *s);
/* A deep copy of v (NULL for NULL); *ok is set to 0 on allocation failure. */
char **strv_copy(char *const *v, int *ok);
/* v as a JSON array of strings (a new reference), NULL on ENOMEM. */
json_t *strv_json(char *const *v);
/* Free v and its strings. */
void strv_free(char **v);

#endif
