/* test-text.c: client/text.c, the one way the CLI prints text a sandbox or
 * a client chose. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

/* Check that s comes out as want. */
static void
expect(const char *s, const char *want)
{
	char *t = text_safe(s);

	ck_assert_str_eq(t, want);
	free(t);
}

START_TEST(test_controls_and_sequences)
{
	expect("title\x1b]52;c;cHduZWQ=\x07", "title\\x1b]52;c;cHduZWQ=\\x07");
	expect("\x1b]0;pwned\x1b\\", "\\x1b]0;pwned\\x1b\\");
	expect("clear\x1b[2J\x1b[H", "clear\\x1b[2J\\x1b[H");
	expect("a\nb\tc\rd\x7f\x01", "a\\nb\\tc\\rd\\x7f\\x01");
	/* C1 as UTF-8 (CSI U+009B, OSC U+009D) and as raw bytes */
	expect("c1 \xc2\x9b" "31m \xc2\x9d" "0;x", "c1 \\u009b31m \\u009d0;x");
	expect("raw \x9b" "31m", "raw \\x9b31m");
}
END_TEST

START_TEST(test_bidi_separators_invisible)
{
	expect("a\xe2\x80\xae" "b", "a\\u202eb");              /* RLO */
	expect("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad",
	    "\\u202a\\u202b\\u202c\\u202d");
	expect("\xe2\x81\xa6i\xe2\x81\xa7j\xe2\x81\xa8k\xe2\x81\xa9",
	    "\\u2066i\\u2067j\\u2068k\\u2069");              /* isolates */
	expect("line\xe2\x80\xa8para\xe2\x80\xa9", "line\\u2028para\\u2029");
	expect("z\xe2\x80\x8bw\xe2\x80\x8cj\xe2\x80\x8dl\xe2\x80\x8er\xe2\x80\x8f",
	    "z\\u200bw\\u200cj\\u200dl\\u200er\\u200f");
	expect("\xef\xbb\xbf" "bom", "\\ufeffbom");
	expect("soft\xc2\xad" "hy", "soft\\u00adhy");
	expect("alm\xd8\x9c", "alm\\u061c");
	expect("tag\xf3\xa0\x80\x81", "tag\\U000e0001");
}
END_TEST

START_TEST(test_invalid_utf8)
{
	expect("\xff\xfe", "\\xff\\xfe");
	expect("over\xc0\xaf", "over\\xc0\\xaf");        /* overlong '/' */
	expect("over\xe0\x80\xaf", "over\\xe0\\x80\\xaf");
	expect("sur\xed\xa0\x80", "sur\\xed\\xa0\\x80");   /* a surrogate */
	expect("big\xf4\x90\x80\x80", "big\\xf4\\x90\\x80\\x80");
	expect("cut\xe2\x80", "cut\\xe2\\x80");
	expect("cont\x80x", "cont\\x80x");
}
END_TEST

START_TEST(test_ordinary_text_passes)
{
	char *t;

	expect("caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
	    "caf\xc3\xa9 \xe2\x80\x94 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
	expect("/home/me/proj (x) [y] \\ ok", "/home/me/proj (x) [y] \\ ok");
	expect(NULL, "");
	ck_assert_ptr_null(text_show(NULL));
	ck_assert_str_eq(text_show("a\x1b"), "a\\x1b");
	/* n bytes: a NUL inside is shown too */
	t = text_safen("a\0b", 3);
	ck_assert_str_eq(t, "a\\x00b");
	free(t);
}
END_TEST

/* The suite. */
static Suite *
text_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_controls_and_sequences);
	tcase_add_test(tc, test_bidi_separators_invisible);
	tcase_add_test(tc, test_invalid_utf8);
	tcase_add_test(tc, test_ordinary_text_passes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(text_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
