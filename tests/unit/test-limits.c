/* test-limits.c: how sboxd shares its descriptors between host clients,
 * containers and proxied connections. */
#include <check.h>
#include <stdlib.h>

#include "daemon/container/limits.h"

/* What was derived never uses more descriptors than there are. */
static void
fits(long nofile, const struct limits_fds *f)
{
	long used = LIMITS_FIXED_FDS + 2L * f->host_conns +
	    2L * f->proxy_total;

	ck_assert_msg(used <= nofile || nofile < 512, "nofile %ld: %ld used",
	    nofile, used);
	ck_assert_int_le(f->proxy_session, f->proxy_total);
	ck_assert_int_gt(f->proxy_session, 0);
	ck_assert_int_gt(f->host_conns, 0);
}

START_TEST(test_derive)
{
	struct limits_fds f;
	static const long sizes[] = { 256, 1024, 4096, 20000, 65536, 1048576 };
	size_t i;

	/* a usual hard limit: the option's 1024 per session holds */
	limits_derive(20000, 1024, 256, 1024, &f);
	ck_assert_int_eq(f.host_conns, 1024);
	ck_assert_int_eq(f.proxy_session, 1024);
	fits(20000, &f);
	/* the soft default of 1024: one session can take only a share */
	limits_derive(1024, 1024, 256, 1024, &f);
	ck_assert_int_lt(f.proxy_session, 1024 / 2);
	ck_assert_int_le(f.proxy_session * 2, f.proxy_total);
	fits(1024, &f);
	/* --proxy-max-conns stays an upper bound */
	limits_derive(1048576, 1024, 256, 50, &f);
	ck_assert_int_eq(f.proxy_session, 50);
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		limits_derive(sizes[i], 1024, 256, 1048576, &f);
		fits(sizes[i], &f);
	}
	/* nonsense in: something usable out */
	limits_derive(0, 0, 0, 0, &f);
	ck_assert_int_gt(f.proxy_session, 0);
}
END_TEST

/* The suite. */
static Suite *
limits_suite(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_derive);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(limits_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
