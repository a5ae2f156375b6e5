/* test-proxy-socks.c: SOCKS5 greeting, CONNECT request parsing and replies. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/proxy/proxy-socks.h"

START_TEST(test_greeting)
{
	const uint8_t g1[] = { 5, 2, 2, 0, 'x' };
	const uint8_t g2[] = { 5, 1, 2 };
	const uint8_t g3[] = { 4, 1, 0 };
	const uint8_t g4[] = { 5, 0 };
	uint8_t out[2];
	size_t used, i;
	int noauth;

	for (i = 0; i < 4; i++)
		ck_assert_int_eq(proxy_socks_greeting(g1, i, &used, &noauth), 0);
	ck_assert_int_eq(proxy_socks_greeting(g1, sizeof g1, &used, &noauth), 1);
	ck_assert_uint_eq(used, 4);
	ck_assert_int_eq(noauth, 1);
	proxy_socks_method_reply(out, noauth);
	ck_assert_int_eq(out[0], 5);
	ck_assert_int_eq(out[1], 0);
	ck_assert_int_eq(proxy_socks_greeting(g2, sizeof g2, &used, &noauth), 1);
	ck_assert_int_eq(noauth, 0);
	proxy_socks_method_reply(out, noauth);
	ck_assert_int_eq(out[1], 0xFF);
	ck_assert_int_eq(proxy_socks_greeting(g3, sizeof g3, &used, &noauth), -1);
	ck_assert_int_eq(proxy_socks_greeting(g4, sizeof g4, &used, &noauth), -1);
}
END_TEST

START_TEST(test_request_kinds)
{
	const uint8_t v4[] = { 5, 1, 0, 1, 93, 184, 216, 34, 0x01, 0xBB };
	const uint8_t v6[] = { 5, 1, 0, 4, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 1, 0, 22 };
	const uint8_t dn[] = { 5, 1, 0, 3, 11, 'E', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c',
	    'o', 'm', 0, 80, 'z' };
	struct proxy_socks_request r;
	size_t used, i;
	int reply;

	for (i = 0; i < sizeof v4; i++)
		ck_assert_int_eq(proxy_socks_request(v4, i, &r, &used, &reply), 0);
	ck_assert_int_eq(proxy_socks_request(v4, sizeof v4, &r, &used, &reply), 1);
	ck_assert_uint_eq(used, sizeof v4);
	ck_assert_str_eq(r.host, "93.184.216.34");
	ck_assert_int_eq(r.port, 443);
	ck_assert_int_eq(r.atyp, 1);
	ck_assert_int_eq(proxy_socks_request(v6, sizeof v6, &r, &used, &reply), 1);
	ck_assert_str_eq(r.host, "2001:db8::1");
	ck_assert_int_eq(r.port, 22);
	for (i = 0; i < sizeof dn - 1; i++)
		ck_assert_int_eq(proxy_socks_request(dn, i, &r, &used, &reply), 0);
	ck_assert_int_eq(proxy_socks_request(dn, sizeof dn, &r, &used, &reply), 1);
	ck_assert_uint_eq(used, sizeof dn - 1);
	ck_assert_str_eq(r.host, "example.com");
	ck_assert_int_eq(r.port, 80);
}
END_TEST

START_TEST(test_request_errors)
{
	const uint8_t bind[] = { 5, 2, 0, 1, 1, 2, 3, 4, 0, 80 };
	const uint8_t udp[] = { 5, 3, 0, 1, 1, 2, 3, 4, 0, 80 };
	const uint8_t atyp[] = { 5, 1, 0, 9, 1, 2, 3, 4, 0, 80 };
	const uint8_t ver[] = { 4, 1, 0, 1, 1, 2, 3, 4, 0, 80 };
	const uint8_t rsv[] = { 5, 1, 1, 1, 1, 2, 3, 4, 0, 80 };
	const uint8_t empty[] = { 5, 1, 0, 3, 0, 0, 80 };
	const uint8_t nul[] = { 5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80 };
	const uint8_t slash[] = { 5, 1, 0, 3, 3, 'a', '/', 'b', 0, 80 };
	const uint8_t port0[] = { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 };
	struct proxy_socks_request r;
	size_t used;
	int reply;

	ck_assert_int_eq(proxy_socks_request(bind, 2, &r, &used, &reply), -1);
	ck_assert_int_eq(reply, PROXY_SOCKS_CMD_UNSUPPORTED);
	ck_assert_int_eq(proxy_socks_request(udp, sizeof udp, &r, &used, &reply), -1);
	ck_assert_int_eq(reply, PROXY_SOCKS_CMD_UNSUPPORTED);
	ck_assert_int_eq(proxy_socks_request(atyp, sizeof atyp, &r, &used, &reply), -1);
	ck_assert_int_eq(reply, PROXY_SOCKS_ATYP_UNSUPPORTED);
	ck_assert_int_eq(proxy_socks_request(ver, 1, &r, &used, &reply), -1);
	ck_assert_int_eq(reply, PROXY_SOCKS_FAILURE);
	ck_assert_int_eq(proxy_socks_request(rsv, sizeof rsv, &r, &used, &reply), -1);
	ck_assert_int_eq(proxy_socks_request(empty, sizeof empty, &r, &used, &reply), -1);
	ck_assert_int_eq(proxy_socks_request(nul, sizeof nul, &r, &used, &reply), -1);
	ck_assert_int_eq(proxy_socks_request(slash, sizeof slash, &r, &used, &reply), -1);
	ck_assert_int_eq(proxy_socks_request(port0, sizeof port0, &r, &used, &reply), -1);
}
END_TEST

START_TEST(test_replies)
{
	static const int codes[] = { PROXY_SOCKS_OK, PROXY_SOCKS_NOT_ALLOWED,
	    PROXY_SOCKS_HOST_UNREACHABLE, PROXY_SOCKS_REFUSED,
	    PROXY_SOCKS_CMD_UNSUPPORTED, PROXY_SOCKS_ATYP_UNSUPPORTED };
	uint8_t out[PROXY_SOCKS_REPLY_LEN];
	size_t i;

	for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		const uint8_t want[] = { 5, (uint8_t)codes[i], 0, 1, 0, 0, 0, 0, 0, 0 };
		ck_assert_uint_eq(proxy_socks_reply(out, codes[i]), 10);
		ck_assert_int_eq(memcmp(out, want, sizeof want), 0);
	}
}
END_TEST

/* The suite. */
static Suite *
proxy_socks_suite(void)
{
	Suite *s = suite_create("proxy-socks");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_greeting);
	tcase_add_test(tc, test_request_kinds);
	tcase_add_test(tc, test_request_errors);
	tcase_add_test(tc, test_replies);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(proxy_socks_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
