/* params.c: checking a method's params object against its table. */
#include "params.h"

#include <string.h>

#define PARAMS_DEFAULT_STRING_MAX (64 * 1024)
#define PARAMS_DEFAULT_ARRAY_MAX  4096

/* The word for a type, for error messages. */
static const char *
params_type_name(enum params_type t)
{
	switch (t) {
	case PARAMS_STRING: return "a string";
	case PARAMS_INT: return "an integer";
	case PARAMS_BOOL: return "a boolean";
	case PARAMS_OBJECT: return "an object";
	case PARAMS_ARRAY: return "an array";
	case PARAMS_STRING_ARRAY: return "an array of strings";
	case PARAMS_ANY: return "any value";
	}
	return "?";
}

/* Check one value against its field description. */
static int
params_check_value(const struct params_field *f, const json_t *v,
    sbox_error *err)
{
	size_t max, i;
	json_t *item;

	switch (f->type) {
	case PARAMS_STRING:
		if (!json_is_string(v))
			break;
		max = f->max_len ? f->max_len : PARAMS_DEFAULT_STRING_MAX;
		if (json_string_length(v) > max)
			return error_set_field(err, E_INVALID_PARAMS, f->name,
			    "%s is longer than %zu bytes", f->name, max);
		return 0;
	case PARAMS_INT:
		if (json_is_integer(v))
			return 0;
		break;
	case PARAMS_BOOL:
		if (json_is_boolean(v))
			return 0;
		break;
	case PARAMS_OBJECT:
		if (json_is_object(v))
			return 0;
		break;
	case PARAMS_ARRAY:
	case PARAMS_STRING_ARRAY:
		if (!json_is_array(v))
			break;
		max = f->max_len ? f->max_len : PARAMS_DEFAULT_ARRAY_MAX;
		if (json_array_size(v) > max)
			return error_set_field(err, E_INVALID_PARAMS, f->name,
			    "%s has more than %zu items", f->name, max);
		if (f->type == PARAMS_STRING_ARRAY) {
			json_array_foreach(v, i, item) {
				if (!json_is_string(item))
					return error_set_field(err,
					    E_INVALID_PARAMS, f->name,
					    "%s[%zu] must be a string", f->name, i);
				if (json_string_length(item) >
				    PARAMS_DEFAULT_STRING_MAX)
					return error_set_field(err,
					    E_INVALID_PARAMS, f->name,
					    "%s[%zu] is too long", f->name, i);
			}
		}
		return 0;
	case PARAMS_ANY:
		return 0;
	}
	return error_set_field(err, E_INVALID_PARAMS, f->name,
	    "%s must be %s", f->name, params_type_name(f->type));
}

/* Check params against a table ending in {NULL}. */
int
params_check(const struct params_field *table, const json_t *params,
    sbox_error *err)
{
	const struct params_field *f;
	const char *key;
	json_t *v;

	if (params != NULL && !json_is_object(params))
		return error_set_field(err, E_INVALID_PARAMS, "params",
		    "params must be an object");
	if (params != NULL) {
		json_object_foreach((json_t *)params, key, v) {
			for (f = table; f != NULL && f->name != NULL; f++) {
				if (strcmp(f->name, key) == 0)
					break;
			}
			if (f == NULL || f->name == NULL)
				return error_set_field(err, E_INVALID_PARAMS, key,
				    "unknown parameter \"%s\"", key);
			if (json_is_null(v) && !f->required)
				continue;
			if (params_check_value(f, v, err) == -1)
				return -1;
		}
	}
	for (f = table; f != NULL && f->name != NULL; f++) {
		if (!f->required)
			continue;
		v = params ? json_object_get(params, f->name) : NULL;
		if (v == NULL || json_is_null(v))
			return error_set_field(err, E_INVALID_PARAMS, f->name,
			    "missing required parameter \"%s\"", f->name);
	}
	return 0;
}
