/* ttysize.c: a terminal's size ({rows, cols}) checked before it is used. */
#include "protocol/ttysize.h"

#include <string.h>

/* One dimension: an integer 1..TTYSIZE_MAX, or 0 with err. */
unsigned short
ttysize_dim(const json_t *v, const char *name, const char *field,
    sbox_error *err)
{
	json_int_t n;

	if (!json_is_integer(v) || (n = json_integer_value(v)) < 1 ||
	    n > TTYSIZE_MAX) {
		error_set_field(err, E_INVALID_PARAMS, field, "%s%s%s must be an "
		    "integer from 1 to %d", strcmp(field, name) == 0 ? "" :
		    field, strcmp(field, name) == 0 ? "" : ".", name,
		    TTYSIZE_MAX);
		return 0;
	}
	return (unsigned short)n;
}

/* A {rows, cols} object, nothing else in it. */
int
ttysize_parse(const json_t *v, const char *field, struct ttysize *out,
    sbox_error *err)
{
	const char *key;
	json_t *m;

	if (!json_is_object(v))
		return error_set_field(err, E_INVALID_PARAMS, field, "%s must be "
		    "an object {rows, cols}", field);
	json_object_foreach((json_t *)v, key, m) {
		if (strcmp(key, "rows") != 0 && strcmp(key, "cols") != 0)
			return error_set_field(err, E_INVALID_PARAMS, field,
			    "%s has an unknown member \"%s\" (only rows and "
			    "cols)", field, key);
	}
	if ((out->rows = ttysize_dim(json_object_get(v, "rows"), "rows", field,
	    err)) == 0 || (out->cols = ttysize_dim(json_object_get(v, "cols"),
	    "cols", field, err)) == 0)
		return -1;
	return 0;
}
