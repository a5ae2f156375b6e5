/* test-params.c: Check suite for protocol/params.c, protocol/error.c and
 * protocol/ttysize.c. */
#include <check.h>
#include <string.h>

#include "protocol/params.h"
#include "protocol/ttysize.h"

static const struct params_field table[] = {
	{ "session", PARAMS_STRING, 1, 16 },
	{ "argv", PARAMS_STRING_ARRAY, 0, 3 },
	{ "detach", PARAMS_BOOL, 0, 0 },
	{ "timeout", PARAMS_INT, 0, 0 },
	{ "env", PARAMS_OBJECT, 0, 0 },
	{ NULL, 0, 0, 0 },
};

/* Check a JSON text against the table; returns rc, fills err. */
static int
check(const char *text, sbox_error *err)
{
	json_t *p = json_loads(text, 0, NULL);
	int rc;

	ck_assert_ptr_nonnull(p);
	error_clear(err);
	rc = params_check(table, p, err);
	json_decref(p);
	return rc;
}

/* Good params pass; optional null is allowed. */
START_TEST(test_params_ok)
{
	sbox_error err;

	ck_assert_int_eq(check("{\"session\":\"abc\"}", &err), 0);
	ck_assert_int_eq(check("{\"session\":\"abc\",\"argv\":[\"a\",\"b\"],"
	    "\"detach\":true,\"timeout\":5,\"env\":{},\"timeout\":null}", &err), 0);
}
END_TEST

/* Each mistake names its field. */
START_TEST(test_params_bad)
{
	static const struct { const char *in, *field; } cases[] = {
		{ "{}", "session" },
		{ "{\"session\":null}", "session" },
		{ "{\"session\":1}", "session" },
		{ "{\"session\":\"0123456789abcdefX\"}", "session" },
		{ "{\"session\":\"a\",\"argv\":\"ls\"}", "argv" },
		{ "{\"session\":\"a\",\"argv\":[1]}", "argv" },
		{ "{\"session\":\"a\",\"argv\":[\"a\",\"b\",\"c\",\"d\"]}", "argv" },
		{ "{\"session\":\"a\",\"detach\":1}", "detach" },
		{ "{\"session\":\"a\",\"timeout\":1.5}", "timeout" },
		{ "{\"session\":\"a\",\"timeout\":\"5\"}", "timeout" },
		{ "{\"session\":\"a\",\"env\":[]}", "env" },
		{ "{\"session\":\"a\",\"bogus\":1}", "bogus" },
	};
	sbox_error err;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_msg(check(cases[i].in, &err) == -1, "%s", cases[i].in);
		ck_assert_str_eq(err.name, E_INVALID_PARAMS);
		ck_assert_int_eq(err.code, -32602);
		ck_assert_msg(strcmp(err.field, cases[i].field) == 0, "%s: %s",
		    cases[i].in, err.field);
	}
}
END_TEST

/* A method without a table takes no parameters at all. */
START_TEST(test_params_none)
{
	sbox_error err;
	json_t *p = json_pack("{s:i}", "x", 1);

	ck_assert_int_eq(params_check(NULL, NULL, &err), 0);
	ck_assert_int_eq(params_check(NULL, p, &err), -1);
	ck_assert_str_eq(err.field, "x");
	json_decref(p);
}
END_TEST

/* Errors: codes from names, context prefixes, errno text, truncation. */
START_TEST(test_error)
{
	sbox_error err;
	char big[3000];

	ck_assert_int_eq(error_code_for(E_METHOD_NOT_FOUND), -32601);
	ck_assert_int_eq(error_code_for("sbox.Whatever"), -32000);
	error_clear(&err);
	ck_assert(!error_isset(&err));
	ck_assert_int_eq(error_set(&err, E_IO, "read %s", "x"), -1);
	ck_assert(error_isset(&err));
	error_context(&err, "file.read");
	ck_assert_str_eq(err.message, "file.read: read x");
	error_set_errno(&err, E_IO, 2, "open %s", "/nope");
	ck_assert_str_eq(err.message, "open /nope: No such file or directory");
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	error_set(&err, E_IO, "%s", big);
	error_context(&err, "%s", big);
	ck_assert_uint_eq(strlen(err.message), ERROR_MSG_MAX - 1);
}
END_TEST

/* A terminal's size: {rows, cols}, each 1..4096, nothing else. */
START_TEST(test_ttysize)
{
	static const struct {
		const char *in;
		const char *msg;	/* NULL: accepted */
	} cases[] = {
		{ "{\"rows\":24,\"cols\":80}", NULL },
		{ "{\"rows\":1,\"cols\":4096}", NULL },
		{ "{\"rows\":0,\"cols\":80}", "tty.rows must be an integer from "
		    "1 to 4096" },
		{ "{\"rows\":24,\"cols\":4097}", "tty.cols must be an integer "
		    "from 1 to 4096" },
		{ "{\"rows\":-1,\"cols\":80}", "tty.rows" },
		{ "{\"rows\":24.5,\"cols\":80}", "tty.rows" },
		{ "{\"rows\":\"24\",\"cols\":80}", "tty.rows" },
		{ "{\"rows\":24}", "tty.cols" },
		{ "{\"rows\":24,\"cols\":80,\"x\":1}", "unknown member \"x\"" },
		{ "[24,80]", "tty must be an object {rows, cols}" },
		{ "{\"rows\":70000,\"cols\":80}", "tty.rows" },
	};
	struct ttysize sz;
	sbox_error err;
	json_t *v;
	size_t i;
	int rc;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		v = json_loads(cases[i].in, JSON_DECODE_ANY, NULL);
		ck_assert_ptr_nonnull(v);
		error_clear(&err);
		rc = ttysize_parse(v, "tty", &sz, &err);
		json_decref(v);
		if (cases[i].msg == NULL) {
			ck_assert_msg(rc == 0, "%s: %s", cases[i].in, err.message);
			continue;
		}
		ck_assert_msg(rc == -1, "%s accepted", cases[i].in);
		ck_assert_str_eq(err.name, E_INVALID_PARAMS);
		ck_assert_str_eq(err.field, "tty");
		ck_assert_msg(strstr(err.message, cases[i].msg) != NULL,
		    "%s: %s", cases[i].in, err.message);
	}
	v = json_pack("{s:i,s:i}", "rows", 50, "cols", 132);
	ck_assert_int_eq(ttysize_parse(v, "tty", &sz, &err), 0);
	ck_assert_int_eq(sz.rows, 50);
	ck_assert_int_eq(sz.cols, 132);
	/* one dimension alone (command.resize): its own name as the field */
	ck_assert_int_eq(ttysize_dim(json_object_get(v, "rows"), "rows", "rows",
	    &err), 50);
	json_decref(v);
	v = json_integer(0);
	ck_assert_int_eq(ttysize_dim(v, "cols", "cols", &err), 0);
	ck_assert_str_eq(err.field, "cols");
	ck_assert_str_eq(err.message, "cols must be an integer from 1 to 4096");
	json_decref(v);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("params");
	TCase *tc = tcase_create("params");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_params_ok);
	tcase_add_test(tc, test_params_bad);
	tcase_add_test(tc, test_params_none);
	tcase_add_test(tc, test_error);
	tcase_add_test(tc, test_ttysize);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
