/* test-hostpat.c: host pattern parsing and matching (a table of cases). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/hostpat.h"

#define BAD -1

/* pattern, host, port, expected: 1 match, 0 no match, BAD pattern refused */
static const struct {
	const char *pattern;
	const char *host;
	int port;
	int want;
} cases[] = {
	{ "example.com", "example.com", 443, 1 },
	{ "example.com", "EXAMPLE.COM", 443, 1 },
	{ "Example.COM", "example.com", 80, 1 },
	{ "example.com", "example.com.", 443, 1 },
	{ "example.com.", "example.com", 443, 1 },
	{ "example.com", "www.example.com", 443, 0 },
	{ "example.com", "example.com.evil.test", 443, 0 },
	{ "example.com", "evilexample.com", 443, 0 },
	{ "example.com", "example.co", 443, 0 },
	{ "example.com", "", 443, 0 },
	{ "example.com", "example..com", 443, 0 },
	{ "*.example.com", "a.example.com", 443, 1 },
	{ "*.example.com", "a.b.example.com", 443, 1 },
	{ "*.example.com", "A.Example.Com.", 443, 1 },
	{ "*.example.com", "example.com", 443, 0 },
	{ "*.example.com", "badexample.com", 443, 0 },
	{ "*.example.com", ".example.com", 443, 0 },
	{ "*.example.com", "example.com.evil.test", 443, 0 },
	{ "*.example.com", "*.example.com", 443, 0 },
	{ "*.co.uk", "shop.co.uk", 443, 1 },
	{ "example.com:443", "example.com", 443, 1 },
	{ "example.com:443", "example.com", 80, 0 },
	{ "example.com:443", "example.com", 0, 0 },
	{ "example.com", "example.com", 0, 1 },
	{ "*.example.com:8443", "x.example.com", 8443, 1 },
	{ "*.example.com:8443", "x.example.com", 443, 0 },
	{ "192.0.2.1", "192.0.2.1", 443, 1 },
	{ "192.0.2.1", "192.0.2.2", 443, 0 },
	{ "192.0.2.1:22", "192.0.2.1", 22, 1 },
	{ "192.0.2.1:22", "192.0.2.1", 23, 0 },
	{ "192.0.2.1", "3221225985", 443, 0 },
	{ "192.0.2.1", "0xc0000201", 443, 0 },
	{ "192.0.2.1", "192.0.2.1.", 443, 0 },
	{ "[2001:db8::1]", "2001:db8::1", 443, 1 },
	{ "[2001:db8::1]", "[2001:db8::1]", 443, 1 },
	{ "[2001:db8::1]", "2001:DB8:0:0:0:0:0:1", 443, 1 },
	{ "[2001:DB8:0::1]:443", "[2001:db8::1]", 443, 1 },
	{ "[2001:db8::1]:443", "[2001:db8::1]", 80, 0 },
	{ "[2001:db8::1]", "2001:db8::2", 443, 0 },
	{ "[::ffff:192.0.2.1]", "192.0.2.1", 443, 0 },
	{ "192.0.2.1", "::ffff:192.0.2.1", 443, 0 },
	{ "xn--bcher-kva.example", "xn--bcher-kva.example", 443, 1 },
	{ "a-b.example.com", "a-b.example.com", 443, 1 },
	{ "123.example.com", "123.example.com", 443, 1 },
	{ "localhost", "localhost", 443, 1 },
	{ "*.example.com", "b\xc3\xbc" "cher.example.com", 443, 0 },
	/* refused patterns */
	{ "", "x", 443, BAD },
	{ "*", "example.com", 443, BAD },
	{ "*.com", "example.com", 443, BAD },
	{ "*.", "example.com", 443, BAD },
	{ "*example.com", "example.com", 443, BAD },
	{ "**.example.com", "a.example.com", 443, BAD },
	{ "*.*.example.com", "a.b.example.com", 443, BAD },
	{ "a.*.example.com", "a.b.example.com", 443, BAD },
	{ "example.*", "example.com", 443, BAD },
	{ ".example.com", "example.com", 443, BAD },
	{ "example..com", "example.com", 443, BAD },
	{ "example.com..", "example.com", 443, BAD },
	{ "-example.com", "example.com", 443, BAD },
	{ "example-.com", "example.com", 443, BAD },
	{ "exa_mple.com", "exa_mple.com", 443, BAD },
	{ "exa mple.com", "example.com", 443, BAD },
	{ "example.com/path", "example.com", 443, BAD },
	{ "https://example.com", "example.com", 443, BAD },
	{ "user@example.com", "example.com", 443, BAD },
	{ "b\xc3\xbc" "cher.example", "xn--bcher-kva.example", 443, BAD },
	{ "example.com:", "example.com", 443, BAD },
	{ "example.com:0", "example.com", 443, BAD },
	{ "example.com:65536", "example.com", 443, BAD },
	{ "example.com:-1", "example.com", 443, BAD },
	{ "example.com:443x", "example.com", 443, BAD },
	{ "example.com:0443", "example.com", 443, BAD },
	{ "example.com:443:443", "example.com", 443, BAD },
	{ "2001:db8::1", "2001:db8::1", 443, BAD },
	{ "[2001:db8::1", "2001:db8::1", 443, BAD },
	{ "[example.com]", "example.com", 443, BAD },
	{ "[192.0.2.1]", "192.0.2.1", 443, BAD },
	{ "[fe80::1%eth0]", "fe80::1", 443, BAD },
	{ "[2001:db8::1]x", "2001:db8::1", 443, BAD },
	{ "*.192.0.2.1", "a.192.0.2.1", 443, BAD },
	{ "127.1", "127.0.0.1", 443, BAD },
	{ "2130706433", "127.0.0.1", 443, BAD },
	{ "0x7f000001", "127.0.0.1", 443, BAD },
	{ "192.0.2.256", "192.0.2.1", 443, BAD },
	{ "010.0.0.1", "10.0.0.1", 443, BAD },
	{ "example.123", "example.123", 443, BAD },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example",
	    "x", 443, BAD },	/* 64-character label */
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example",
	    443, 1 },	/* 63 is fine */
};

/* Every case of the table behaves as listed. */
START_TEST(test_table)
{
	struct hostpat p;
	sbox_error err;
	size_t i;
	int rc, got;

	ck_assert_uint_ge(sizeof cases / sizeof cases[0], 60);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		error_clear(&err);
		rc = hostpat_parse(cases[i].pattern, &p, &err);
		if (cases[i].want == BAD) {
			ck_assert_msg(rc == -1, "case %zu: \"%s\" should be refused", i,
			    cases[i].pattern);
			ck_assert_str_eq(err.name, E_CONFIG);
			ck_assert_ptr_nonnull(strstr(err.message, "bad host pattern"));
			continue;
		}
		ck_assert_msg(rc == 0, "case %zu: \"%s\" refused: %s", i,
		    cases[i].pattern, err.message);
		got = hostpat_match(&p, cases[i].host, cases[i].port);
		ck_assert_msg(got == cases[i].want, "case %zu: %s vs %s:%d gave %d",
		    i, cases[i].pattern, cases[i].host, cases[i].port, got);
	}
}
END_TEST

/* Names at the length limits: 253 accepted, 254 refused. */
START_TEST(test_name_length)
{
	char name[300];
	size_t i;

	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 */
	memset(name, 'a', sizeof name);
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	ck_assert_int_eq(hostpat_validate(name, NULL), 0);
	name[253] = 'a';
	name[254] = '\0';
	ck_assert_int_eq(hostpat_validate(name, NULL), -1);
	for (i = 0; i < 299; i++)
		name[i] = (i % 2) ? '.' : 'a';
	name[299] = '\0';
	ck_assert_int_eq(hostpat_validate(name, NULL), -1);
}
END_TEST

/* Canonical spellings. */
START_TEST(test_format)
{
	struct hostpat p;
	char buf[300];

	ck_assert_int_eq(hostpat_parse("*.Example.COM.:8443", &p, NULL), 0);
	ck_assert_int_eq(hostpat_format(&p, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "*.example.com:8443");
	ck_assert_int_eq(hostpat_parse("[2001:DB8:0:0::1]", &p, NULL), 0);
	hostpat_format(&p, buf, sizeof buf);
	ck_assert_str_eq(buf, "[2001:db8::1]");
	ck_assert_int_eq(p.is_ip, 6);
	ck_assert_int_eq(hostpat_format(&p, buf, 4), -1);
}
END_TEST

/* Lists match when any entry matches; invalid entries never match. */
START_TEST(test_list)
{
	char *list[] = { "*", "bad..name", "pkgs.example.test", "*.corp.example.test:443", NULL };

	ck_assert_int_eq(hostpat_match_list(list, "pkgs.example.test", 80), 1);
	ck_assert_int_eq(hostpat_match_list(list, "a.corp.example.test", 443), 1);
	ck_assert_int_eq(hostpat_match_list(list, "a.corp.example.test", 80), 0);
	ck_assert_int_eq(hostpat_match_list(list, "anything.test", 80), 0);
	ck_assert_int_eq(hostpat_match_list(NULL, "pkgs.example.test", 80), 0);
}
END_TEST

/* Subsumption, used by narrowing. */
START_TEST(test_subsumes)
{
	ck_assert_int_eq(hostpat_subsumes("*.example.com", "a.example.com"), 1);
	ck_assert_int_eq(hostpat_subsumes("*.example.com", "*.a.example.com"), 1);
	ck_assert_int_eq(hostpat_subsumes("*.example.com", "*.example.com"), 1);
	ck_assert_int_eq(hostpat_subsumes("*.example.com", "example.com"), 0);
	ck_assert_int_eq(hostpat_subsumes("a.example.com", "*.a.example.com"), 0);
	ck_assert_int_eq(hostpat_subsumes("Example.com", "example.com."), 1);
	ck_assert_int_eq(hostpat_subsumes("example.com", "example.com:443"), 1);
	ck_assert_int_eq(hostpat_subsumes("example.com:443", "example.com"), 0);
	ck_assert_int_eq(hostpat_subsumes("example.com:443", "example.com:443"), 1);
	ck_assert_int_eq(hostpat_subsumes("192.0.2.1", "192.0.2.1"), 1);
	ck_assert_int_eq(hostpat_subsumes("*", "example.com"), 0);
}
END_TEST

/* Suite of host pattern tests. */
static Suite *
hostpat_suite(void)
{
	Suite *s = suite_create("hostpat");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_name_length);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_subsumes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(hostpat_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
