/* test-proxy.c: the proxy end to end, on its own: what it decides (HTTP,
 * SOCKS, refused and non-public names, literals, smuggling, slow and
 * oversized requests, network none, local forwards); test-proxy-tunnel.c
 * has the tunnels and their relay. The test makes its own
 * remote host: a network namespace with a veth pair (10.231.K.0/24, names
 * sboxt-PID / sbtPIDa / sbtPIDb) and an upstream server inside it (HTTP on
 * port 80, echo on port 7000); names point at it through the plan's resolve
 * table and private_hosts. A fake DNS server on 127.0.0.1 counts queries,
 * so the test can tell a refused name was never resolved. No traffic leaves
 * the veth pair and loopback. Tests needing the namespace are skipped, with
 * a message, when not root or when namespaces cannot be made. */

#include "tests/unit/proxy-fixture.h"

/* ---- the cases ---- */

/* Absolute-form HTTP on one kept-alive connection: rewrite, bodies, a
 * second host, then a refused host: every request is checked again. */
START_TEST(test_http_keepalive)
{
	char buf[8192];
	int fd;

	NEED_NETNS();
	start(PLAN_NET_REGISTRIES, NULL);
	fd = dial(proxy_port);
	send_str(fd, "GET http://upstream.test/hello?x=1 HTTP/1.1\r\nHost: upstream.test\r\n"
	    "Proxy-Authorization: Basic eA==\r\n\r\n");
	read_response(fd, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 200 OK") == buf, "%s", buf);
	ck_assert_msg(strstr(buf, "n=1;line=GET /hello?x=1 HTTP/1.1;host=upstream.test;pa=no;") != NULL,
	    "%s", buf);
	send_str(fd, "POST http://upstream.test/p HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
	read_response(fd, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "n=2;line=POST /p HTTP/1.1;") && strstr(buf, "body=hello"), "%s", buf);
	send_str(fd, "POST http://upstream.test/c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "5\r\nworld\r\n0\r\n\r\n");
	read_response(fd, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "n=3;") && strstr(buf, "body=5\r\nworld\r\n0\r\n\r\n"), "%s", buf);
	/* another allowed name: a new upstream connection, Host from the target */
	send_str(fd, "GET http://other.test/o HTTP/1.1\r\n\r\n");
	read_response(fd, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "n=1;line=GET /o HTTP/1.1;host=other.test;") != NULL, "%s", buf);
	/* a redirect is relayed, not followed */
	send_str(fd, "GET http://other.test/redirect HTTP/1.1\r\n\r\n");
	read_response(fd, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 302 Found\r\nLocation: http://denied.test/") == buf, "%s", buf);
	ck_assert_int_eq(dns_denied_queries, 0);
	/* a refused host on the same connection */
	send_str(fd, "GET http://denied.test/ HTTP/1.1\r\n\r\n");
	read_all(fd, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 403 Forbidden\r\n") == buf, "%s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "X-Sbox-Refused: denied.test is not in the allowlist"));
	close(fd);
	ck_assert_int_eq(ref_count, 1);
	ck_assert_int_eq(dns_denied_queries, 0);
	/* a close-delimited response ends the client connection */
	ask("GET http://upstream.test/close HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "\r\n\r\nuntil close") != NULL, "%s", buf);
	stop();
}
END_TEST

/* A bad head after a good response on a kept-alive connection is still
 * answered (400 / 403), not just cut off. */
START_TEST(test_keepalive_then_bad_head)
{
	static const char *bad[] = {
		"POST http://upstream.test/ HTTP/1.1\r\nContent-Length: 1\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET http://upstream.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n",
	};
	static const char *want[] = { "HTTP/1.1 400 Bad Request\r\n",
	    "HTTP/1.1 403 Forbidden\r\nX-Sbox-Refused: " };
	char buf[8192];
	size_t i;
	int fd;

	NEED_NETNS();
	start(PLAN_NET_REGISTRIES, NULL);
	for (i = 0; i < 2; i++) {
		fd = dial(proxy_port);
		send_str(fd, "GET http://upstream.test/one HTTP/1.1\r\n\r\n");
		read_response(fd, buf, sizeof buf);
		ck_assert_msg(strstr(buf, "HTTP/1.1 200 OK") == buf, "%s", buf);
		send_str(fd, bad[i]);
		read_all(fd, buf, sizeof buf);
		ck_assert_msg(strstr(buf, want[i]) == buf, "%zu: %s", i, buf);
		close(fd);
	}
	stop();
}
END_TEST

/* SOCKS5: a domain and the refusals (literal loopback, not allowed, BIND). */
START_TEST(test_socks)
{
	static const uint8_t greet[] = { 5, 1, 0 };
	uint8_t req[64], rep[16];
	int fd;
	size_t n;

	NEED_NETNS();
	start(PLAN_NET_REGISTRIES, NULL);
	fd = dial(proxy_port);
	send_all(fd, greet, 3);
	ck_assert_int_eq(read(fd, rep, 2), 2);
	ck_assert_int_eq(rep[1], 0);
	n = 0;
	req[n++] = 5; req[n++] = 1; req[n++] = 0; req[n++] = 3; req[n++] = 13;
	memcpy(req + n, "upstream.test", 13); n += 13;
	req[n++] = 7000 >> 8; req[n++] = 7000 & 0xff;
	send_all(fd, req, n);
	ck_assert_int_eq(read(fd, rep, 10), 10);
	ck_assert_int_eq(rep[1], 0x00);
	send_str(fd, "socks!");
	ck_assert_int_eq(read(fd, rep, 6), 6);
	ck_assert_int_eq(memcmp(rep, "socks!", 6), 0);
	close(fd);

	/* 127.0.0.1 as an IPv4 address: not allowed */
	fd = dial(proxy_port);
	send_all(fd, greet, 3);
	ck_assert_int_eq(read(fd, rep, 2), 2);
	send_all(fd, (const uint8_t[]){ 5, 1, 0, 1, 127, 0, 0, 1, 0, 80 }, 10);
	ck_assert_int_eq(read(fd, rep, 10), 10);
	ck_assert_int_eq(rep[1], 0x02);
	ck_assert(closed(fd));
	close(fd);

	/* a name outside the allowlist */
	fd = dial(proxy_port);
	send_all(fd, (const uint8_t[]){ 5, 1, 0, 5, 1, 0, 3, 11, 'd', 'e', 'n', 'i', 'e', 'd',
	    '.', 't', 'e', 's', 't', 0, 80 }, 21);
	ck_assert_int_eq(read(fd, rep, 2), 2);
	ck_assert_int_eq(read(fd, rep, 10), 10);
	ck_assert_int_eq(rep[1], 0x02);
	close(fd);
	ck_assert_int_eq(dns_denied_queries, 0);

	/* BIND: command not supported */
	fd = dial(proxy_port);
	send_all(fd, (const uint8_t[]){ 5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 80 }, 13);
	ck_assert_int_eq(read(fd, rep, 2), 2);
	ck_assert_int_eq(read(fd, rep, 10), 10);
	ck_assert_int_eq(rep[1], 0x07);
	close(fd);

	/* no acceptable method */
	fd = dial(proxy_port);
	send_all(fd, (const uint8_t[]){ 5, 1, 2 }, 3);
	ck_assert_int_eq(read(fd, rep, 2), 2);
	ck_assert_int_eq(rep[1], 0xff);
	ck_assert(closed(fd));
	close(fd);
	stop();
}
END_TEST

/* Run proxy_allow_host on the loop thread. */
static void
allow_denied(void *arg)
{
	sbox_error err;

	*(int *)arg = proxy_allow_host(px, "denied.test", &err);
}

/* A refused name is never resolved; allow-host lets it be resolved, and then
 * its (private) address is refused. Also a name that DNS points at a private
 * address, and one allowed by DNS to the namespace host. */
START_TEST(test_refused_not_resolved)
{
	char buf[8192];
	int rc = -1;

	start(PLAN_NET_REGISTRIES, NULL);
	ask("GET http://denied.test/x HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 403 Forbidden") == buf, "%s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "Connection: close\r\n"));
	ck_assert_ptr_nonnull(strstr(buf, "sbox session allow-host sess1 denied.test"));
	ck_assert_int_eq(dns_queries, 0);
	ck_assert_int_eq(ref_count, 1);
	ck_assert_str_eq(ref_last, "sess1|denied.test|80|denied.test is not in the allowlist "
	    "of profile test-profile|" PROXY_RULE_ALLOWLIST);
	ask("CONNECT denied.test:443 HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 403 Forbidden") == buf, "%s", buf);
	ck_assert_int_eq(dns_queries, 0);

	in_loop(allow_denied, &rc);
	ck_assert_int_eq(rc, 0);
	ask("GET http://denied.test/x HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_int_gt(dns_denied_queries, 0);
	ck_assert_msg(strstr(buf, "X-Sbox-Refused: denied.test resolves to a private address")
	    != NULL, "%s", buf);

	ask("GET http://dns-private.test/ HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "X-Sbox-Refused: dns-private.test resolves to a private "
	    "address (192.168.7.7)") != NULL, "%s", buf);
	ck_assert_str_eq(ref_last + strlen(ref_last) - strlen(PROXY_RULE_ADDRESS),
	    PROXY_RULE_ADDRESS);
	if (netns_ok) {
		ask("GET http://dns-up.test/d HTTP/1.1\r\nConnection: close\r\n\r\n", buf,
		    sizeof buf);
		ck_assert_msg(strstr(buf, "line=GET /d HTTP/1.1;host=dns-up.test;") != NULL,
		    "%s", buf);
	} else {
		printf("SKIP dns-up.test part: %s\n", netns_why);
	}
	stop();
}
END_TEST

/* Allowed names that resolve to each kind of non-public address. */
START_TEST(test_nonpublic_names)
{
	static const struct { const char *host, *want; } cases[] = {
		{ "private.test", "private.test resolves to a private address (10.0.0.1)" },
		{ "loop.test", "loop.test resolves to a loopback address (127.0.0.1)" },
		{ "meta.test", "meta.test resolves to a metadata address (169.254.169.254)" },
		{ "mapped.test", "mapped.test resolves to a loopback address (::ffff:127.0.0.1)" },
		{ "cgnat.test", "cgnat.test resolves to a CGNAT address (100.64.1.1)" },
		{ "mixed.test", "mixed.test resolves to a private address (10.1.2.3)" },
		{ "linklocal.test", "linklocal.test resolves to a link-local address" },
		{ "nat64.test", "nat64.test resolves to a metadata address" },
	};
	char buf[8192], req[256], want[300];
	size_t i;

	start(PLAN_NET_REGISTRIES, NULL);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(req, sizeof req, "GET http://%s/ HTTP/1.1\r\n\r\n", cases[i].host);
		ask(req, buf, sizeof buf);
		snprintf(want, sizeof want, "X-Sbox-Refused: %s", cases[i].want);
		ck_assert_msg(strstr(buf, want) != NULL, "%s: %s", cases[i].host, buf);
	}
	ck_assert_int_eq(ref_count, (int)i);
	ck_assert_int_eq(dns_queries, 0);
	stop();
}
END_TEST

/* IP literals in any spelling are classified by the address they parse to. */
START_TEST(test_ip_literals)
{
	static const char *const targets[] = {
		"2130706433:80", "0x7f.1:80", "127.1:80", "0177.0.0.1:80", "127.0.0.1.:80",
		"[::ffff:7f00:1]:80", "[::1]:80", "[::]:80", "0:80", "169.254.169.254:80",
		"0xa9fea9fe:80", "[fd00:ec2::254]:80", "10.0.0.1:80", "192.168.1.1:22",
		"[::ffff:10.0.0.1]:80", "[64:ff9b::7f00:1]:80", "[2002:7f00:1::]:80",
		"224.0.0.1:80", "255.255.255.255:80", "100.64.0.1:80", "198.18.0.1:80",
		"1.2.3.256:80", "08.1.2.3:80",
	};
	char buf[8192], req[256];
	size_t i;

	start(PLAN_NET_INTERNET, NULL);
	for (i = 0; i < sizeof targets / sizeof targets[0]; i++) {
		snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\n\r\n", targets[i]);
		ask(req, buf, sizeof buf);
		ck_assert_msg(strstr(buf, "HTTP/1.1 403 Forbidden\r\nX-Sbox-Refused: ") == buf,
		    "%s: %s", targets[i], buf);
	}
	ask("GET http://0x7f.1:8080/ HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "X-Sbox-Refused: loopback address 127.0.0.1") != NULL, "%s", buf);
	ask("GET http://[::ffff:a9fe:a9fe]/ HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "X-Sbox-Refused: metadata address") != NULL, "%s", buf);
	ck_assert_int_eq(dns_queries, 0);
	stop();
}
END_TEST

/* Host header that disagrees with the target: refused. */
START_TEST(test_host_mismatch)
{
	char buf[8192];

	start(PLAN_NET_REGISTRIES, NULL);
	ask("GET http://upstream.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 403 Forbidden\r\nX-Sbox-Refused: "
	    "Host header does not match the request target\r\n") == buf, "%s", buf);
	ck_assert_ptr_nonnull(strstr(ref_last, PROXY_RULE_HOST_HEADER));
	ask("CONNECT upstream.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 403") == buf, "%s", buf);
	ck_assert_int_eq(ref_count, 2);
	stop();
}
END_TEST

/* Requests that could smuggle: 400 and the connection closes. */
START_TEST(test_smuggling)
{
	static const char *const reqs[] = {
		"POST http://upstream.test/ HTTP/1.1\r\nContent-Length: 4\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"POST http://upstream.test/ HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\nabcd",
		"POST http://upstream.test/ HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
		"POST http://upstream.test/ HTTP/1.1\r\nTransfer-Encoding: chunked, identity\r\n\r\n",
		"GET http://upstream.test/ HTTP/1.1\nHost: upstream.test\n\n",
		"GET http://upstream.test/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n",
		"GET http://upstream.test/ HTTP/1.1\r\nX : a\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: upstream.test\r\n\r\n",
		"POST http://upstream.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n",
	};
	char buf[8192];
	size_t i;

	NEED_NETNS();   /* the last case reaches the upstream before failing */
	start(PLAN_NET_REGISTRIES, NULL);
	for (i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
		ask(reqs[i], buf, sizeof buf);
		ck_assert_msg(strstr(buf, "HTTP/1.1 400 Bad Request\r\n") == buf, "case %zu: %s",
		    i, buf);
		ck_assert_ptr_nonnull(strstr(buf, "Connection: close\r\n"));
	}
	stop();
}
END_TEST

/* Slowloris: a head that never ends, and a silent connection, are closed. */
START_TEST(test_slowloris)
{
	struct proxy_limits lim = { .head_timeout_ms = 300, .connect_timeout_ms = 1000 };
	struct timeval t0, t1;
	char buf[4096];
	int fd, i;

	start(PLAN_NET_REGISTRIES, &lim);
	gettimeofday(&t0, NULL);
	fd = dial(proxy_port);
	send_str(fd, "GET http://upstream.test/ HTTP/1.1\r\n");
	for (i = 0; i < 3; i++) {
		usleep(50000);
		if (write(fd, "X", 1) != 1)
			break;
	}
	read_all(fd, buf, sizeof buf);
	gettimeofday(&t1, NULL);
	ck_assert_msg(strstr(buf, "HTTP/1.1 408") == buf, "%s", buf);
	ck_assert_int_lt((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_usec - t0.tv_usec) / 1000, 3000);
	close(fd);
	fd = dial(proxy_port);
	ck_assert(closed(fd));
	close(fd);
	stop();
}
END_TEST

/* An over-long header: 431, and memory stays bounded. */
START_TEST(test_oversized)
{
	char *req = malloc(70000), buf[4096];
	int fd;

	start(PLAN_NET_REGISTRIES, NULL);
	strcpy(req, "GET http://upstream.test/ HTTP/1.1\r\nX-Big: ");
	memset(req + strlen(req), 'a', 60000);
	req[44 + 60000] = '\0';
	strcat(req, "\r\n\r\n");
	fd = dial(proxy_port);
	(void)!write(fd, req, strlen(req));
	read_all(fd, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 431 ") == buf, "%s", buf);
	close(fd);
	free(req);
	stop();
}
END_TEST

/* network: none refuses everything with the reason. */
START_TEST(test_network_none)
{
	char buf[4096];
	uint8_t rep[16];
	int fd;

	start(PLAN_NET_NONE, NULL);
	ask("GET http://upstream.test/ HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "X-Sbox-Refused: network is off for profile test-profile\r\n")
	    != NULL, "%s", buf);
	fd = dial(proxy_port);
	send_all(fd, (const uint8_t[]){ 5, 1, 0, 5, 1, 0, 1, 8, 8, 8, 8, 0, 53 }, 13);
	ck_assert_int_eq(read(fd, rep, 2), 2);
	ck_assert_int_eq(read(fd, rep, 10), 10);
	ck_assert_int_eq(rep[1], 0x02);
	close(fd);
	ck_assert_int_eq(ref_count, 2);
	ck_assert_ptr_nonnull(strstr(ref_last, "|8.8.8.8|53|network is off"));
	stop();
}
END_TEST

/* Add a local forward on the loop thread. */
struct fwd { int fd, port, rc; };
static void
add_fwd(void *arg)
{
	struct fwd *f = arg;
	sbox_error err;

	f->rc = proxy_add_local_forward(px, f->fd, f->port, &err);
}

/* local_ports: a listener forwards to the same port on host loopback. */
START_TEST(test_local_forward)
{
	struct fwd f;
	int efd, eport, lport, fd;
	pid_t echo;
	char buf[16];

	start(PLAN_NET_NONE, NULL);
	efd = listen_local(0, &eport);
	echo = fork();
	if (echo == 0) {
		int c = accept(efd, NULL, NULL);
		ssize_t r;
		while ((r = read(c, buf, sizeof buf)) > 0)
			if (write(c, buf, (size_t)r) != r)
				break;
		_exit(0);
	}
	close(efd);
	f.fd = listen_local(0, &lport);
	f.port = eport;
	in_loop(add_fwd, &f);
	ck_assert_int_eq(f.rc, 0);
	fd = dial(lport);
	send_str(fd, "local");
	ck_assert_int_eq(read(fd, buf, 5), 5);
	ck_assert_int_eq(memcmp(buf, "local", 5), 0);
	close(fd);
	waitpid(echo, NULL, 0);
	stop();
}
END_TEST

/* A refused request whose client half-closed at once: the whole answer
 * (head and the body its Content-Length gives), then the end, no reset.
 * (A tunnel's client EOF, read before the end, closes without lingering:
 * test_tunnel_bulk and test_connect_allowed read everything, then the end.) */
START_TEST(test_half_closed_request)
{
	char buf[8192], *body, *cl;
	int fd;

	start(PLAN_NET_REGISTRIES, NULL);
	fd = dial(proxy_port);
	send_str(fd, "GET http://denied.test/x HTTP/1.1\r\n\r\n");
	ck_assert_int_eq(shutdown(fd, SHUT_WR), 0);
	read_all(fd, buf, sizeof buf);   /* up to the end; a reset stops it */
	close(fd);
	ck_assert_msg(strstr(buf, "HTTP/1.1 403 Forbidden\r\n") == buf, "%s", buf);
	body = strstr(buf, "\r\n\r\n");
	cl = strstr(buf, "Content-Length: ");
	ck_assert_ptr_nonnull(body);
	ck_assert_ptr_nonnull(cl);
	ck_assert_int_eq((long)strlen(body + 4), strtol(cl + 16, NULL, 10));
	ck_assert_int_eq(ref_count, 1);
	stop();
}
END_TEST

/* The suite. */
static Suite *
proxy_suite(void)
{
	Suite *s = suite_create("proxy");
	TCase *tc = tcase_create("e2e");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_http_keepalive);
	tcase_add_test(tc, test_keepalive_then_bad_head);
	tcase_add_test(tc, test_socks);
	tcase_add_test(tc, test_refused_not_resolved);
	tcase_add_test(tc, test_nonpublic_names);
	tcase_add_test(tc, test_ip_literals);
	tcase_add_test(tc, test_host_mismatch);
	tcase_add_test(tc, test_smuggling);
	tcase_add_test(tc, test_slowloris);
	tcase_add_test(tc, test_oversized);
	tcase_add_test(tc, test_network_none);
	tcase_add_test(tc, test_local_forward);
	tcase_add_test(tc, test_half_closed_request);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return fixture_run(proxy_suite(), "test-proxy");
}
