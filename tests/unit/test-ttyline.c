/* test-ttyline.c: following whether the line a command's terminal is
 * writing holds text (where a line of sbox's own may start): newlines end
 * a line, escape sequences and '\r' write none, across chunks too. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/command/ttyline.h"

/* Feed s to t; whether its line holds text then. */
static int
midline(struct ttyline *t, const char *s)
{
	ttyline_feed(t, s, strlen(s));
	return t->midline;
}

/* Text, then a newline, then text again. */
START_TEST(test_text_and_newlines)
{
	struct ttyline t = { 0 };

	ck_assert_int_eq(midline(&t, ""), 0);
	ck_assert_int_eq(midline(&t, "$ "), 1);
	ck_assert_int_eq(midline(&t, "cat x\r\n"), 0);
	ck_assert_int_eq(midline(&t, "cat: x: No such file"), 1);
	ck_assert_int_eq(midline(&t, "\n"), 0);
	/* UTF-8 is text */
	ck_assert_int_eq(midline(&t, "\xc3\xa9"), 1);
}
END_TEST

/* A shell's bracketed-paste switch and '\r' after a newline write none;
 * a title (OSC ... BEL or ESC \) neither; a carriage return after text
 * leaves the text on the line. */
START_TEST(test_escapes_write_nothing)
{
	struct ttyline t = { 0 };

	ck_assert_int_eq(midline(&t, "exit\r\n\x1b[?2004l\r"), 0);
	ck_assert_int_eq(midline(&t, "\x1b]0;user@host: ~\x07"), 0);
	ck_assert_int_eq(midline(&t, "\x1b]2;title\x1b\\"), 0);
	ck_assert_int_eq(midline(&t, "\x1b" "7\x1b" "8\x1b[1;31m\x1b[0m"), 0);
	ck_assert_int_eq(midline(&t, "50%\r"), 1);
	ck_assert_int_eq(midline(&t, "\r\n"), 0);
}
END_TEST

/* An escape sequence split between chunks is still one sequence. */
START_TEST(test_split_sequences)
{
	struct ttyline t = { 0 };

	ck_assert_int_eq(midline(&t, "\x1b"), 0);
	ck_assert_int_eq(midline(&t, "[?20"), 0);
	ck_assert_int_eq(midline(&t, "04h"), 0);
	ck_assert_int_eq(midline(&t, "\x1b]0;ti"), 0);
	ck_assert_int_eq(midline(&t, "tle"), 0);
	ck_assert_int_eq(midline(&t, "\x07P> "), 1);
}
END_TEST

/* The suite. */
static Suite *
ttyline_suite(void)
{
	Suite *s = suite_create("ttyline");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_text_and_newlines);
	tcase_add_test(tc, test_escapes_write_nothing);
	tcase_add_test(tc, test_split_sequences);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ttyline_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
