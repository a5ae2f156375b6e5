/* test-table.c: the CLI's command table and the check before a command
 * runs: suggestions for typos, --json taken out anywhere before "--",
 * unknown options refused, a command line after ARGV left alone. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"

/* Run table_prepare on a copy of words; returns its answer, the new argc
 * and the --json flag. */
static int
prepare(const char **words, int *argc, char **out, int *json)
{
	struct client_opts o = { 0 };
	int n = 0, rc;

	while (words[n] != NULL) {
		out[n] = (char *)words[n];
		n++;
	}
	out[n] = NULL;
	/* usage errors and help go to stderr/stdout: keep the test output clean */
	fflush(stdout);
	rc = table_prepare(&o, &n, out);
	*argc = n;
	*json = o.json;
	return rc;
}

/* Close words suggest the command; far ones suggest nothing. */
START_TEST(test_suggest)
{
	ck_assert_str_eq(table_suggest(NULL, "sesion"), "session");
	ck_assert_str_eq(table_suggest(NULL, "sandbx"), "sandbox");
	ck_assert_str_eq(table_suggest(NULL, "sess"), "session");
	ck_assert_str_eq(table_suggest("session", "lst"), "list");
	ck_assert_str_eq(table_suggest("session", "exce"), "exec");
	ck_assert_str_eq(table_suggest("command", "wiat"), "wait");
	ck_assert_ptr_null(table_suggest(NULL, "frobnicate"));
	ck_assert_ptr_null(table_suggest("daemon", "xy"));
}
END_TEST

/* Every entry has a usage that starts with its command, and a summary. */
START_TEST(test_table_complete)
{
	const struct client_sub *s;
	char want[64];

	for (s = table_all(); s->cmd != NULL; s++) {
		snprintf(want, sizeof want, "sbox %s", s->cmd);
		ck_assert_msg(strncmp(s->usage, want, strlen(want)) == 0, "%s",
		    s->usage);
		ck_assert(s->summary[0] != '\0');
		ck_assert(table_find(s->cmd, s->sub) == s);
	}
}
END_TEST

/* --json anywhere before "--" is taken out; after it, it stays. */
START_TEST(test_json_anywhere)
{
	const char *w[] = { "session", "exec", "--json", "ID", "--cwd", "x",
	    "--", "sh", "--json", NULL };
	char *out[16];
	int argc, json;

	ck_assert_int_eq(prepare(w, &argc, out, &json), 0);
	ck_assert_int_eq(json, 1);
	ck_assert_int_eq(argc, 8);
	ck_assert_str_eq(out[2], "ID");
	ck_assert_str_eq(out[7], "--json");
}
END_TEST

/* A command line after the positionals is the command's own. */
START_TEST(test_argv_left_alone)
{
	const char *w[] = { "run", "-v", "ls", "--help", "--bogus", "--json",
	    NULL };
	char *out[16];
	int argc, json;

	ck_assert_int_eq(prepare(w, &argc, out, &json), 0);
	ck_assert_int_eq(json, 0);
	ck_assert_int_eq(argc, 6);
}
END_TEST

/* Unknown options, a missing value, a bad short option: usage errors. */
START_TEST(test_option_errors)
{
	const char *a[] = { "run", "--bogus", "--", "true", NULL };
	const char *b[] = { "session", "create", "--project", NULL };
	const char *c[] = { "command", "kill", "1", "-x", NULL };
	const char *d[] = { "session", "lst", NULL };
	const char *ok[] = { "session", "exec", "ID", "--env=A=B", "-d", "--",
	    "x", NULL };
	char *out[16];
	int argc, json;

	ck_assert_int_eq(prepare(a, &argc, out, &json), -1);
	ck_assert_int_eq(prepare(b, &argc, out, &json), -1);
	ck_assert_int_eq(prepare(c, &argc, out, &json), -1);
	ck_assert_int_eq(prepare(d, &argc, out, &json), -1);
	ck_assert_int_eq(prepare(ok, &argc, out, &json), 0);
	ck_assert_int_eq(argc, 7);
}
END_TEST

/* The suite. */
static Suite *
table_suite(void)
{
	Suite *s = suite_create("table");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_suggest);
	tcase_add_test(tc, test_table_complete);
	tcase_add_test(tc, test_json_anywhere);
	tcase_add_test(tc, test_argv_left_alone);
	tcase_add_test(tc, test_option_errors);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner *sr = srunner_create(table_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
