/* params.h: per-method parameter tables, checked before any handler runs. */
#ifndef SBOX_PARAMS_H
#define SBOX_PARAMS_H

#include <jansson.h>
#include "error.h"

enum params_type {
	PARAMS_STRING,        /* a JSON string */
	PARAMS_INT,           /* a JSON integer */
	PARAMS_BOOL,          /* true/false */
	PARAMS_OBJECT,        /* a JSON object */
	PARAMS_ARRAY,         /* a JSON array of anything */
	PARAMS_STRING_ARRAY,  /* a JSON array of strings */
	PARAMS_ANY,           /* any JSON value */
};

/* One parameter of a method: name, type, and whether it must be there. */
struct params_field {
	const char      *name;
	enum params_type type;
	int              required;
	size_t           max_len;  /* strings: max bytes; arrays: max items; 0 = default */
};

/* Check params (an object, or NULL for none) against a table ending in {NULL}.
 * Unknown names, wrong types, missing required ones, over-long values: -1 with
 * err naming the field (sbox.InvalidParams). A NULL table takes no parameters. */
int params_check(const struct params_field *table, const json_t *params,
    sbox_error *err);

#endif
