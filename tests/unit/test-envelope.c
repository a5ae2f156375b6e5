/* test-envelope.c: Check suite for protocol/envelope.c and base64.c. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/base64.h"
#include "protocol/envelope.h"

/* Parse a string as a request; returns rc and fills env/err. */
static int
parse(const char *s, struct envelope *env, sbox_error *err)
{
	error_clear(err);
	return envelope_parse(s, strlen(s), env, err);
}

/* A well-formed request parses with its id, method and params. */
START_TEST(test_envelope_ok)
{
	struct envelope env;
	sbox_error err;

	ck_assert_int_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"rpc.ping\","
	    "\"params\":{\"a\":1}}", &env, &err), 0);
	ck_assert_int_eq(json_integer_value(env.id), 7);
	ck_assert_str_eq(env.method, "rpc.ping");
	ck_assert(json_is_object(env.params));
	envelope_free(&env);
	ck_assert_int_eq(parse("{\"jsonrpc\":\"2.0\",\"method\":\"n\"}", &env, &err), 0);
	ck_assert_ptr_null(env.id);
	envelope_free(&env);
	ck_assert_int_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"m\","
	    "\"params\":null}", &env, &err), 0);
	ck_assert_ptr_null(env.params);
	envelope_free(&env);
}
END_TEST

/* Each malformed shape gets the right error name and code. */
START_TEST(test_envelope_bad)
{
	static const struct { const char *in, *name; int code; } cases[] = {
		{ "{", E_PARSE, -32700 },
		{ "not json", E_PARSE, -32700 },
		{ "\"\xff\xfe\"", E_PARSE, -32700 },
		{ "{\"jsonrpc\":\"2.0\",\"method\":\"\xc3\x28\"}", E_PARSE, -32700 },
		{ "[1,2]", E_INVALID_REQUEST, -32600 },
		{ "42", E_INVALID_REQUEST, -32600 },
		{ "{\"id\":1,\"method\":\"m\"}", E_INVALID_REQUEST, -32600 },
		{ "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"m\"}", E_INVALID_REQUEST, -32600 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1}", E_INVALID_REQUEST, -32600 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", E_INVALID_REQUEST, -32600 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"m\"}", E_INVALID_REQUEST, -32600 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"m\"}", E_INVALID_REQUEST, -32600 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":1}", E_INVALID_REQUEST, -32600 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[1]}", E_INVALID_PARAMS, -32602 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"m\"}", E_PARSE, -32700 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"m\"}", E_INVALID_REQUEST, -32600 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":3}", E_INVALID_REQUEST, -32600 },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":\"x\"}", E_INVALID_REQUEST, -32600 },
	};
	struct envelope env;
	sbox_error err;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_msg(parse(cases[i].in, &env, &err) == -1, "%s", cases[i].in);
		ck_assert_msg(strcmp(err.name, cases[i].name) == 0, "%s: %s",
		    cases[i].in, err.name);
		ck_assert_int_eq(err.code, cases[i].code);
		envelope_free(&env);
	}
}
END_TEST

/* A bad request keeps its id for the error reply when it could be read. */
START_TEST(test_envelope_keeps_id)
{
	struct envelope env;
	sbox_error err;

	ck_assert_int_eq(parse("{\"jsonrpc\":\"1\",\"id\":9,\"method\":\"m\"}", &env,
	    &err), -1);
	ck_assert_int_eq(json_integer_value(env.id), 9);
	envelope_free(&env);
}
END_TEST

/* Replies and errors serialise compactly with a trailing LF. */
START_TEST(test_envelope_build)
{
	sbox_error err;
	json_t *id = json_integer(3), *m;
	char *s;

	m = envelope_result(id, json_pack("{s:b}", "pong", 1));
	s = envelope_dump(m, NULL);
	ck_assert_str_eq(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"pong\":true}}\n");
	free(s);
	json_decref(m);
	error_set_field(&err, E_INVALID_PARAMS, "argv", "argv must be %s", "x");
	m = envelope_error(id, &err);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(m,
	    "error"), "code")), -32602);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
	    json_object_get(m, "error"), "data"), "field")), "argv");
	s = envelope_dump(m, NULL);
	ck_assert_ptr_null(strchr(s, ' ') == s ? NULL : strstr(s, "\n\n"));
	free(s);
	json_decref(m);
	json_decref(id);
}
END_TEST

/* Client-side parsing tells replies from notifications and decodes errors. */
START_TEST(test_envelope_reply)
{
	struct envelope env;
	sbox_error err;
	const char *r = "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32020,"
	    "\"message\":\"no such session\",\"data\":{\"name\":\"sbox.SessionNotFound\"}}}";

	ck_assert_int_eq(envelope_parse_reply(r, strlen(r), &env, &err), 0);
	ck_assert_ptr_nonnull(env.error);
	envelope_error_decode(env.error, &err);
	ck_assert_str_eq(err.name, E_SESSION_NOT_FOUND);
	ck_assert_str_eq(err.message, "no such session");
	envelope_free(&env);
	r = "{\"jsonrpc\":\"2.0\",\"method\":\"events.event\",\"params\":{}}";
	ck_assert_int_eq(envelope_parse_reply(r, strlen(r), &env, &err), 0);
	ck_assert_str_eq(env.method, "events.event");
	envelope_free(&env);
}
END_TEST

/* base64 round-trips every length and refuses garbage. */
START_TEST(test_base64)
{
	unsigned char in[300], *out;
	size_t i, n;
	char *enc;

	for (i = 0; i < sizeof in; i++)
		in[i] = (unsigned char)(i * 7 + 3);
	for (i = 0; i < sizeof in; i++) {
		enc = base64_encode(in, i);
		out = base64_decode(enc, strlen(enc), &n);
		ck_assert_ptr_nonnull(out);
		ck_assert_uint_eq(n, i);
		ck_assert_int_eq(memcmp(in, out, i), 0);
		free(enc);
		free(out);
	}
	enc = base64_encode("foobar", 6);
	ck_assert_str_eq(enc, "Zm9vYmFy");
	free(enc);
	ck_assert_ptr_null(base64_decode("abc", 3, &n));
	ck_assert_ptr_null(base64_decode("ab!d", 4, &n));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("envelope");
	TCase *tc = tcase_create("envelope");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_envelope_ok);
	tcase_add_test(tc, test_envelope_bad);
	tcase_add_test(tc, test_envelope_keeps_id);
	tcase_add_test(tc, test_envelope_build);
	tcase_add_test(tc, test_envelope_reply);
	tcase_add_test(tc, test_base64);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
