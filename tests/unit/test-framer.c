/* test-framer.c: Check suite for protocol/framer.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/framer.h"

/* Lines split over several feeds come out whole, CR LF tolerated. */
START_TEST(test_framer_split)
{
	struct framer f;
	sbox_error err;
	char *line;
	size_t len;

	framer_init(&f, 100);
	ck_assert_int_eq(framer_feed(&f, "{\"a\":", 5, &err), 0);
	ck_assert_int_eq(framer_next(&f, &line, &len, &err), 0);
	ck_assert_int_eq(framer_feed(&f, "1}\n{\"b\":2}\r\n{", 13, &err), 0);
	ck_assert_int_eq(framer_next(&f, &line, &len, &err), 1);
	ck_assert_str_eq(line, "{\"a\":1}");
	ck_assert_uint_eq(len, 7);
	ck_assert_int_eq(framer_next(&f, &line, &len, &err), 1);
	ck_assert_str_eq(line, "{\"b\":2}");
	ck_assert_int_eq(framer_next(&f, &line, &len, &err), 0);
	ck_assert_uint_eq(framer_pending(&f), 1);
	ck_assert_uint_eq(f.consumed, 17);
	framer_free(&f);
}
END_TEST

/* An over-long line is reported once, dropped, and the next line works;
 * memory stays bounded while it streams in. */
START_TEST(test_framer_too_long)
{
	struct framer f;
	sbox_error err;
	char chunk[64], *line;
	size_t len;
	int i, errors = 0;

	framer_init(&f, 100);
	memset(chunk, 'x', sizeof chunk);
	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(framer_feed(&f, chunk, sizeof chunk, &err), 0);
		ck_assert(f.cap <= 4096);
		while (framer_next(&f, &line, &len, &err) == -1) {
			ck_assert_str_eq(err.name, E_TOO_LARGE);
			errors++;
		}
	}
	ck_assert_int_eq(framer_feed(&f, "tail\nok\n", 8, &err), 0);
	while (framer_next(&f, &line, &len, &err) == -1)
		errors++;
	ck_assert_int_eq(errors, 1);
	ck_assert_str_eq(line, "ok");
	ck_assert_uint_eq(f.consumed, 64000 + 8);
	framer_free(&f);
}
END_TEST

/* A complete over-long line in one feed is reported, then framing goes on. */
START_TEST(test_framer_long_complete)
{
	struct framer f;
	sbox_error err;
	char buf[300], *line;
	size_t len;

	framer_init(&f, 100);
	memset(buf, 'y', 150);
	buf[150] = '\n';
	memcpy(buf + 151, "{}\n", 3);
	ck_assert_int_eq(framer_feed(&f, buf, 154, &err), 0);
	ck_assert_int_eq(framer_next(&f, &line, &len, &err), -1);
	ck_assert_str_eq(err.name, E_TOO_LARGE);
	ck_assert_int_eq(framer_next(&f, &line, &len, &err), 1);
	ck_assert_str_eq(line, "{}");
	framer_free(&f);
}
END_TEST

/* A line of exactly the maximum length is accepted. */
START_TEST(test_framer_exact_max)
{
	struct framer f;
	sbox_error err;
	char buf[102], *line;
	size_t len;

	framer_init(&f, 100);
	memset(buf, 'z', 100);
	buf[100] = '\n';
	ck_assert_int_eq(framer_feed(&f, buf, 101, &err), 0);
	ck_assert_int_eq(framer_next(&f, &line, &len, &err), 1);
	ck_assert_uint_eq(len, 100);
	framer_free(&f);
}
END_TEST

/* Many lines in one feed all come out in order. */
START_TEST(test_framer_many)
{
	struct framer f;
	sbox_error err;
	char *buf, *line, want[16];
	size_t len, off = 0;
	int i;

	framer_init(&f, 100);
	buf = malloc(10000);
	for (i = 0; i < 1000; i++)
		off += (size_t)sprintf(buf + off, "%d\n", i);
	ck_assert_int_eq(framer_feed(&f, buf, off, &err), 0);
	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(framer_next(&f, &line, &len, &err), 1);
		sprintf(want, "%d", i);
		ck_assert_str_eq(line, want);
	}
	ck_assert_int_eq(framer_next(&f, &line, &len, &err), 0);
	free(buf);
	framer_free(&f);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("framer");
	TCase *tc = tcase_create("framer");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_framer_split);
	tcase_add_test(tc, test_framer_too_long);
	tcase_add_test(tc, test_framer_long_complete);
	tcase_add_test(tc, test_framer_exact_max);
	tcase_add_test(tc, test_framer_many);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
