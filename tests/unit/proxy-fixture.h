/* proxy-fixture.h: the fixture of test-proxy.c: the remote host
 * (proxy-upstream.h), a fake DNS server that counts
 * queries, the proxy under test with its loop on a thread, and blocking
 * client helpers, and the runner of a suite. Included by test-proxy.c and
 * test-proxy-tunnel.c (a header of static functions, since each
 * tests/unit/test-NAME.c is linked on its own). */
#ifndef SBOX_TEST_PROXY_FIXTURE_H
#define SBOX_TEST_PROXY_FIXTURE_H

/* each suite uses some of these helpers */
#pragma GCC diagnostic ignored "-Wunused-function"

#include <check.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/dns.h>
#include <event2/event.h>

#include "daemon/proxy/proxy.h"

#include "tests/unit/proxy-upstream.h"

/* ---- the proxy under test, with its loop on a thread ---- */

static struct event_base *base;
static struct evdns_base *dns;
static struct proxy *px;
static pthread_t loop_thread;
static int ctl[2];                  /* commands to the loop thread */
static sem_t ctl_done;
static int proxy_port;
static int dns_fd;
static struct event *dns_ev, *ctl_ev;
static volatile int dns_queries, dns_denied_queries;

static char *hosts[] = { "upstream.test", "other.test", "*.allowed.test", "private.test",
	"loop.test", "meta.test", "mapped.test", "cgnat.test", "mixed.test",
	"linklocal.test", "dns-up.test", "dns-private.test", "nat64.test",
	"silent.test", NULL };
static char *private_hosts[] = { "upstream.test", "other.test", "dns-up.test",
	"linklocal.test", "loop.test", "silent.test", NULL };
static char *a_silent[3], *a_up[2], *a_private[] = { "10.0.0.1", NULL }, *a_loop[] = { "127.0.0.1", NULL },
	*a_meta[] = { "169.254.169.254", NULL }, *a_mapped[] = { "::ffff:127.0.0.1", NULL },
	*a_cgnat[] = { "100.64.1.1", NULL }, *a_mixed[] = { "93.184.216.34", "10.1.2.3", NULL },
	*a_ll[] = { "169.254.10.1", NULL }, *a_nat64[] = { "64:ff9b::a9fe:a9fe", NULL };
static struct plan_resolve resolve[] = {
	{ "upstream.test", a_up }, { "other.test", a_up }, { "private.test", a_private },
	{ "loop.test", a_loop }, { "meta.test", a_meta }, { "mapped.test", a_mapped },
	{ "cgnat.test", a_cgnat }, { "mixed.test", a_mixed }, { "linklocal.test", a_ll },
	{ "nat64.test", a_nat64 }, { "silent.test", a_silent },
};
static struct plan_net net;

/* Refusals seen by the callback. */
static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;
static char ref_last[1024];
static int ref_count;

/* The refusal callback: remember the last one. */
static void
on_refusal(const char *session, const char *host, int port, const char *reason,
    const char *rule, void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ref_lock);
	snprintf(ref_last, sizeof ref_last, "%s|%s|%d|%s|%s", session, host, port,
	    reason, rule);
	ref_count++;
	pthread_mutex_unlock(&ref_lock);
}

/* Answer A queries of a few names; AAAA gets no answer; others NXDOMAIN. */
static void
dns_cb(evutil_socket_t fd, short what, void *arg)
{
	uint8_t q[512], r[600];
	struct sockaddr_storage from;
	socklen_t fl = sizeof from;
	ssize_t n = recvfrom(fd, q, sizeof q, 0, (struct sockaddr *)&from, &fl);
	char name[256] = "";
	size_t off = 12, nl = 0, rl;
	int qtype, known = 0;
	uint8_t ip[4];

	(void)what;
	(void)arg;
	if (n < 17)
		return;
	while (off < (size_t)n && q[off] != 0 && nl + q[off] + 2 < sizeof name) {
		if (nl > 0)
			name[nl++] = '.';
		memcpy(name + nl, q + off + 1, q[off]);
		nl += q[off];
		off += q[off] + 1u;
	}
	name[nl] = '\0';
	off++;
	if (off + 4 > (size_t)n)
		return;
	qtype = q[off] << 8 | q[off + 1];
	off += 4;
	__atomic_add_fetch(&dns_queries, 1, __ATOMIC_SEQ_CST);
	if (strcasecmp(name, "denied.test") == 0)
		__atomic_add_fetch(&dns_denied_queries, 1, __ATOMIC_SEQ_CST);
	if (strcasecmp(name, "dns-up.test") == 0 || strcasecmp(name, "denied.test") == 0) {
		inet_pton(AF_INET, up_ip[0] ? up_ip : "10.231.0.2", ip);
		known = 1;
	} else if (strcasecmp(name, "dns-private.test") == 0) {
		inet_pton(AF_INET, "192.168.7.7", ip);
		known = 1;
	}
	memcpy(r, q, off);
	r[2] = 0x81;
	r[3] = known ? 0x80 : 0x83;
	r[6] = r[7] = r[8] = r[9] = r[10] = r[11] = 0;
	rl = off;
	if (known && qtype == 1) {
		static const uint8_t ans[] = { 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4 };
		r[7] = 1;
		memcpy(r + rl, ans, sizeof ans);
		rl += sizeof ans;
		memcpy(r + rl, ip, 4);
		rl += 4;
	}
	sendto(fd, r, rl, 0, (struct sockaddr *)&from, fl);
}

static void (*ctl_fn)(void *);   /* the command for the loop thread */
static void *ctl_arg;

/* Run commands from the test thread on the loop thread. */
static void
ctl_cb(evutil_socket_t fd, short what, void *arg)
{
	char b;

	(void)what;
	(void)arg;
	if (read(fd, &b, 1) != 1)
		return;
	if (ctl_fn == NULL)
		event_base_loopbreak(base);
	else
		ctl_fn(ctl_arg);
	sem_post(&ctl_done);
}

/* Run fn(arg) on the loop thread and wait for it (fn NULL: stop the loop). */
static void
in_loop(void (*fn)(void *), void *arg)
{
	ctl_fn = fn;
	ctl_arg = arg;
	ck_assert_int_eq(write(ctl[1], "x", 1), 1);
	sem_wait(&ctl_done);
}

/* The loop thread. */
static void *
loop_main(void *arg)
{
	(void)arg;
	event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

/* A listening socket on 127.0.0.1 (port 0: any); returns fd, *port. */
static int
listen_local(int port, int *out_port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t sl = sizeof sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	ck_assert_int_eq(listen(fd, 128), 0);
	getsockname(fd, (struct sockaddr *)&sin, &sl);
	*out_port = ntohs(sin.sin_port);
	return fd;
}

/* Start the proxy with a network mode and limits. */
static void
start(enum plan_network mode, const struct proxy_limits *lim)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof sin;
	struct proxy_config cfg;
	sbox_error err;
	char ns[64];
	int lfd;

	a_up[0] = up_ip[0] ? up_ip : "10.231.0.2";
	/* silent.test: first an address where a connect stays under way,
	 * then the upstream */
	a_silent[0] = silent_ip[0] ? silent_ip : "10.231.0.77";
	a_silent[1] = a_up[0];
	net.mode = mode;
	net.hosts = hosts;
	net.private_hosts = private_hosts;
	net.resolve = resolve;
	net.n_resolve = sizeof resolve / sizeof resolve[0];
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	dns_fd = socket(AF_INET, SOCK_DGRAM, 0);
	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	ck_assert_int_eq(bind(dns_fd, (struct sockaddr *)&sin, sizeof sin), 0);
	getsockname(dns_fd, (struct sockaddr *)&sin, &sl);
	dns_ev = event_new(base, dns_fd, EV_READ | EV_PERSIST, dns_cb, NULL);
	event_add(dns_ev, NULL);
	dns = evdns_base_new(base, 0);
	snprintf(ns, sizeof ns, "127.0.0.1:%d", ntohs(sin.sin_port));
	ck_assert_int_eq(evdns_base_nameserver_ip_add(dns, ns), 0);
	ck_assert_int_eq(pipe(ctl), 0);
	sem_init(&ctl_done, 0, 0);
	ctl_ev = event_new(base, ctl[0], EV_READ | EV_PERSIST, ctl_cb, NULL);
	event_add(ctl_ev, NULL);
	lfd = listen_local(0, &proxy_port);
	memset(&cfg, 0, sizeof cfg);
	cfg.base = base;
	cfg.dns = dns;
	cfg.listen_fds = &lfd;
	cfg.n_listen_fds = 1;
	cfg.session = "sess1";
	cfg.profile = "test-profile";
	cfg.net = &net;
	cfg.on_refusal = on_refusal;
	if (lim != NULL)
		cfg.limits = *lim;
	else
		cfg.limits.connect_timeout_ms = 3000;
	px = proxy_new(&cfg, &err);
	ck_assert_msg(px != NULL, "proxy_new: %s", err.message);
	ref_count = 0;
	ref_last[0] = '\0';
	dns_queries = dns_denied_queries = 0;
	ck_assert_int_eq(pthread_create(&loop_thread, NULL, loop_main, NULL), 0);
}

/* Free the proxy from the loop thread. */
static void
stop_proxy(void *arg)
{
	(void)arg;
	proxy_free(px);
	px = NULL;
}

/* Stop the loop thread and free everything. */
static void
stop(void)
{
	in_loop(stop_proxy, NULL);
	in_loop(NULL, NULL);
	pthread_join(loop_thread, NULL);
	evdns_base_free(dns, 0);
	event_free(dns_ev);
	event_free(ctl_ev);
	event_base_free(base);
	close(dns_fd);
	close(ctl[0]);
	close(ctl[1]);
}

/* ---- client helpers (blocking, with a receive timeout) ---- */

/* Connect to port on 127.0.0.1. */
static int
dial(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { 5, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	return fd;
}

/* Send all of s (n bytes). */
static void
send_all(int fd, const void *s, size_t n)
{
	ck_assert_int_eq(write(fd, s, n), (ssize_t)n);
}

/* Send a string. */
static void
send_str(int fd, const char *s)
{
	send_all(fd, s, strlen(s));
}

/* Read one HTTP response (head + Content-Length body) into buf. */
static int
read_response(int fd, char *buf, size_t cap)
{
	size_t n = 0, want = 0;
	char *end = NULL, *cl;

	buf[0] = '\0';
	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, end == NULL ? 1 : (size_t)1);
		if (r <= 0)
			break;
		n += (size_t)r;
		buf[n] = '\0';
		if (end == NULL && (end = strstr(buf, "\r\n\r\n")) != NULL) {
			cl = strcasestr(buf, "\r\nContent-Length: ");
			if (cl == NULL || cl > end)
				continue;  /* read until close */
			want = (size_t)(end + 4 - buf) + strtoul(cl + 18, NULL, 10);
		}
		if (end != NULL && want > 0 && n >= want)
			break;
	}
	return (int)n;
}

/* Read until EOF (or timeout); returns the bytes read. */
static int
read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return (int)n;
}

/* True when the peer has closed fd (read returns 0 within the timeout). */
static int
closed(int fd)
{
	char b[4096];
	ssize_t r;

	while ((r = read(fd, b, sizeof b)) > 0)
		;
	return r == 0;
}

/* One request on a new connection; returns the whole answer. */
static void
ask(const char *req, char *buf, size_t cap)
{
	int fd = dial(proxy_port);

	send_all(fd, req, strlen(req));
	read_all(fd, buf, cap);
	close(fd);
}

/* Run a suite of proxy cases with the remote host up (the main of
 * test-proxy.c and test-proxy-tunnel.c); the exit status. */
static int
fixture_run(Suite *suite, const char *name)
{
	SRunner *sr;
	int failed;

	signal(SIGPIPE, SIG_IGN);
	netns_up();
	if (!netns_ok)
		printf("%s: namespace tests skipped: %s\n", name, netns_why);
	sr = srunner_create(suite);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	netns_down();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
