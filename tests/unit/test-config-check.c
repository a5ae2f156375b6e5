/* test-config-check.c: config_check lists every error of a config file, not
 * only the first (sbox config check). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/config.h"

static char dir[256];
static char path[300];

/* Write text to a fresh config file. */
static void
put(const char *text)
{
	FILE *f;

	snprintf(dir, sizeof dir, "%s/sbox-test-check.XXXXXX",
	    getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' ? getenv("TMPDIR") :
	    "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/config.json", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* Remove the file and its folder. */
static void
drop(void)
{
	unlink(path);
	rmdir(dir);
}

/* Does one error of the list name field? */
static int
has_field(const json_t *errors, const char *field)
{
	json_t *e;
	size_t i;

	json_array_foreach(errors, i, e)
		if (json_is_string(json_object_get(e, "field")) &&
		    strcmp(json_string_value(json_object_get(e, "field")), field) == 0)
			return 1;
	return 0;
}

START_TEST(valid_file_no_error)
{
	json_t *errors = json_array();
	sbox_error err;

	put("{\"sandbox\": {\"all_sessions\": \"strict\"}}");
	error_clear(&err);
	ck_assert_int_eq(config_check(path, "/home/u", errors, &err), 0);
	ck_assert_int_eq(json_array_size(errors), 0);
	json_decref(errors);
	drop();
}
END_TEST

START_TEST(every_error_listed)
{
	json_t *errors = json_array();
	sbox_error err;

	put("{\"bogus\": 1, \"sandbox\": {\"all_sessions\": \"nope\", \"profiles\":"
	    " {\"a\": {\"hosts\": [\"ok.example\", \"bad host\"], \"network\": \"x\"}}},"
	    " \"projects\": {\"/p/a.b\": {\"sandbox\": \"missing\"}}}");
	error_clear(&err);
	ck_assert_int_eq(config_check(path, "/home/u", errors, &err), 5);
	ck_assert(has_field(errors, "bogus"));
	ck_assert(has_field(errors, "sandbox.profiles.a.hosts[1]"));
	ck_assert(has_field(errors, "sandbox.profiles.a.network"));
	ck_assert(has_field(errors, "sandbox.all_sessions"));
	ck_assert_int_eq(json_array_size(errors), 5);
	json_decref(errors);
	drop();
}
END_TEST

START_TEST(broken_json_is_one_error)
{
	json_t *errors = json_array();
	sbox_error err;

	put("{oops");
	error_clear(&err);
	ck_assert_int_eq(config_check(path, "/home/u", errors, &err), 1);
	ck_assert(strstr(json_string_value(json_object_get(json_array_get(errors,
	    0), "message")), "invalid JSON") != NULL);
	json_decref(errors);
	drop();
}
END_TEST

/* The suite. */
static Suite *
config_check_suite(void)
{
	Suite *s = suite_create("config_check");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, valid_file_no_error);
	tcase_add_test(tc, every_error_listed);
	tcase_add_test(tc, broken_json_is_one_error);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner *sr = srunner_create(config_check_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
