/* error.c: filling and decorating sbox_error values. */
#include "error.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int code;
} error_codes[] = {
	{ E_PARSE, -32700 },
	{ E_INVALID_REQUEST, -32600 },
	{ E_TOO_LARGE, -32600 },
	{ E_METHOD_NOT_FOUND, -32601 },
	{ E_INVALID_PARAMS, -32602 },
	{ E_INTERNAL, -32603 },
	{ E_PROTOCOL_VERSION, -32000 },
	{ E_TOO_MANY, -32001 },
	{ E_CANCELLED, -32002 },
	{ E_SHUTTING_DOWN, -32003 },
	{ E_PERMISSION, -32004 },
	{ E_CONFIG, -32010 },
	{ E_PROFILE_NOT_FOUND, -32011 },
	{ E_SESSION_NOT_FOUND, -32020 },
	{ E_SESSION_CLOSED, -32021 },
	{ E_COMMAND_NOT_FOUND, -32022 },
	{ E_APPROVAL_NOT_FOUND, -32023 },
	{ E_NOT_FOUND, -32024 },
	{ E_SANDBOX_UNAVAILABLE, -32030 },
	{ E_SANDBOX_SETUP, -32031 },
	{ E_BLOCKED, -32032 },
	{ E_DENIED, -32033 },
	{ E_NARROWING, -32034 },
	{ E_LIMIT, -32035 },
	{ E_RATE_LIMITED, -32036 },
	{ E_STORE, -32040 },
	{ E_STORE_VERSION, -32041 },
	{ E_STORE_BUSY, -32042 },
	{ E_IO, -32050 },
	{ E_UNAVAILABLE, -32060 },
};

/* The JSON-RPC code for a stable error name (-32000 for unknown names). */
int
error_code_for(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof error_codes / sizeof error_codes[0]; i++) {
		if (strcmp(error_codes[i].name, name) == 0)
			return error_codes[i].code;
	}
	return -32000;
}

/* va_list form of error_set. */
int
error_setv(sbox_error *err, const char *name, const char *fmt, va_list ap)
{
	if (err == NULL)
		return -1;
	snprintf(err->name, sizeof err->name, "%s", name);
	err->code = error_code_for(name);
	err->field[0] = '\0';
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	return -1;
}

/* Fill err with a name and a formatted message; returns -1. */
int
error_set(sbox_error *err, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(err, name, fmt, ap);
	va_end(ap);
	return -1;
}

/* Same as error_set, also naming the offending field or key. */
int
error_set_field(sbox_error *err, const char *name, const char *field,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(err, name, fmt, ap);
	va_end(ap);
	if (err != NULL)
		snprintf(err->field, sizeof err->field, "%s", field);
	return -1;
}

/* Same as error_set, appending ": strerror(errnum)". */
int
error_set_errno(sbox_error *err, const char *name, int errnum,
    const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	error_setv(err, name, fmt, ap);
	va_end(ap);
	if (err != NULL) {
		len = strlen(err->message);
		snprintf(err->message + len, sizeof err->message - len, ": %s",
		    strerror(errnum));
	}
	return -1;
}

/* Fill err with "out of memory" (E_INTERNAL); returns -1. */
int
error_nomem(sbox_error *err)
{
	return error_set(err, E_INTERNAL, "out of memory");
}

/* Prefix the message with context ("ctx: message"); returns -1. */
int
error_context(sbox_error *err, const char *fmt, ...)
{
	char ctx[ERROR_MSG_MAX], old[ERROR_MSG_MAX];
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof ctx, fmt, ap);
	va_end(ap);
	memcpy(old, err->message, sizeof old);
	size_t n = strlen(ctx);
	if (n > sizeof err->message - 3)
		n = sizeof err->message - 3;
	memcpy(err->message, ctx, n);
	memcpy(err->message + n, ": ", 2);
	n += 2;
	size_t m = strlen(old);
	if (m > sizeof err->message - 1 - n)
		m = sizeof err->message - 1 - n;
	memcpy(err->message + n, old, m);
	err->message[n + m] = '\0';
	return -1;
}

/* Reset err to "no error". */
void
error_clear(sbox_error *err)
{
	if (err != NULL)
		memset(err, 0, sizeof *err);
}

/* True when err holds an error. */
int
error_isset(const sbox_error *err)
{
	return err != NULL && err->name[0] != '\0';
}
