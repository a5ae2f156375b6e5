/* test-ttyfilter.c: client/ttyfilter.c, the filter of sequences that act on
 * the person's machine (clipboard, titles, notifications, file transfer,
 * window operations), whole and split at every byte. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/ttyfilter.h"

/* Run in through a filter in pieces of at most step bytes (0: whole);
 * the output in out (NUL-terminated), its length returned. */
static size_t
filter(const char *in, size_t len, size_t step, char *out)
{
	struct ttyfilter f;
	size_t i = 0, o = 0, k;

	ttyfilter_init(&f);
	while (i < len) {
		k = step == 0 || len - i < step ? len - i : step;
		o += ttyfilter_run(&f, (const unsigned char *)in + i, k,
		    (unsigned char *)out + o);
		i += k;
	}
	o += ttyfilter_flush(&f, (unsigned char *)out + o);
	out[o] = '\0';
	return o;
}

/* in gives want, whole and split at every size of piece. */
static void
expect(const char *in, const char *want)
{
	char out[4096];
	size_t len = strlen(in), step;

	for (step = 0; step <= len; step++) {
		filter(in, len, step, out);
		ck_assert_msg(strcmp(out, want) == 0, "step %zu: \"%s\" gave "
		    "\"%s\", not \"%s\"", step, in, out, want);
	}
}

START_TEST(test_clipboard_dropped)
{
	expect("a\x1b]52;c;cHduZWQ=\x07" "b", "ab");
	expect("a\x1b]52;c;cHduZWQ=\x1b\\b", "ab");
	expect("a\xc2\x9d" "52;c;eA==\xc2\x9c" "b", "ab");
	expect("a\x1b]52;p;?\x07" "b", "ab");          /* a query too */
	expect("\x1b]052;c;eA==\x07", "");             /* as a terminal reads */
}
END_TEST

START_TEST(test_titles_dropped)
{
	expect("x\x1b]0;pwned\x07y", "xy");
	expect("x\x1b]1;icon\x1b\\y", "xy");
	expect("x\x1b]2;title\x07y", "xy");
	expect("x\x1b];empty\x07y", "xy");               /* no number: 0 */
	expect("x\x1bkscreen title\x1b\\y", "xy");        /* screen's */
	/* cut short by another sequence, which stays */
	expect("x\x1b]2;t\x1b[1my", "x\x1b[1my");
	expect("x\x1b]2;t\x18y", "xy");
}
END_TEST

START_TEST(test_others_pass)
{
	const char *keep[] = {
		"plain text \xc3\xa9\xe2\x80\x9d \xf0\x9f\x98\x80 ok\r\n",
		"\x1b[1;31mred\x1b[0m \x1b[2J\x1b[H\x1b" "7\x1b" "8",
		"\x1b]8;;https://example.test/\x1b\\link\x1b]8;;\x1b\\",
		"\x1b]4;1;rgb:ff/00/00\x07\x1b]10;?\x07",
		"\x1b]5;x\x07\x1b]22;x\x07\x1b]112\x07\x1b]19;?\x07",
		"\x1b]133;A\x07\x1b]104\x07\x1b]11;?\x1b\\",
		"\x1bP+q544e\x1b\\",
		"\x1bPq#0;2;0;0;0#0~~@@vv\x1b\\",           /* sixel */
		"\x1b_Ga=T,f=100;AAAA\x1b\\",                /* kitty picture */
		"\xc2\xa0nbsp \xc2\x9c c1 st alone",
		"\x1b[38;2;255;128;0;48;2;10;20;30;1;3;4mtrue colour\x1b[m",
		"\x1b[10;20H\x1b[2A\x1b[3C\x1b[?25l\x1b[?1049h\x1b[K",
		"\xc2\x9b" "1mC1 CSI\xc2\x9b" "0m",
		"\x1b[18t\x1b[14t\x1b[16t\x1b[22;0t\x1b[23;0t\x1b[11t",
		"\x1b[>4;1m\x1b[?2004h\x1b[>0t",
		"\x1b]P0000000\x1b]Rtext after the console palette",
	};
	size_t i;

	for (i = 0; i < sizeof keep / sizeof keep[0]; i++)
		expect(keep[i], keep[i]);
}
END_TEST

START_TEST(test_machine_sequences_dropped)
{
	/* each OSC that acts on the person's machine, with BEL and ST */
	static const char *const nums[] = { "3", "7", "9", "20", "46", "50",
	    "51", "99", "633", "710", "777", "1337", "5113", "5522",
	    "0000052", "1234567",
	    /* an allow list: numbers no terminal here acts on yet go too */
	    "520", "6", "21", "107", "120", "134", "9999" };
	char in[128];
	size_t i;

	for (i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		snprintf(in, sizeof in, "a\x1b]%s;x=y;eA==\x07" "b", nums[i]);
		expect(in, "ab");
		snprintf(in, sizeof in, "a\xc2\x9d%s;x\x1b\\b", nums[i]);
		expect(in, "ab");
	}
	expect("a\x1b]1337;File=name=eA==;inline=0:AAAA\x07" "b", "ab");
	expect("a\x1b]777;notify;hi;there\x1b\\b", "ab");
	expect("a\x1b]9;4;1;50\x07" "b", "ab");
	/* a control inside the number does not hide it */
	expect("a\x1b]5\n2;c;eA==\x07" "b", "ab");
	/* window operations and title reports */
	expect("a\x1b[21tb\x1b[20t\x1b[2t\x1b[9;1t\x1b[3;0;0t\x1b[8;1;1t"
	    "\x1b[13t\x1b[30tc", "abc");
	expect("a\xc2\x9b" "21tb", "ab");
	expect("a\x1b[0021tb", "ab");
	expect("a\x1b[2\n1tb", "ab");              /* a control inside */
	expect("a\x1b[2\xc3\xa9" "1tb", "ab");        /* not a CSI at all */
	/* a lone ESC or C2 is never left at the end of a write */
	expect("a\x1b\x1b[1mb", "a\x1b[1mb");
	expect("a\x1b\xc2\x9d" "52;x\x07" "b", "ab");
	/* unfinished at the end: dropped */
	expect("end \x1b", "end ");
	expect("end \x1b[21", "end ");
	expect("end \x1b]5", "end ");
	expect("end \xc2", "end ");
}
END_TEST

START_TEST(test_no_lone_start_between_writes)
{
	/* each write of a stream ends on a whole unit: no ESC or C2 that the
	 * next bytes of another stream (stderr, the shell) could complete */
	static const char *const ins[] = { "x\x1b\x1b", "x\x1b\xc2",
	    "x\xc2\x1b", "x\xc2\xc2", "x\x1b", "x\xc2", "x\x1b[2", "x\x1b]5" };
	unsigned char out[64];
	struct ttyfilter f;
	size_t i, o;

	for (i = 0; i < sizeof ins / sizeof ins[0]; i++) {
		ttyfilter_init(&f);
		o = ttyfilter_run(&f, (const unsigned char *)ins[i],
		    strlen(ins[i]), out);
		ck_assert_msg(o == 1 && out[0] == 'x', "%zu: %zu bytes", i, o);
	}
}
END_TEST

START_TEST(test_tmux_passthrough)
{
	/* the OSC 52 inside tmux's passthrough (inner ESC doubled) goes */
	const char *in = "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\";
	char out[256];

	filter(in, strlen(in), 0, out);
	ck_assert_str_eq(out, "\x1bPtmux;\x1b\\");
	ck_assert_ptr_null(strstr(out, "52;"));
	ck_assert_ptr_null(strstr(out, "eA=="));
}
END_TEST

START_TEST(test_long_sequence_bounded)
{
	/* a dropped sequence of any length holds nothing */
	static char in[70000];
	char *out = malloc(sizeof in + 64);
	struct ttyfilter f;
	size_t o;

	memset(in, 'A', sizeof in);
	memcpy(in, "\x1b]52;c;", 7);
	ttyfilter_init(&f);
	o = ttyfilter_run(&f, (const unsigned char *)in, sizeof in,
	    (unsigned char *)out);
	ck_assert_uint_eq(o, 0);
	ck_assert_uint_eq(f.nhold, 0);
	o = ttyfilter_run(&f, (const unsigned char *)"\x07ok", 3,
	    (unsigned char *)out);
	ck_assert_uint_eq(o, 2);
	ck_assert(memcmp(out, "ok", 2) == 0);
	free(out);
}
END_TEST

/* The suite. */
static Suite *
ttyfilter_suite(void)
{
	Suite *s = suite_create("ttyfilter");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_clipboard_dropped);
	tcase_add_test(tc, test_titles_dropped);
	tcase_add_test(tc, test_others_pass);
	tcase_add_test(tc, test_machine_sequences_dropped);
	tcase_add_test(tc, test_no_lone_start_between_writes);
	tcase_add_test(tc, test_tmux_passthrough);
	tcase_add_test(tc, test_long_sequence_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ttyfilter_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
