/* test-approval-limit.c: the per-session budget of run-outside requests
 * (a burst waiting at once, a steady rate per minute, one notice a
 * flood). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/command/approval-limit.h"

/* Five may wait at once; the sixth is refused with the first notice of
 * the flood, the next ones without; one passing again ends the flood. */
START_TEST(test_burst)
{
	unsigned long refused;
	sbox_error err;
	int notice, i;

	for (i = 0; i < 5; i++) {
		error_clear(&err);
		ck_assert_int_eq(approval_limit_check("burst", i, 1000, 5, 20,
		    &notice, &refused, &err), 0);
		ck_assert_int_eq(notice, 0);
	}
	error_clear(&err);
	ck_assert_int_eq(approval_limit_check("burst", 5, 1000, 5, 20, &notice,
	    &refused, &err), -1);
	ck_assert_str_eq(err.name, E_RATE_LIMITED);
	ck_assert_int_eq(notice, 1);
	ck_assert_uint_eq(refused, 1);
	for (i = 0; i < 100; i++) {
		error_clear(&err);
		ck_assert_int_eq(approval_limit_check("burst", 5, 1001, 5, 20,
		    &notice, &refused, &err), -1);
		ck_assert_int_eq(notice, 0);
	}
	ck_assert_uint_eq(refused, 101);
	ck_assert_uint_eq(approval_limit_refused("burst"), 101);
	/* one decided: the next passes (the flood it ends is counted), and a
	 * new flood gets a new notice */
	ck_assert_int_eq(approval_limit_check("burst", 4, 1002, 5, 20, &notice,
	    &refused, &err), 0);
	ck_assert_uint_eq(refused, 101);
	ck_assert_int_eq(approval_limit_check("burst", 5, 1003, 5, 20, &notice,
	    &refused, &err), -1);
	ck_assert_int_eq(notice, 1);
}
END_TEST

/* At most per_minute pass in a minute, whatever waits; the next minute
 * lets them through again. Budgets do not mix. */
START_TEST(test_per_minute)
{
	unsigned long refused;
	sbox_error err;
	int notice, i;

	for (i = 0; i < 20; i++)
		ck_assert_int_eq(approval_limit_check("rate", 0, 5000 + i, 5, 20,
		    &notice, &refused, &err), 0);
	error_clear(&err);
	ck_assert_int_eq(approval_limit_check("rate", 0, 6000, 5, 20, &notice,
	    &refused, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "per_minute"));
	ck_assert_int_eq(approval_limit_check("other", 0, 6000, 5, 20, &notice,
	    &refused, &err), 0);
	ck_assert_int_eq(approval_limit_check("rate", 0, 5000 + 60000, 5, 20,
	    &notice, &refused, &err), 0);
	/* a clock that goes back starts a new minute, never a stuck one */
	ck_assert_int_eq(approval_limit_check("rate", 0, 10, 5, 20, &notice,
	    &refused, &err), 0);
}
END_TEST

/* Many budgets: the table is bounded and reuses the oldest. */
START_TEST(test_bounded)
{
	unsigned long refused;
	sbox_error err;
	char key[32];
	int notice, i;

	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof key, "s%d", i);
		ck_assert_int_eq(approval_limit_check(key, 0, 20000 + i, 5, 20,
		    &notice, &refused, &err), 0);
	}
}
END_TEST

static Suite *
approval_limit_suite(void)
{
	Suite *s = suite_create("approval-limit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_burst);
	tcase_add_test(tc, test_per_minute);
	tcase_add_test(tc, test_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(approval_limit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
