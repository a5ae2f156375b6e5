/* test-ratelimit.c: the keyed rate limiter behind rate-limited log lines
 * and host.refused events. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/ratelimit.h"

static char last_key[RATELIMIT_KEY_MAX];
static unsigned long reported, reports;

/* Remember what was reported. */
static void
report(const char *key, unsigned long n, void *arg)
{
	(void)arg;
	snprintf(last_key, sizeof last_key, "%s", key);
	reported += n;
	reports++;
}

/* Reset the report counters. */
static void
reset(void)
{
	last_key[0] = '\0';
	reported = reports = 0;
}

/* The first burst hits pass; the rest are counted and reported once. */
START_TEST(test_burst_then_summary)
{
	struct ratelimit_slot slots[4];
	struct ratelimit rl;
	int i, passed = 0;

	reset();
	ratelimit_init(&rl, slots, 4, 3, 1000);
	for (i = 0; i < 100; i++)
		passed += ratelimit_hit(&rl, "accept failed", 10 + i, report, NULL);
	ck_assert_int_eq(passed, 3);
	ck_assert_int_eq(reports, 0);
	/* the interval has not ended: nothing to report */
	ck_assert_int_eq(ratelimit_expire(&rl, 500, report, NULL), 0);
	ck_assert_int_eq(ratelimit_expire(&rl, 1010, report, NULL), 1);
	ck_assert_int_eq(reports, 1);
	ck_assert_int_eq(reported, 97);
	ck_assert_str_eq(last_key, "accept failed");
	/* a new interval lets a burst through again */
	ck_assert_int_eq(ratelimit_hit(&rl, "accept failed", 1020, report,
	    NULL), 1);
	ck_assert_int_eq(ratelimit_expire(&rl, 5000, report, NULL), 0);
	ck_assert_int_eq(reports, 1);
}
END_TEST

/* A hit after the interval reports the previous one first. */
START_TEST(test_report_on_next_interval)
{
	struct ratelimit_slot slots[2];
	struct ratelimit rl;

	reset();
	ratelimit_init(&rl, slots, 2, 1, 100);
	ck_assert_int_eq(ratelimit_hit(&rl, "k", 0, report, NULL), 1);
	ck_assert_int_eq(ratelimit_hit(&rl, "k", 1, report, NULL), 0);
	ck_assert_int_eq(ratelimit_hit(&rl, "k", 2, report, NULL), 0);
	ck_assert_int_eq(ratelimit_hit(&rl, "k", 150, report, NULL), 1);
	ck_assert_int_eq(reported, 2);
	/* keys are separate */
	ck_assert_int_eq(ratelimit_hit(&rl, "other", 151, report, NULL), 1);
	ck_assert_int_eq(ratelimit_hit(&rl, "k", 152, report, NULL), 0);
	/* a clock going back starts a new interval */
	ck_assert_int_eq(ratelimit_hit(&rl, "k", 10, report, NULL), 1);
	ck_assert_int_eq(reported, 3);
}
END_TEST

/* More keys than slots: the least recently used goes, its count reported;
 * memory stays fixed whatever the number of keys. */
START_TEST(test_eviction)
{
	struct ratelimit_slot slots[3];
	struct ratelimit rl;
	char key[32];
	int i;

	reset();
	ratelimit_init(&rl, slots, 3, 1, 1000);
	ck_assert_int_eq(ratelimit_hit(&rl, "a", 0, report, NULL), 1);
	ck_assert_int_eq(ratelimit_hit(&rl, "a", 1, report, NULL), 0);
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof key, "host-%d", i);
		ck_assert_int_eq(ratelimit_hit(&rl, key, 2 + i, report, NULL), 1);
	}
	ck_assert_int_eq(reports, 1);
	ck_assert_str_eq(last_key, "a");
	ck_assert_int_eq(reported, 1);
	/* flush reports and forgets everything */
	ck_assert_int_eq(ratelimit_hit(&rl, "host-999", 2500, report, NULL), 1);
	ck_assert_int_eq(ratelimit_hit(&rl, "host-999", 2501, report, NULL), 0);
	ratelimit_flush(&rl, report, NULL);
	ck_assert_int_eq(reported, 2);
	ck_assert_int_eq(ratelimit_hit(&rl, "host-999", 2502, report, NULL), 1);
}
END_TEST

/* Long keys are cut, never overflow. */
START_TEST(test_long_key)
{
	struct ratelimit_slot slots[1];
	struct ratelimit rl;
	char key[1000];

	reset();
	memset(key, 'x', sizeof key - 1);
	key[sizeof key - 1] = '\0';
	ratelimit_init(&rl, slots, 1, 1, 1000);
	ck_assert_int_eq(ratelimit_hit(&rl, key, 0, report, NULL), 1);
	ck_assert_int_eq(ratelimit_hit(&rl, key, 1, report, NULL), 0);
	ratelimit_flush(&rl, report, NULL);
	ck_assert_int_eq(strlen(last_key), RATELIMIT_KEY_MAX - 1);
}
END_TEST

/* The suite. */
static Suite *
ratelimit_suite(void)
{
	Suite *s = suite_create("ratelimit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_burst_then_summary);
	tcase_add_test(tc, test_report_on_next_interval);
	tcase_add_test(tc, test_eviction);
	tcase_add_test(tc, test_long_key);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ratelimit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
