/* test-proxy-tunnel.c: the proxy's tunnels end to end, on its own: a
 * CONNECT that reaches the upstream, the relay (bulk both ways, a
 * half-closed client reading slowly), an upstream connect still under way,
 * the connection limit and an upstream that fails. The remote host and the
 * proxy under test are proxy-fixture.h's (a network namespace with a veth
 * pair; skipped, with a message, when not root). */

#include "tests/unit/proxy-fixture.h"

/* CONNECT to an allowed host reaches the upstream's echo service. */
START_TEST(test_connect_allowed)
{
	char buf[4096];
	int fd;

	NEED_NETNS();
	start(PLAN_NET_REGISTRIES, NULL);
	fd = dial(proxy_port);
	send_str(fd, "CONNECT upstream.test:7000 HTTP/1.1\r\nHost: upstream.test:7000\r\n\r\nearly");
	ck_assert_int_eq(read(fd, buf, 39), 39);
	buf[39] = '\0';
	ck_assert_str_eq(buf, "HTTP/1.1 200 Connection established\r\n\r\n");
	ck_assert_int_eq(read(fd, buf, 5), 5);
	ck_assert_int_eq(memcmp(buf, "early", 5), 0);
	send_str(fd, "ping");
	ck_assert_int_eq(read(fd, buf, 4), 4);
	ck_assert_int_eq(memcmp(buf, "ping", 4), 0);
	/* half-close: the echo ends, the tunnel closes */
	shutdown(fd, SHUT_WR);
	ck_assert(closed(fd));
	close(fd);
	ck_assert_int_eq(ref_count, 0);
	stop();
}
END_TEST

/* 8 MiB through a CONNECT tunnel to the echo, both ways at once, with a
 * small buffer limit: every byte comes back in order, then the half-close
 * ends the tunnel. */
START_TEST(test_tunnel_bulk)
{
	struct proxy_limits lim = { .buffer_bytes = 16384 };
	static char out[8 << 20], in[8 << 20];
	size_t sent = 0, got = 0, i;
	char head[64];
	int fd;

	NEED_NETNS();
	for (i = 0; i < sizeof out; i++)
		out[i] = (char)(i * 7 + i / 4096);
	start(PLAN_NET_REGISTRIES, &lim);
	fd = dial(proxy_port);
	send_str(fd, "CONNECT upstream.test:7000 HTTP/1.1\r\n\r\n");
	ck_assert_int_eq(read(fd, head, 39), 39);
	ck_assert_int_eq(memcmp(head, "HTTP/1.1 200 ", 13), 0);
	while (got < sizeof in) {
		struct pollfd pf = { fd, POLLIN | (sent < sizeof out ? POLLOUT : 0), 0 };
		ssize_t n;

		ck_assert_int_gt(poll(&pf, 1, 10000), 0);
		if ((pf.revents & POLLOUT) && sent < sizeof out) {
			n = send(fd, out + sent, sizeof out - sent > 65536 ? 65536 :
			    sizeof out - sent, MSG_DONTWAIT);
			if (n > 0)
				sent += (size_t)n;
			if (sent == sizeof out)
				shutdown(fd, SHUT_WR);
		}
		if (pf.revents & POLLIN) {
			n = recv(fd, in + got, sizeof in - got, MSG_DONTWAIT);
			ck_assert_int_ne(n, 0);
			if (n > 0)
				got += (size_t)n;
		}
	}
	ck_assert_int_eq(memcmp(in, out, sizeof out), 0);
	ck_assert(closed(fd));
	close(fd);
	stop();
}
END_TEST

/* Both directions of a tunnel in turn, each far past the splice threshold,
 * with a client that half-closes, then reads slowly through a small
 * receive buffer (the relay's writes stop short, its reads pause, bytes
 * wait in its buffers): the host gets exactly what was sent (count and
 * hash), the client exactly the host's bytes in order, then the end. With
 * the default buffer limit and a small one. */
START_TEST(test_tunnel_halfclose_slow_reader)
{
	static const size_t up_n = (3 << 20) + 7, down_n = (8 << 20) + 3;
	static char buf[65536];
	size_t lims[2] = { 0, 16384 }, i, j, got;
	int round;

	NEED_NETNS();
	for (round = 0; round < 2; round++) {
		struct proxy_limits lim = { .buffer_bytes = lims[round] };
		struct sockaddr_in sin = { .sin_family = AF_INET,
		    .sin_port = htons((uint16_t)proxy_port) };
		struct timeval tv = { 10, 0 };
		uint32_t h = 2166136261u;
		char head[64], line[64], want[64];
		int fd, small = 4096, n;
		ssize_t r;

		start(PLAN_NET_REGISTRIES, &lim);
		sin.sin_port = htons((uint16_t)proxy_port);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		/* before connect, so the window stays small */
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
		ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof sin), 0);
		n = snprintf(buf, sizeof buf, "CONNECT upstream.test:7001 HTTP/1.1\r\n\r\n%zu\n",
		    down_n);
		send_all(fd, buf, (size_t)n);
		ck_assert_int_eq(read(fd, head, 39), 39);
		ck_assert_int_eq(memcmp(head, "HTTP/1.1 200 ", 13), 0);
		/* up: the host reads until our EOF before it answers */
		for (i = 0; i < up_n; i += j) {
			size_t k = up_n - i < sizeof buf ? up_n - i : sizeof buf;

			for (j = 0; j < k; j++)
				buf[j] = (char)pattern_byte(i + j + 11);
			h = fnv1a(h, buf, k);
			send_all(fd, buf, k);
		}
		ck_assert_int_eq(shutdown(fd, SHUT_WR), 0);
		for (i = 0; i + 1 < sizeof line; i++) {
			ck_assert_int_eq(read(fd, line + i, 1), 1);
			if (line[i] == '\n')
				break;
		}
		line[i + 1] = '\0';
		snprintf(want, sizeof want, "%zu %08x\n", up_n, (unsigned)h);
		ck_assert_str_eq(line, want);
		/* down: small reads, a pause now and then */
		for (got = 0; got < down_n; got += (size_t)r) {
			r = read(fd, buf, 1500);
			ck_assert_int_gt(r, 0);
			for (j = 0; j < (size_t)r; j++)
				if ((unsigned char)buf[j] != pattern_byte(got + j))
					ck_abort_msg("byte %zu differs", got + j);
			if ((got / 1500) % 200 == 0)
				usleep(2000);
		}
		ck_assert_int_eq(got, down_n);
		ck_assert(closed(fd));
		close(fd);
		stop();
	}
}
END_TEST

/* An upstream connect still under way when connect() returns. To an
 * address on the veth's network that nobody holds: the connect timeout
 * answers 504; with the default timeout, its failure (no neighbour
 * answers) moves on to the next address, which takes the tunnel and the
 * early bytes. To a host whose queue is full (port 7002, a connection of
 * ours waiting in it): the SYN sent again gets through, and the tunnel
 * works. */
START_TEST(test_connect_pending)
{
	struct proxy_limits lim = { .connect_timeout_ms = 500 };
	struct timeval tv = { 30, 0 };
	char buf[4096];
	int fd;

	NEED_NETNS();
	start(PLAN_NET_REGISTRIES, &lim);
	ask("CONNECT silent.test:7000 HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 504 ") == buf, "%s", buf);
	stop();
	start(PLAN_NET_REGISTRIES, NULL);
	fd = dial(proxy_port);
	/* the neighbour lookup gives up after a few seconds: no deadline
	 * that a slow machine could miss */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	send_str(fd, "CONNECT silent.test:7000 HTTP/1.1\r\n\r\nafter");
	ck_assert_int_eq(read(fd, buf, 39), 39);
	ck_assert_int_eq(memcmp(buf, "HTTP/1.1 200 ", 13), 0);
	ck_assert_int_eq(read(fd, buf, 5), 5);
	ck_assert_int_eq(memcmp(buf, "after", 5), 0);
	close(fd);
	/* the queue: ours first, then the proxy's SYN finds it full */
	{
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(7002) };
		int q = socket(AF_INET, SOCK_STREAM, 0);

		inet_pton(AF_INET, up_ip, &sin.sin_addr);
		ck_assert_int_eq(connect(q, (struct sockaddr *)&sin, sizeof sin), 0);
		fd = dial(proxy_port);
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		send_str(fd, "CONNECT upstream.test:7002 HTTP/1.1\r\n\r\nlate");
		ck_assert_int_eq(read(fd, buf, 39), 39);
		ck_assert_int_eq(memcmp(buf, "HTTP/1.1 200 ", 13), 0);
		ck_assert_int_eq(read(fd, buf, 4), 4);
		ck_assert_int_eq(memcmp(buf, "late", 4), 0);
		close(fd);
		close(q);
	}
	stop();
}
END_TEST

/* The per-proxy connection cap: further connections are closed at once. */
START_TEST(test_conn_limit)
{
	struct proxy_limits lim = { .max_conns = 2 };
	int a, b, c;

	start(PLAN_NET_REGISTRIES, &lim);
	a = dial(proxy_port);
	b = dial(proxy_port);
	usleep(100000);
	c = dial(proxy_port);
	ck_assert(closed(c));
	send_str(a, "GET http://denied.test/ HTTP/1.1\r\n\r\n");
	ck_assert(closed(a));
	close(a);
	close(b);
	close(c);
	stop();
}
END_TEST

/* An upstream that answers with something other than HTTP: 502. */
START_TEST(test_bad_upstream)
{
	char buf[4096];

	NEED_NETNS();
	start(PLAN_NET_REGISTRIES, NULL);
	/* the echo service sends the request back: not a status line */
	ask("GET http://upstream.test:7000/ HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 502 Bad Gateway\r\n") == buf, "%s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "malformed response"));
	/* nothing listens on port 9: connection refused, 502 */
	ask("GET http://upstream.test:9/ HTTP/1.1\r\n\r\n", buf, sizeof buf);
	ck_assert_msg(strstr(buf, "HTTP/1.1 502 Bad Gateway\r\n") == buf, "%s", buf);
	stop();
}
END_TEST

/* The suite. */
static Suite *
proxy_tunnel_suite(void)
{
	Suite *s = suite_create("proxy-tunnel");
	TCase *tc = tcase_create("e2e");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_connect_allowed);
	tcase_add_test(tc, test_tunnel_bulk);
	tcase_add_test(tc, test_tunnel_halfclose_slow_reader);
	tcase_add_test(tc, test_connect_pending);
	tcase_add_test(tc, test_conn_limit);
	tcase_add_test(tc, test_bad_upstream);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return fixture_run(proxy_tunnel_suite(), "test-proxy-tunnel");
}
