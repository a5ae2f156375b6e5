/* test-keepfile.c: a kept home file reduced to its allowed keys
 * (policy/keepfile.c), and merged back into the host's. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "policy/keepfile.h"
#include "policy/strv.h"

/* text parsed as JSON (the test fails when it is not). */
static json_t *
j(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, 0, &e);

	ck_assert_msg(v != NULL, "%s: %s", text, e.text);
	return v;
}

START_TEST(test_filter_allows_listed_plain_values)
{
	char *pats[] = { "numStartups", "projects.*.lastCost", "tips",
	    "pluginUsage.*", NULL };
	json_t *doc = j("{\"numStartups\": 3, \"primaryApiKey\": \"k\", "
	    "\"mcpServers\": {\"a\": {\"command\": \"x\"}}, "
	    "\"tips\": {\"t\": 1, \"deep\": {\"x\": 1}}, "
	    "\"pluginUsage\": {\"p\": {\"usageCount\": 2}, \"q\": {\"n\": {}}},"
	    "\"projects\": {\"/p\": {\"lastCost\": 1.5, \"allowedTools\": "
	    "[\"Bash\"]}, \"/q\": {\"allowedTools\": []}, \"/r\": 5}}");
	json_t *out = keepfile_filter(doc, pats);
	json_t *want = j("{\"numStartups\": 3, \"pluginUsage\": {\"p\": "
	    "{\"usageCount\": 2}}, \"projects\": {\"/p\": {\"lastCost\": 1.5}}}");

	ck_assert_msg(json_equal(out, want), "%s", json_dumps(out, 0));
	json_decref(doc);
	json_decref(out);
	json_decref(want);
}
END_TEST

START_TEST(test_filter_of_no_object)
{
	char *pats[] = { "a", NULL };
	json_t *doc = j("[1, 2]");
	json_t *out = keepfile_filter(doc, pats);

	ck_assert(json_is_object(out) && json_object_size(out) == 0);
	json_decref(doc);
	json_decref(out);
}
END_TEST

START_TEST(test_merge_keeps_the_rest)
{
	json_t *host = j("{\"numStartups\": 1, \"mcpServers\": {\"a\": 1}, "
	    "\"projects\": {\"/p\": {\"lastCost\": 1, \"allowedTools\": "
	    "[\"Read\"]}}}");
	json_t *kept = j("{\"numStartups\": 2, \"projects\": {\"/p\": "
	    "{\"lastCost\": 3}, \"/n\": {\"lastCost\": 4}}}");
	json_t *want = j("{\"numStartups\": 2, \"mcpServers\": {\"a\": 1}, "
	    "\"projects\": {\"/p\": {\"lastCost\": 3, \"allowedTools\": "
	    "[\"Read\"]}, \"/n\": {\"lastCost\": 4}}}");

	ck_assert_int_eq(keepfile_merge(host, kept), 1);
	ck_assert_msg(json_equal(host, want), "%s", json_dumps(host, 0));
	ck_assert_int_eq(keepfile_merge(host, kept), 0);
	json_decref(host);
	json_decref(kept);
	json_decref(want);
}
END_TEST

START_TEST(test_changed_since_last_seen)
{
	json_t *before = j("{\"n\": 1, \"u\": \"a\", \"projects\": {\"/p\": "
	    "{\"c\": 1, \"d\": 2}}}");
	json_t *now = j("{\"n\": 1, \"u\": \"b\", \"projects\": {\"/p\": "
	    "{\"c\": 1, \"d\": 3}, \"/q\": {\"c\": 4}}}");
	json_t *want = j("{\"u\": \"b\", \"projects\": {\"/p\": {\"d\": 3}, "
	    "\"/q\": {\"c\": 4}}}");
	json_t *got = keepfile_changed(now, before);
	json_t *all = keepfile_changed(now, NULL);

	ck_assert_msg(json_equal(got, want), "%s", json_dumps(got, 0));
	ck_assert(json_equal(all, now));
	json_decref(got);
	got = keepfile_changed(now, now);
	ck_assert_int_eq((int)json_object_size(got), 0);
	json_decref(got);
	json_decref(all);
	json_decref(before);
	json_decref(now);
	json_decref(want);
}
END_TEST

START_TEST(test_patterns_of_a_file)
{
	char *keep[] = { "/h/.a.json\t", "/h/.a.json\tx", "/h/.a.json\ty.*",
	    "/h/.ab.json\t", "/h/.ab.json\tz", NULL };
	int ok = 1;
	char **p = keepfile_patterns(keep, "/h/.a.json", &ok);

	ck_assert(ok);
	ck_assert_int_eq((int)strv_len(p), 2);
	ck_assert_str_eq(p[0], "x");
	ck_assert_str_eq(p[1], "y.*");
	strv_free(p);
	ck_assert(keepfile_patterns(keep, "/h/.none", &ok) == NULL);
}
END_TEST

/* Suite of kept home files. */
static Suite *
keepfile_suite(void)
{
	Suite *s = suite_create("keepfile");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_filter_allows_listed_plain_values);
	tcase_add_test(tc, test_filter_of_no_object);
	tcase_add_test(tc, test_merge_keeps_the_rest);
	tcase_add_test(tc, test_patterns_of_a_file);
	tcase_add_test(tc, test_changed_since_last_seen);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(keepfile_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
