/* test-exclude.c: matching command lines against `exclude` patterns (the
 * top-level argv and the programs sbox-init sees at execve) and reading the
 * patterns from the guard spec's JSON. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "policy/exclude.h"

static char *pats[] = { "docker *", "make deploy", "sh -c echo sbox-*",
    "*/deploy.sh *", NULL };

/* argv (NULL-terminated in a fixed array), program, the pattern expected
 * (NULL: no match). */
static const struct {
	const char *argv[6];
	const char *program;
	const char *want;
} cases[] = {
	{ { "docker", "run", "x" }, NULL, "docker *" },
	{ { "docker" }, NULL, "docker *" },		/* "X *" matches X */
	{ { "dockerd" }, NULL, NULL },
	{ { "/usr/bin/docker", "ps" }, NULL, "docker *" },	/* basename */
	{ { "d", "ps" }, "/usr/bin/docker", "docker *" },	/* the file run */
	{ { "docker", "ps" }, "/usr/bin/podman", "docker *" },
	{ { "make", "deploy" }, NULL, "make deploy" },
	{ { "make", "deploy", "now" }, NULL, NULL },
	{ { "make" }, NULL, NULL },
	{ { "sh", "-c", "echo sbox-x; exit 1" }, "/bin/sh", "sh -c echo sbox-*" },
	{ { "sh", "-c", "true; echo sbox-x" }, "/bin/sh", NULL },
	{ { "bash", "/p/deploy.sh", "prod" }, "/bin/bash", "*/deploy.sh *" },
	{ { "" }, NULL, NULL },
};

/* The table of cases. */
START_TEST(test_table)
{
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *got = exclude_match(pats, (char *const *)cases[i].argv,
		    cases[i].program);
		if (cases[i].want == NULL)
			ck_assert_msg(got == NULL, "case %zu matched %s", i, got);
		else
			ck_assert_msg(got != NULL && strcmp(got, cases[i].want) == 0,
			    "case %zu: got %s", i, got ? got : "(none)");
	}
	ck_assert_ptr_null(exclude_match(NULL, (char *const *)cases[0].argv,
	    NULL));
	ck_assert_ptr_null(exclude_match(pats, NULL, NULL));
}
END_TEST

/* A line longer than the cap is matched on its beginning, not dropped. */
START_TEST(test_long_line)
{
	char *big = malloc(EXCLUDE_LINE_MAX * 2);
	char *argv[] = { "docker", big, NULL };

	memset(big, 'a', EXCLUDE_LINE_MAX * 2 - 1);
	big[EXCLUDE_LINE_MAX * 2 - 1] = '\0';
	ck_assert_str_eq(exclude_match(pats, argv, NULL), "docker *");
	free(big);
}
END_TEST

/* Patterns from JSON: absent, valid, and every kind of bad input. */
START_TEST(test_from_json)
{
	sbox_error err = { 0 };
	char **v;
	json_t *j;

	ck_assert_int_eq(exclude_from_json(&v, NULL, &err), 0);
	ck_assert_ptr_null(v);
	j = json_pack("[s,s]", "docker *", "make deploy");
	ck_assert_int_eq(exclude_from_json(&v, j, &err), 0);
	ck_assert_str_eq(v[0], "docker *");
	ck_assert_str_eq(v[1], "make deploy");
	ck_assert_ptr_null(v[2]);
	free(v[0]); free(v[1]); free(v);
	json_decref(j);
	j = json_pack("[s,i]", "x", 3);
	ck_assert_int_eq(exclude_from_json(&v, j, &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
	json_decref(j);
	j = json_pack("[s]", "");
	ck_assert_int_eq(exclude_from_json(&v, j, &err), -1);
	free(v);
	json_decref(j);
	j = json_string("docker *");
	ck_assert_int_eq(exclude_from_json(&v, j, &err), -1);
	json_decref(j);
	j = json_array();
	for (int i = 0; i <= EXCLUDE_MAX; i++)
		json_array_append_new(j, json_string("p"));
	ck_assert_int_eq(exclude_from_json(&v, j, &err), -1);
	json_decref(j);
}
END_TEST

/* Suite of exclusion tests. */
static Suite *
exclude_suite(void)
{
	Suite *s = suite_create("exclude");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_from_json);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(exclude_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
