/* channel.c: one table of messages per side of a channel, and the one
 * place that refuses what a table does not accept (see channel.h). */
#include "protocol/channel.h"

#include <string.h>

/* The "type" of a message, or "" when it has none. */
const char *
channel_type(const json_t *msg)
{
	const char *t = json_string_value(json_object_get(msg, "type"));

	return t != NULL ? t : "";
}

/* The row of a message name in t, or NULL. */
const struct channel_row *
channel_row(const struct channel_table *t, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < t->n_rows; i++)
		if (strcmp(t->rows[i].name, name) == 0)
			return &t->rows[i];
	return NULL;
}

/* A string without NUL bytes of min to max bytes (0 or -1). */
static int
channel_check_str(const json_t *v, long long min, long long max)
{
	size_t len;

	if (!json_is_string(v))
		return -1;
	len = json_string_length(v);
	return strlen(json_string_value(v)) == len && (long long)len >= min &&
	    (long long)len <= max ? 0 : -1;
}

/* Is v what field f says (0), or not (-1)? */
static int
channel_check_one(const struct channel_field *f, const json_t *v)
{
	const json_t *e;
	size_t i, n;
	json_int_t x;

	switch (f->kind) {
	case CHANNEL_INT:
		if (!json_is_integer(v))
			return -1;
		x = json_integer_value(v);
		return x >= f->min && x <= f->max ? 0 : -1;
	case CHANNEL_STR:
		return channel_check_str(v, f->min, f->max);
	case CHANNEL_PATH:
		return channel_check_str(v, f->min, f->max) == 0 &&
		    json_string_value(v)[0] == '/' ? 0 : -1;
	case CHANNEL_BOOL:
		return json_is_boolean(v) ? 0 : -1;
	case CHANNEL_OBJECT:
		return json_is_object(v) ? 0 : -1;
	case CHANNEL_ARRAY:
	case CHANNEL_STRV:
		if (!json_is_array(v))
			return -1;
		n = json_array_size(v);
		if ((long long)n < f->min || (long long)n > f->max)
			return -1;
		if (f->kind == CHANNEL_STRV)
			json_array_foreach(v, i, e)
				if (channel_check_str(e, 0, (long long)1 << 30) < 0)
					return -1;
		return 0;
	}
	return -1;
}

/* Check msg's fields against a spec: 0, or -1 with err naming the field. */
int
channel_check(const struct channel_field *spec, json_t *msg, sbox_error *err)
{
	const struct channel_field *f;
	const json_t *v;

	for (f = spec; f != NULL && f->name != NULL; f++) {
		v = json_object_get(msg, f->name);
		if (v == NULL && (f->flags & CHANNEL_OPTIONAL))
			continue;
		if (json_is_null(v) && (f->flags & CHANNEL_NULLABLE))
			continue;
		if (v == NULL)
			return error_set_field(err, E_INVALID_REQUEST, f->name,
			    "no field %s", f->name);
		if (channel_check_one(f, v) < 0)
			return error_set_field(err, E_INVALID_REQUEST, f->name,
			    "field %s is not %s", f->name,
			    f->kind == CHANNEL_INT ? "an integer in its range" :
			    f->kind == CHANNEL_STR ? "a string of its length" :
			    f->kind == CHANNEL_PATH ? "an absolute path of its "
			    "length" : f->kind == CHANNEL_BOOL ? "a boolean" :
			    f->kind == CHANNEL_OBJECT ? "an object" :
			    f->kind == CHANNEL_ARRAY ? "an array of its size" :
			    "an array of strings of its size");
	}
	return 0;
}

/* The name of one side, for a reason. */
static const char *
channel_side_name(unsigned side)
{
	return side == CHANNEL_SBOXD ? "sboxd" : side == CHANNEL_INIT ?
	    "sbox-init" : side == CHANNEL_PROXY ? "the proxy" : "an unknown side";
}

/* Dispatch one message to its row's handler, or refuse it here. */
int
channel_dispatch(const struct channel_table *t, unsigned from, void *ctx,
    json_t *msg, int *fds, int nfds, sbox_error *err)
{
	const struct channel_row *r;
	const char *type;
	sbox_error herr = { 0 };

	if (!json_is_object(msg) ||
	    channel_check_str(json_object_get(msg, "type"), 1, 64) < 0)
		return error_set(err, E_INVALID_REQUEST, "%s: a message without "
		    "a type", t->name);
	type = json_string_value(json_object_get(msg, "type"));
	if ((r = channel_row(t, type)) == NULL || r->handler == NULL)
		return error_set(err, E_INVALID_REQUEST, "%s: unknown message "
		    "type %.64s", t->name, type);
	if ((r->from & from) == 0 || (from & (from - 1)) != 0)
		return error_set(err, E_INVALID_REQUEST, "%s: %s may not send %s",
		    t->name, channel_side_name(from), r->name);
	if (nfds < r->min_fds || nfds > r->max_fds)
		return error_set(err, E_INVALID_REQUEST, "%s: %s with %d "
		    "descriptors (%d to %d)", t->name, r->name, nfds,
		    r->min_fds, r->max_fds);
	if (channel_check(r->fields, msg, &herr) < 0)
		return error_set_field(err, E_INVALID_REQUEST, herr.field,
		    "%s: %s: %s", t->name, r->name, herr.message);
	if (r->handler(ctx, msg, fds, nfds, &herr) == 0)
		return 0;
	if (error_isset(&herr))
		return error_set(err, herr.name, "%s: %s: %s", t->name, r->name,
		    herr.message);
	return error_set(err, E_INVALID_REQUEST, "%s: %s refused: a field is "
	    "out of place", t->name, r->name);
}
