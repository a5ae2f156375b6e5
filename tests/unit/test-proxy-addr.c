/* test-proxy-addr.c: IP literal spellings and the address classifier. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "daemon/proxy/proxy-addr.h"

/* Spellings and the canonical address they parse to (NULL: a name / -1). */
static const struct {
	const char *in;
	int         rc;
	const char *canon;
} parse_cases[] = {
	{ "127.0.0.1", 1, "127.0.0.1" },
	{ "2130706433", 1, "127.0.0.1" },
	{ "0x7f000001", 1, "127.0.0.1" },
	{ "0X7F000001", 1, "127.0.0.1" },
	{ "0x7f.1", 1, "127.0.0.1" },
	{ "127.1", 1, "127.0.0.1" },
	{ "127.0.1", 1, "127.0.0.1" },
	{ "0177.0.0.1", 1, "127.0.0.1" },
	{ "0177.0.0.01", 1, "127.0.0.1" },
	{ "017700000001", 1, "127.0.0.1" },
	{ "127.0.0.1.", 1, "127.0.0.1" },
	{ "0x7f.0x0.0x0.0x1", 1, "127.0.0.1" },
	{ "0", 1, "0.0.0.0" },
	{ "0x", 1, "0.0.0.0" },
	{ "169.254.43518", 1, "169.254.169.254" },
	{ "2852039166", 1, "169.254.169.254" },
	{ "0xa9fea9fe", 1, "169.254.169.254" },
	{ "10.1", 1, "10.0.0.1" },
	{ "192.168.257", 1, "192.168.1.1" },
	{ "8.8.8.8", 1, "8.8.8.8" },
	{ "4294967295", 1, "255.255.255.255" },
	{ "4294967296", -1, NULL },
	{ "256.0.0.1", -1, NULL },
	{ "1.2.3.4.5", -1, NULL },
	{ "1.2.3.256", -1, NULL },
	{ "1.2.65536", -1, NULL },
	{ "08.0.0.1", -1, NULL },
	{ "0x7g.0.0.1", -1, NULL },      /* last label numeric: must be a literal */
	{ "1..1", -1, NULL },
	{ "example.com", 0, NULL },
	{ "localhost", 0, NULL },
	{ "0x7f.example", 0, NULL },
	{ "example.0x10", -1, NULL },
	{ "example.123", -1, NULL },
	{ "123abc", 0, NULL },
	{ "[::1]", 1, "::1" },
	{ "::1", 1, "::1" },
	{ "[::ffff:7f00:1]", 1, "::ffff:127.0.0.1" },
	{ "::ffff:127.0.0.1", 1, "::ffff:127.0.0.1" },
	{ "[0:0:0:0:0:ffff:7f00:1]", 1, "::ffff:127.0.0.1" },
	{ "[::]", 1, "::" },
	{ "[fe80::1%eth0]", -1, NULL },
	{ "[::1", -1, NULL },
	{ "[]", -1, NULL },
	{ "[example.com]", -1, NULL },
	{ "1:2", -1, NULL },
	{ "[2606:4700::1111]", 1, "2606:4700::1111" },
	{ "", 0, NULL },
};

START_TEST(test_parse_spellings)
{
	size_t i;

	for (i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
		struct proxy_addr a;
		char buf[PROXY_ADDR_STRLEN];
		int rc = proxy_addr_parse(parse_cases[i].in, &a);

		ck_assert_msg(rc == parse_cases[i].rc, "%s: rc %d, want %d",
		    parse_cases[i].in, rc, parse_cases[i].rc);
		if (rc == 1) {
			proxy_addr_format(&a, buf, sizeof buf);
			ck_assert_msg(strcmp(buf, parse_cases[i].canon) == 0,
			    "%s: got %s, want %s", parse_cases[i].in, buf,
			    parse_cases[i].canon);
		}
	}
}
END_TEST

/* Address, expected level, expected reason (NULL for public). */
static const struct {
	const char *addr;
	enum proxy_addr_level level;
	const char *reason;
} class_cases[] = {
	{ "8.8.8.8", PROXY_ADDR_PUBLIC, NULL },
	{ "1.1.1.1", PROXY_ADDR_PUBLIC, NULL },
	{ "93.184.216.34", PROXY_ADDR_PUBLIC, NULL },
	{ "0.0.0.0", PROXY_ADDR_NEVER, "unspecified" },
	{ "0.1.2.3", PROXY_ADDR_NEVER, "this network" },
	{ "10.0.0.1", PROXY_ADDR_PRIVATE, "private" },
	{ "10.255.255.255", PROXY_ADDR_PRIVATE, "private" },
	{ "11.0.0.1", PROXY_ADDR_PUBLIC, NULL },
	{ "100.63.255.255", PROXY_ADDR_PUBLIC, NULL },
	{ "100.64.0.1", PROXY_ADDR_PRIVATE, "CGNAT" },
	{ "100.127.255.255", PROXY_ADDR_PRIVATE, "CGNAT" },
	{ "100.128.0.0", PROXY_ADDR_PUBLIC, NULL },
	{ "100.100.100.200", PROXY_ADDR_NEVER, "metadata" },
	{ "127.0.0.1", PROXY_ADDR_NEVER, "loopback" },
	{ "127.255.255.254", PROXY_ADDR_NEVER, "loopback" },
	{ "169.254.0.1", PROXY_ADDR_NEVER, "link-local" },
	{ "169.254.169.254", PROXY_ADDR_NEVER, "metadata" },
	{ "169.254.170.2", PROXY_ADDR_NEVER, "link-local" },
	{ "172.15.255.255", PROXY_ADDR_PUBLIC, NULL },
	{ "172.16.0.1", PROXY_ADDR_PRIVATE, "private" },
	{ "172.31.255.255", PROXY_ADDR_PRIVATE, "private" },
	{ "172.32.0.0", PROXY_ADDR_PUBLIC, NULL },
	{ "192.0.0.1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "192.0.0.9", PROXY_ADDR_PRIVATE, "reserved" },
	{ "192.0.0.192", PROXY_ADDR_NEVER, "metadata" },
	{ "192.0.1.1", PROXY_ADDR_PUBLIC, NULL },
	{ "192.0.2.1", PROXY_ADDR_PRIVATE, "documentation" },
	{ "192.88.99.1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "192.168.0.1", PROXY_ADDR_PRIVATE, "private" },
	{ "192.169.0.1", PROXY_ADDR_PUBLIC, NULL },
	{ "198.17.255.255", PROXY_ADDR_PUBLIC, NULL },
	{ "198.18.0.1", PROXY_ADDR_PRIVATE, "benchmarking" },
	{ "198.19.255.255", PROXY_ADDR_PRIVATE, "benchmarking" },
	{ "198.20.0.0", PROXY_ADDR_PUBLIC, NULL },
	{ "198.51.100.7", PROXY_ADDR_PRIVATE, "documentation" },
	{ "203.0.113.9", PROXY_ADDR_PRIVATE, "documentation" },
	{ "224.0.0.1", PROXY_ADDR_NEVER, "multicast" },
	{ "239.255.255.250", PROXY_ADDR_NEVER, "multicast" },
	{ "240.0.0.1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "255.255.255.254", PROXY_ADDR_PRIVATE, "reserved" },
	{ "255.255.255.255", PROXY_ADDR_NEVER, "broadcast" },
	{ "223.255.255.255", PROXY_ADDR_PUBLIC, NULL },
	{ "::", PROXY_ADDR_NEVER, "unspecified" },
	{ "::1", PROXY_ADDR_NEVER, "loopback" },
	{ "::ffff:127.0.0.1", PROXY_ADDR_NEVER, "loopback" },
	{ "::ffff:10.1.2.3", PROXY_ADDR_PRIVATE, "private" },
	{ "::ffff:169.254.169.254", PROXY_ADDR_NEVER, "metadata" },
	{ "::ffff:8.8.8.8", PROXY_ADDR_PUBLIC, NULL },
	{ "::127.0.0.1", PROXY_ADDR_NEVER, "loopback" },
	{ "::192.168.1.1", PROXY_ADDR_PRIVATE, "private" },
	{ "::0.0.0.2", PROXY_ADDR_NEVER, "this network" },
	{ "64:ff9b::7f00:1", PROXY_ADDR_NEVER, "loopback" },
	{ "64:ff9b::a9fe:a9fe", PROXY_ADDR_NEVER, "metadata" },
	{ "64:ff9b::808:808", PROXY_ADDR_PUBLIC, NULL },
	{ "64:ff9b:1::1", PROXY_ADDR_PRIVATE, "private" },
	{ "100::1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "2001::1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "2001:1ff::1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "2001:4:112::1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "2001:200::1", PROXY_ADDR_PUBLIC, NULL },
	{ "2001:db8::1", PROXY_ADDR_PRIVATE, "documentation" },
	{ "2001:4860:4860::8888", PROXY_ADDR_PUBLIC, NULL },
	{ "2002:7f00:1::", PROXY_ADDR_NEVER, "loopback" },
	{ "2002:c0a8:101::1", PROXY_ADDR_PRIVATE, "private" },
	{ "2002:808:808::1", PROXY_ADDR_PUBLIC, NULL },
	{ "3fff::1", PROXY_ADDR_PRIVATE, "documentation" },
	{ "3fff:fff::1", PROXY_ADDR_PRIVATE, "documentation" },
	{ "3fff:1000::1", PROXY_ADDR_PUBLIC, NULL },
	{ "5f00::1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "fc00::1", PROXY_ADDR_PRIVATE, "private" },
	{ "fd12:3456::1", PROXY_ADDR_PRIVATE, "private" },
	{ "fd00:ec2::254", PROXY_ADDR_NEVER, "metadata" },
	{ "fe80::1", PROXY_ADDR_NEVER, "link-local" },
	{ "febf::1", PROXY_ADDR_NEVER, "link-local" },
	{ "fec0::1", PROXY_ADDR_PRIVATE, "private" },
	{ "ff02::1", PROXY_ADDR_NEVER, "multicast" },
	{ "ff0e::1", PROXY_ADDR_NEVER, "multicast" },
	{ "4000::1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "1::1", PROXY_ADDR_PRIVATE, "reserved" },
	{ "2606:4700:4700::1111", PROXY_ADDR_PUBLIC, NULL },
	{ "2a00:1450:4001::1", PROXY_ADDR_PUBLIC, NULL },
};

START_TEST(test_classify_table)
{
	size_t i;

	for (i = 0; i < sizeof class_cases / sizeof class_cases[0]; i++) {
		struct proxy_addr a;
		const char *reason = "unset";
		enum proxy_addr_level lv;

		ck_assert_msg(proxy_addr_parse(class_cases[i].addr, &a) == 1,
		    "%s does not parse", class_cases[i].addr);
		lv = proxy_addr_classify(&a, &reason);
		ck_assert_msg(lv == class_cases[i].level, "%s: level %d, want %d",
		    class_cases[i].addr, lv, class_cases[i].level);
		if (class_cases[i].reason == NULL)
			ck_assert_msg(reason == NULL, "%s: reason %s",
			    class_cases[i].addr, reason);
		else
			ck_assert_msg(reason != NULL &&
			    strcmp(reason, class_cases[i].reason) == 0,
			    "%s: reason %s, want %s", class_cases[i].addr,
			    reason ? reason : "(null)", class_cases[i].reason);
	}
}
END_TEST

/* Every spelling of loopback and metadata is refused, even for private_hosts. */
START_TEST(test_refusal_spellings)
{
	static const char *never[] = {
		"2130706433", "0x7f.1", "127.1", "0177.0.0.1", "[::ffff:7f00:1]",
		"[::1]", "::ffff:127.0.0.1", "0", "0x0", "169.254.43518",
		"0xa9.0xfe.0xa9.0xfe", "[::ffff:a9fe:a9fe]", "[fd00:ec2::254]",
		"[64:ff9b::127.0.0.1]", "[2002:7f00:1::1]", "[::127.0.0.1]",
		"255.255.255.255", "0xe0000001",
	};
	size_t i;

	for (i = 0; i < sizeof never / sizeof never[0]; i++) {
		struct proxy_addr a;

		ck_assert_msg(proxy_addr_parse(never[i], &a) == 1, "%s", never[i]);
		ck_assert_msg(proxy_addr_refusal(&a, 0) != NULL, "%s", never[i]);
		ck_assert_msg(proxy_addr_refusal(&a, 1) != NULL,
		    "%s allowed for private_hosts", never[i]);
	}
}
END_TEST

/* private_ok lets private ranges through, never the rest. */
START_TEST(test_refusal_private_ok)
{
	struct proxy_addr a;

	ck_assert_int_eq(proxy_addr_parse("10.231.0.2", &a), 1);
	ck_assert_str_eq(proxy_addr_refusal(&a, 0), "private");
	ck_assert_ptr_null(proxy_addr_refusal(&a, 1));
	ck_assert_int_eq(proxy_addr_parse("fd00::5", &a), 1);
	ck_assert_ptr_null(proxy_addr_refusal(&a, 1));
	ck_assert_int_eq(proxy_addr_parse("8.8.4.4", &a), 1);
	ck_assert_ptr_null(proxy_addr_refusal(&a, 0));
	ck_assert_int_eq(proxy_addr_parse("169.254.1.1", &a), 1);
	ck_assert_str_eq(proxy_addr_refusal(&a, 1), "link-local");
}
END_TEST

/* sockaddr round trip keeps address and port. */
START_TEST(test_sockaddr_roundtrip)
{
	struct proxy_addr a, b;
	struct sockaddr_storage ss;
	socklen_t len;

	ck_assert_int_eq(proxy_addr_parse("[2606:4700::1111]", &a), 1);
	len = proxy_addr_to_sockaddr(&a, 443, &ss);
	ck_assert_uint_eq(len, sizeof(struct sockaddr_in6));
	ck_assert_int_eq(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 443);
	ck_assert_int_eq(proxy_addr_from_sockaddr((struct sockaddr *)&ss, &b), 0);
	ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
	ck_assert_int_eq(proxy_addr_parse("1.2.3.4", &a), 1);
	len = proxy_addr_to_sockaddr(&a, 80, &ss);
	ck_assert_uint_eq(len, sizeof(struct sockaddr_in));
	ck_assert_int_eq(proxy_addr_from_sockaddr((struct sockaddr *)&ss, &b), 0);
	ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
}
END_TEST

/* Build one interface entry from text and a prefix. */
static struct proxy_addr_net
local_net(const char *addr, int prefix)
{
	struct proxy_addr_net e;

	memset(&e, 0, sizeof e);
	ck_assert_int_eq(proxy_addr_parse(addr, &e.addr), 1);
	e.prefix = prefix;
	return e;
}

/* This computer's addresses and its directly attached networks, from a
 * fake interface list. */
START_TEST(test_local_addresses)
{
	struct proxy_addr_net nets[4];
	static const struct {
		const char *addr;
		const char *why;
	} cases[] = {
		{ "198.51.100.7", NULL },                  /* nothing configured yet */
		{ "203.0.113.9", "this computer" },
		{ "203.0.113.10", "a directly attached network" },
		{ "203.0.113.255", "a directly attached network" },
		{ "203.0.114.1", NULL },
		{ "8.8.8.8", NULL },
		{ "44.1.2.3", "this computer" },           /* a /32: only itself */
		{ "44.1.2.4", NULL },
		{ "2001:db8:5::1", "this computer" },
		{ "2001:db8:5::2", "a directly attached network" },
		{ "2001:db8:5:0:ffff::1", "a directly attached network" },
		{ "2001:db8:6::1", NULL },
		{ "::ffff:203.0.113.9", NULL },            /* another family: the
		                                              classifier refuses it */
	};
	struct proxy_addr a;
	const char *why;
	size_t i;

	ck_assert_int_eq(proxy_addr_parse("198.51.100.7", &a), 1);
	ck_assert_ptr_null(proxy_addr_local(&a, NULL, 0));
	nets[0] = local_net("203.0.113.9", 24);
	nets[1] = local_net("44.1.2.3", 32);
	nets[2] = local_net("2001:db8:5::1", 64);
	nets[3] = local_net("127.0.0.1", 8);
	for (i = 1; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_int_eq(proxy_addr_parse(cases[i].addr, &a), 1);
		why = proxy_addr_local(&a, nets, 4);
		if (cases[i].why == NULL)
			ck_assert_msg(why == NULL, "%s: %s", cases[i].addr, why);
		else
			ck_assert_msg(why != NULL && strcmp(why, cases[i].why) == 0,
			    "%s: %s", cases[i].addr, why ? why : "(null)");
	}
	/* a broken prefix counts as the whole address */
	nets[0].prefix = 99;
	ck_assert_int_eq(proxy_addr_parse("203.0.113.10", &a), 1);
	ck_assert_ptr_null(proxy_addr_local(&a, nets, 1));
	ck_assert_int_eq(proxy_addr_parse("203.0.113.9", &a), 1);
	ck_assert_str_eq(proxy_addr_local(&a, nets, 1), "this computer");
}
END_TEST

/* The suite. */
static Suite *
proxy_addr_suite(void)
{
	Suite *s = suite_create("proxy-addr");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse_spellings);
	tcase_add_test(tc, test_classify_table);
	tcase_add_test(tc, test_refusal_spellings);
	tcase_add_test(tc, test_refusal_private_ok);
	tcase_add_test(tc, test_sockaddr_roundtrip);
	tcase_add_test(tc, test_local_addresses);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(proxy_addr_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
