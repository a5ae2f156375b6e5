// sources: protocol/envelope.c protocol/params.c protocol/error.c
/* fuzz-envelope.c: arbitrary lines into envelope_parse, then params_check
 * against sample method tables, then the replies the daemon would build
 * (envelope_error / envelope_result / envelope_notification) through
 * envelope_dump and back through envelope_parse_reply. Checks: errors carry
 * a known name and a JSON-RPC code of the right family; every reply is one
 * LF-terminated line of ASCII that a client parses back to the same id. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/envelope.h"
#include "protocol/params.h"

static const struct params_field fuzz_env_hello[] = {
	{ "protocol", PARAMS_INT, 1, 0 },
	{ "client", PARAMS_STRING, 0, 256 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field fuzz_env_all[] = {
	{ "s", PARAMS_STRING, 0, 8 },
	{ "i", PARAMS_INT, 0, 0 },
	{ "b", PARAMS_BOOL, 0, 0 },
	{ "o", PARAMS_OBJECT, 0, 0 },
	{ "a", PARAMS_ARRAY, 0, 4 },
	{ "sa", PARAMS_STRING_ARRAY, 0, 4 },
	{ "any", PARAMS_ANY, 0, 0 },
	{ "id", PARAMS_ANY, 0, 0 },
	{ "topics", PARAMS_STRING_ARRAY, 0, 64 },
	{ "subscription", PARAMS_INT, 1, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field *const fuzz_env_tables[] = {
	NULL, fuzz_env_hello, fuzz_env_all,
};

/* Stop with a message: libFuzzer reports the input. */
static void
fuzz_envelope_fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz-envelope: invariant broken: %s %s\n", what,
	    detail ? detail : "");
	abort();
}

/* An error must have a known name, a message, and the matching code. */
static void
fuzz_envelope_check_err(const sbox_error *err, const char *const *names,
    int nnames)
{
	int i;

	if (!error_isset(err))
		fuzz_envelope_fail("failure without an error", NULL);
	if (err->message[0] == '\0')
		fuzz_envelope_fail("error without a message", err->name);
	if (memchr(err->message, '\0', sizeof err->message) == NULL ||
	    memchr(err->field, '\0', sizeof err->field) == NULL)
		fuzz_envelope_fail("unterminated error text", err->name);
	for (i = 0; i < nnames; i++) {
		if (strcmp(err->name, names[i]) == 0)
			break;
	}
	if (i == nnames)
		fuzz_envelope_fail("unexpected error name", err->name);
	if (err->code != error_code_for(err->name))
		fuzz_envelope_fail("code does not match the name", err->name);
	if (err->code != -32700 && err->code != -32600 && err->code != -32602)
		fuzz_envelope_fail("code outside the parse/request/params family",
		    err->name);
}

/* Dump a reply and parse it back as a client would; ids must survive. */
static void
fuzz_envelope_roundtrip(json_t *msg, const json_t *id, int is_notification)
{
	struct envelope back;
	sbox_error err;
	size_t n, i;
	char *s;

	if (msg == NULL)
		fuzz_envelope_fail("reply could not be built", NULL);
	if ((s = envelope_dump(msg, &n)) == NULL)
		fuzz_envelope_fail("reply could not be serialised", NULL);
	if (n == 0 || s[n - 1] != '\n' || s[n] != '\0')
		fuzz_envelope_fail("reply is not LF-terminated", s);
	for (i = 0; i + 1 < n; i++) {
		if (s[i] == '\n' || s[i] == '\0' || (unsigned char)s[i] >= 0x80)
			fuzz_envelope_fail("reply holds LF, NUL or non-ASCII", s);
	}
	error_clear(&err);
	if (envelope_parse_reply(s, n - 1, &back, &err) == -1)
		fuzz_envelope_fail("reply does not parse back", err.message);
	if (is_notification) {
		if (back.method == NULL || back.id != NULL)
			fuzz_envelope_fail("notification came back wrong", s);
	} else {
		if (back.id == NULL)
			fuzz_envelope_fail("reply lost its id", s);
		if (id != NULL && !json_equal(back.id, (json_t *)id))
			fuzz_envelope_fail("reply id differs", s);
		if (id == NULL && !json_is_null(back.id))
			fuzz_envelope_fail("id-less reply has a non-null id", s);
	}
	envelope_free(&back);
	free(s);
	json_decref(msg);
}

/* One input is one request line. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const parse_names[] = {
		E_PARSE, E_INVALID_REQUEST, E_INVALID_PARAMS,
	};
	static const char *const params_names[] = { E_INVALID_PARAMS };
	struct envelope env;
	sbox_error err;
	json_t *copy;
	size_t t;

	if (size > 65536)
		return 0;
	error_clear(&err);
	if (envelope_parse((const char *)data, size, &env, &err) == -1) {
		fuzz_envelope_check_err(&err, parse_names, 3);
		/* the daemon answers structural errors with the id it could read */
		fuzz_envelope_roundtrip(envelope_error(env.id, &err), env.id, 0);
		envelope_free(&env);
		return 0;
	}
	if (env.method == NULL || env.root == NULL)
		fuzz_envelope_fail("parsed request without a method", NULL);
	if (env.params != NULL && !json_is_object(env.params))
		fuzz_envelope_fail("params that are not an object", NULL);
	if (env.id != NULL && !json_is_string(env.id) &&
	    !json_is_integer(env.id) && !json_is_null(env.id))
		fuzz_envelope_fail("accepted an id of a bad type", NULL);
	for (t = 0; t < sizeof fuzz_env_tables / sizeof fuzz_env_tables[0]; t++) {
		error_clear(&err);
		if (params_check(fuzz_env_tables[t], env.params, &err) == -1) {
			fuzz_envelope_check_err(&err, params_names, 1);
			/* only an empty parameter name leaves field empty */
			if (err.field[0] == '\0' &&
			    strstr(err.message, "\"\"") == NULL)
				fuzz_envelope_fail("params error without a field",
				    err.message);
			fuzz_envelope_roundtrip(envelope_error(env.id, &err),
			    env.id, 0);
		} else {
			copy = env.params ? json_deep_copy(env.params) :
			    json_object();
			fuzz_envelope_roundtrip(envelope_result(env.id, copy),
			    env.id, 0);
		}
	}
	copy = env.params ? json_deep_copy(env.params) : NULL;
	fuzz_envelope_roundtrip(envelope_notification(env.method, copy), NULL, 1);
	envelope_free(&env);
	return 0;
}
