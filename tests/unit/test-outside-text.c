/* test-outside-text.c: how the CLI shows what an agent wrote (argv, reasons)
 * to the person deciding: quoted like a shell line, and never able to
 * drive the terminal (controls, C1, bidirectional overrides escaped). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

/* argv text of a JSON array given as a JSON string. */
static char *
argv_text(const char *json)
{
	json_t *a = json_loads(json, 0, NULL);
	char *s;

	ck_assert_ptr_nonnull(a);
	s = outside_text_argv(a);
	json_decref(a);
	return s;
}

/* Plain words stay as they are; others are single-quoted. */
START_TEST(test_argv_quoting)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "[\"dotnet\",\"nuget\",\"push\",\"bin/Lib.1.2.0.nupkg\"]",
		  "dotnet nuget push bin/Lib.1.2.0.nupkg" },
		{ "[\"sh\",\"-c\",\"echo hi > f\"]", "sh -c 'echo hi > f'" },
		{ "[\"echo\",\"\"]", "echo ''" },
		{ "[\"echo\",\"it's\"]", "echo 'it'\\''s'" },
		{ "[\"a=b\",\"--x=1,2\",\"user@host:/p\"]",
		  "a=b --x=1,2 user@host:/p" },
		{ "[\"echo\",\"$HOME\"]", "echo '$HOME'" },
		{ "[\"caf\xc3\xa9\"]", "caf\xc3\xa9" },
		{ "[]", "" },
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		s = argv_text(cases[i].in);
		ck_assert_msg(strcmp(s, cases[i].out) == 0, "%s -> [%s], wanted "
		    "[%s]", cases[i].in, s, cases[i].out);
		free(s);
	}
}
END_TEST

/* Control characters in argv are escaped, quoted or not. */
START_TEST(test_argv_controls)
{
	char *s;

	s = argv_text("[\"echo\",\"a\\u001b[2Jb\"]");
	ck_assert_str_eq(s, "echo 'a\\x1b[2Jb'");
	free(s);
	s = argv_text("[\"x\\ny\"]");
	ck_assert_str_eq(s, "'x\\ny'");
	free(s);
	/* U+202E RIGHT-TO-LEFT OVERRIDE, unquoted and quoted */
	s = argv_text("[\"ab\\u202ecd\"]");
	ck_assert_str_eq(s, "ab\\u202ecd");
	free(s);
	s = argv_text("[\"a b\\u202ec\"]");
	ck_assert_str_eq(s, "'a b\\u202ec'");
	free(s);
}
END_TEST

/* Free text: every C0 control, DEL, C1 controls and direction marks. */
START_TEST(test_text)
{
	char *s;

	s = outside_text_escape("Publishing needs the key\x1b]0;pwned\x07");
	ck_assert_str_eq(s, "Publishing needs the key\\x1b]0;pwned\\x07");
	free(s);
	s = outside_text_escape("tab\there\r\n\x7f");
	ck_assert_str_eq(s, "tab\\there\\r\\n\\x7f");
	free(s);
	s = outside_text_escape("c1 \xc2\x9b" "31m");
	ck_assert_str_eq(s, "c1 \\u009b31m");
	free(s);
	s = outside_text_escape("iso \xe2\x81\xa6x\xe2\x81\xa9 lrm "
	    "\xe2\x80\x8e");
	ck_assert_str_eq(s, "iso \\u2066x\\u2069 lrm "
	    "\\u200e");
	free(s);
	/* Ordinary UTF-8 (an em dash, accents) passes. */
	s = outside_text_escape("caf\xc3\xa9 \xe2\x80\x94 ok");
	ck_assert_str_eq(s, "caf\xc3\xa9 \xe2\x80\x94 ok");
	free(s);
	s = outside_text_escape(NULL);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* What outside_text_print_what prints for a request given as JSON. */
static char *
what_text(const char *json)
{
	json_t *req = json_loads(json, 0, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f, *saved;

	ck_assert_ptr_nonnull(req);
	fflush(stdout);
	ck_assert_ptr_nonnull(f = open_memstream(&buf, &len));
	saved = stdout;
	stdout = f;
	outside_text_print_what(req, "  ");
	stdout = saved;
	fclose(f);
	json_decref(req);
	return buf;
}

/* The prompt shows exactly what runs: the program, its folder, each
 * variable added, the names dropped; marks what the sandbox can write;
 * escapes what the agent wrote. */
START_TEST(test_print_what)
{
	char *t;

	t = what_text("{\"argv\":[\"git\",\"push\"],\"program\":\"/usr/bin/git\","
	    "\"program_writable\":false,\"cwd\":\"/p\",\"cwd_writable\":false,"
	    "\"env\":{\"TAG\":\"v1\",\"NOTE\":\"a b\\u001b[2J\"},"
	    "\"env_dropped\":[\"LD_PRELOAD\",\"PATH\",\"X\\u001b]0;t\\u0007\"]}");
	ck_assert_msg(strstr(t, "  git push\n") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "    runs /usr/bin/git\n") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "    in /p\n") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "    adds TAG=v1\n") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "    adds 'NOTE=a b\\x1b[2J'\n") != NULL, "%s", t);
	ck_assert_msg(strstr(t, "    drops LD_PRELOAD, PATH, X\\x1b]0;t\\x07 ") !=
	    NULL, "%s", t);
	ck_assert_ptr_null(strchr(t, 0x1b));
	ck_assert_ptr_null(strstr(t, "!!"));
	ck_assert_ptr_null(strstr(t, "can write"));
	/* the facts come after what the request wrote */
	ck_assert(strstr(t, "runs") > strstr(t, "adds"));
	free(t);
	t = what_text("{\"argv\":[\"./x.sh\"],\"program\":\"/p/x.sh\","
	    "\"program_writable\":true,\"cwd\":\"/p\",\"cwd_writable\":true,"
	    "\"env\":{},\"env_dropped\":[]}");
	ck_assert_msg(strstr(t, "!! written by the sandbox: /p/x.sh") != NULL,
	    "%s", t);
	ck_assert_msg(strstr(t, "in /p  (the sandbox can write this folder)") !=
	    NULL, "%s", t);
	ck_assert_ptr_null(strstr(t, "adds"));
	ck_assert_ptr_null(strstr(t, "drops"));
	free(t);
}
END_TEST

/* Times: a record's _ms field in local time, "-" when missing. */
START_TEST(test_time)
{
	json_t *r = json_pack("{s:I}", "t_ms", (json_int_t)86400000LL * 365);
	char buf[32];

	setenv("TZ", "UTC", 1);
	outside_text_time(r, "t_ms", buf, sizeof buf);
	ck_assert_str_eq(buf, "1971-01-01 00:00:00");
	outside_text_time(r, "missing_ms", buf, sizeof buf);
	ck_assert_int_eq(buf[0], '-');
	json_decref(r);
}
END_TEST

static Suite *
outside_text_suite(void)
{
	Suite *s = suite_create("outside-text");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_argv_quoting);
	tcase_add_test(tc, test_argv_controls);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_time);
	tcase_add_test(tc, test_print_what);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(outside_text_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
