/* test-sbpl.c: the Seatbelt profile text rendered from a plan. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/render-sbpl.h"

/* A small hand-made plan. */
static struct plan *
small_plan(void)
{
	static struct plan_mount mounts[] = {
		{ PLAN_MOUNT_RO_BIND, "/usr", "/usr", 1, 0, 1, 0, 0, PLAN_RULE_SYSTEM },
		{ PLAN_MOUNT_RO_BIND, "/etc", "/etc", 1, 0, 1, 0, 0, PLAN_RULE_SYSTEM },
		{ PLAN_MOUNT_TMPFS, NULL, "/tmp", 0, 0, 1, 01777, 0, PLAN_RULE_TMP },
		{ PLAN_MOUNT_TMPFS, NULL, "/Users/u", 0, 0, 1, 0755, 0, PLAN_RULE_HOME },
		{ PLAN_MOUNT_RW_BIND, "/Users/u/.cache", "/Users/u/.cache", 1, 0, 1, 0, 0, PLAN_RULE_CACHES },
		{ PLAN_MOUNT_RW_BIND, "/Users/u/proj", "/Users/u/proj", 0, 0, 1, 0, 0, PLAN_RULE_PROJECT },
		{ PLAN_MOUNT_RO_BIND, "/Users/u/proj/.git/hooks", "/Users/u/proj/.git/hooks", 0, 0, 1, 0, 0, PLAN_RULE_RUNS_LATER },
		{ PLAN_MOUNT_RO_BIND, "/Users/u/proj/.envrc", "/Users/u/proj/.envrc", 0, 1, 0, 0, 0, PLAN_RULE_RUNS_LATER },
		{ PLAN_MOUNT_HIDE_FILE, NULL, "/Users/u/.cache/huggingface/token", 0, 0, 0, 0, 0, PLAN_RULE_CREDENTIALS },
	};
	static struct plan_path_rule rules[] = {
		{ "/Users/u/.ssh", PLAN_ACCESS_HIDDEN, PLAN_RULE_CREDENTIALS },
		{ "/Users/u/Library/Application Support/sbox", PLAN_ACCESS_HIDDEN, PLAN_RULE_SBOX },
	};
	static int ports[] = { 5432 };
	struct plan *p = calloc(1, sizeof *p);

	p->sandboxed = 1;
	p->mounts = mounts;
	p->n_mounts = sizeof mounts / sizeof mounts[0];
	p->rules = rules;
	p->n_rules = 2;
	p->net.local_ports = ports;
	p->net.n_local_ports = 1;
	return p;
}

/* The profile denies by default, grants, then denies the protected paths. */
START_TEST(test_text)
{
	struct plan *p = small_plan();
	sbox_error err;
	char *s, *grant, *deny;

	s = render_sbpl(p, 41234, &err);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(strstr(s, "(version 1)\n(deny default)\n"));
	ck_assert_ptr_nonnull(strstr(s, "(allow file-read* (subpath \"/usr\"))"));
	ck_assert_ptr_nonnull(strstr(s, "(allow file-read* (subpath \"/private/etc\"))"));
	ck_assert_ptr_nonnull(strstr(s, "(allow file-read* file-write* (subpath \"/private/tmp\"))"));
	grant = strstr(s, "(allow file-read* file-write* (subpath \"/Users/u/proj\"))");
	ck_assert_ptr_nonnull(grant);
	deny = strstr(s, "(deny file-write* (subpath \"/Users/u/proj/.git/hooks\"))");
	ck_assert_ptr_nonnull(deny);
	ck_assert(deny > grant);
	ck_assert_ptr_nonnull(strstr(s, "(deny file-write* (subpath \"/Users/u/proj/.envrc\"))"));
	ck_assert_ptr_nonnull(strstr(s,
	    "(deny file-read* file-write* (literal \"/Users/u/.cache/huggingface/token\"))"));
	ck_assert_ptr_nonnull(strstr(s, "(deny file-read* file-write* (subpath \"/Users/u/.ssh\"))"));
	ck_assert_ptr_nonnull(strstr(s,
	    "(deny file-read* file-write* (subpath \"/Users/u/Library/Application Support/sbox\"))"));
	/* the home folder itself is never granted */
	ck_assert_ptr_null(strstr(s, "(subpath \"/Users/u\")"));
	/* network: proxy and local ports only */
	ck_assert_ptr_nonnull(strstr(s, "(deny network*)"));
	ck_assert_ptr_nonnull(strstr(s, "(allow network-outbound (remote ip \"localhost:41234\"))"));
	ck_assert_ptr_nonnull(strstr(s, "(allow network-outbound (remote ip \"localhost:5432\"))"));
	ck_assert_ptr_null(strstr(s, "(allow network-outbound (remote ip \"*"));
	/* Apple Events and LaunchServices */
	ck_assert_ptr_nonnull(strstr(s, "(deny appleevent-send)"));
	ck_assert_ptr_nonnull(strstr(s, "com.apple.coreservices.launchservicesd"));
	free(s);
	free(p);
}
END_TEST

/* Quotes in paths are escaped; an unsandboxed plan has no profile. */
START_TEST(test_quote_and_none)
{
	struct plan_mount m = { PLAN_MOUNT_RW_BIND, "/a\"b\\c", "/a\"b\\c", 0, 0, 1, 0, 0,
	    PLAN_RULE_PROJECT };
	struct plan p = { 0 };
	sbox_error err;
	char *s;

	p.sandboxed = 1;
	p.mounts = &m;
	p.n_mounts = 1;
	s = render_sbpl(&p, 1, &err);
	ck_assert_ptr_nonnull(strstr(s, "(subpath \"/a\\\"b\\\\c\")"));
	free(s);
	p.sandboxed = 0;
	error_clear(&err);
	ck_assert_ptr_null(render_sbpl(&p, 1, &err));
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
}
END_TEST

/* Suite of SBPL tests. */
static Suite *
sbpl_suite(void)
{
	Suite *s = suite_create("sbpl");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_quote_and_none);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(sbpl_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
