/* proxy-fixture.h: the fixture of test-proxy.c: the remote host (a network
 * namespace, a veth pair, an upstream server), a fake DNS server that counts
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

/* ---- the remote host: a namespace, a veth pair, an upstream server ---- */

static int  netns_ok;            /* the namespace and upstream are up */
static char netns_why[256] = "not set up";
static char netns_name[64], veth_a[16];
static char up_ip[32];           /* 10.231.K.2 */
static char silent_ip[32];       /* 10.231.K.77: on the veth's network, nobody */
static pid_t upstream_pid = -1;

/* Run a shell command quietly; 0 on success. */
static int
sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int
sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	strncat(cmd, " >/dev/null 2>&1", sizeof cmd - strlen(cmd) - 1);
	return system(cmd) == 0 ? 0 : -1;
}

/* Read one request head from fd into buf; returns its length or -1. */
static int
up_read_head(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		if (read(fd, buf + n, 1) != 1)
			return -1;
		n++;
		buf[n] = '\0';
		if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0)
			return (int)n;
	}
	return -1;
}

/* Serve one HTTP connection: each response names the request line, the
 * Host it got, whether Proxy-Authorization reached it, the body, and how
 * many requests this connection has carried (n). */
static void
up_serve_http(int fd)
{
	char head[8192], body[4096], resp[16384], line[1024];
	size_t blen;
	int nreq = 0;

	while (up_read_head(fd, head, sizeof head) > 0) {
		char *h, *cl = strcasestr(head, "\r\nContent-Length: ");
		int n, close_after = strcasestr(head, "\r\nConnection: close") != NULL;

		blen = 0;
		if (cl != NULL) {
			size_t want = strtoul(cl + 18, NULL, 10);
			while (blen < want && blen < sizeof body - 1 &&
			    read(fd, body + blen, 1) == 1)
				blen++;
		} else if (strcasestr(head, "\r\nTransfer-Encoding: chunked") != NULL) {
			while (blen < sizeof body - 1 && read(fd, body + blen, 1) == 1) {
				blen++;
				if (blen >= 5 && memcmp(body + blen - 5, "0\r\n\r\n", 5) == 0)
					break;
			}
		}
		body[blen] = '\0';
		sscanf(head, "%1000[^\r]", line);
		h = strcasestr(head, "\r\nHost: ");
		if (strstr(line, " /redirect ") != NULL) {
			n = snprintf(resp, sizeof resp, "HTTP/1.1 302 Found\r\nLocation: "
			    "http://denied.test/\r\nContent-Length: 0\r\n\r\n");
		} else if (strstr(line, " /close ") != NULL) {
			n = snprintf(resp, sizeof resp, "HTTP/1.1 200 OK\r\n\r\nuntil close");
			close_after = 1;
		} else {
			char text[12000];
			int tl = snprintf(text, sizeof text, "n=%d;line=%s;host=%.*s;pa=%s;body=%s",
			    ++nreq, line, h ? (int)strcspn(h + 8, "\r") : 0, h ? h + 8 : "",
			    strcasestr(head, "Proxy-Authorization") ? "yes" : "no", body);
			n = snprintf(resp, sizeof resp, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
			    "\r\n%s", tl, text);
		}
		if (write(fd, resp, (size_t)n) != n || close_after)
			break;
	}
	close(fd);
}

/* The byte at offset i of a transfer (not periodic in 4 KiB or 64 KiB,
 * so a lost, repeated or reordered piece shows). */
static unsigned char
pattern_byte(size_t i)
{
	return (unsigned char)(i * 7 + i / 4093);
}

/* FNV-1a over n bytes, continuing from h (2166136261 to start). */
static uint32_t
fnv1a(uint32_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* Port 7001: read "N\n", then everything until EOF; answer with the
 * count and hash of those bytes, then N bytes of the pattern, then close. */
static void
up_serve_sink_source(int fd)
{
	static char buf[65536];
	uint32_t h = 2166136261u;
	size_t want = 0, count = 0, i, j, k;
	ssize_t r;
	char c, line[64];
	int n;

	while (read(fd, &c, 1) == 1 && c != '\n')
		want = want * 10 + (size_t)(c - '0');
	while ((r = read(fd, buf, sizeof buf)) > 0) {
		h = fnv1a(h, buf, (size_t)r);
		count += (size_t)r;
	}
	n = snprintf(line, sizeof line, "%zu %08x\n", count, (unsigned)h);
	if (write(fd, line, (size_t)n) != n)
		return;
	for (i = 0; i < want; i += k) {
		k = want - i < sizeof buf ? want - i : sizeof buf;
		for (j = 0; j < k; j++)
			buf[j] = (char)pattern_byte(i + j);
		if (write(fd, buf, k) != (ssize_t)k)
			return;
	}
}

/* Listen on port in the current namespace. */
static int
up_listen(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) < 0 || listen(fd, 64) < 0)
		return -1;
	return fd;
}

/* Port 7002: a queue of one, each connection taken half a second after it
 * is waiting, then echoed; a SYN that comes while one waits is dropped,
 * so its connect goes on until the SYN is sent again. */
static void
up_serve_slow_accept(int lfd)
{
	struct pollfd p = { lfd, POLLIN, 0 };
	char buf[4096];
	ssize_t r;
	int fd;

	for (;;) {
		if (poll(&p, 1, -1) < 0)
			continue;
		usleep(500000);
		if ((fd = accept(lfd, NULL, NULL)) < 0)
			continue;
		if (fork() == 0) {
			while ((r = read(fd, buf, sizeof buf)) > 0)
				if (write(fd, buf, (size_t)r) != r)
					break;
			_exit(0);
		}
		close(fd);
	}
}

/* The upstream server process (runs inside the namespace). */
static void
up_main(void)
{
	char path[128];
	int nsfd, hfd, efd, sfd;
	struct pollfd pf[3];

	snprintf(path, sizeof path, "/run/netns/%s", netns_name);
	nsfd = open(path, O_RDONLY);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0)
		_exit(1);
	hfd = up_listen(80);
	efd = up_listen(7000);
	sfd = up_listen(7001);
	if (hfd < 0 || efd < 0 || sfd < 0)
		_exit(1);
	signal(SIGCHLD, SIG_IGN);
	if (fork() == 0) {
		int qfd;

		/* ends with the upstream (netns_down kills that one) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		qfd = up_listen(7002);

		if (qfd < 0 || listen(qfd, 0) < 0)
			_exit(1);
		up_serve_slow_accept(qfd);
	}
	pf[0].fd = hfd;
	pf[1].fd = efd;
	pf[2].fd = sfd;
	pf[0].events = pf[1].events = pf[2].events = POLLIN;
	for (;;) {
		int i;

		if (poll(pf, 3, -1) < 0)
			continue;
		for (i = 0; i < 3; i++) {
			int fd;

			if (!(pf[i].revents & POLLIN))
				continue;
			fd = accept(pf[i].fd, NULL, NULL);
			if (fd < 0)
				continue;
			if (fork() == 0) {
				char buf[4096];
				ssize_t r;

				if (i == 0)
					up_serve_http(fd);
				else if (i == 2)
					up_serve_sink_source(fd);
				else
					while ((r = read(fd, buf, sizeof buf)) > 0)
						if (write(fd, buf, (size_t)r) != r)
							break;
				_exit(0);
			}
			close(fd);
		}
	}
}

/* Remove the namespace and stop the upstream. */
static void
netns_down(void)
{
	if (upstream_pid > 0) {
		kill(upstream_pid, SIGKILL);
		waitpid(upstream_pid, NULL, 0);
		upstream_pid = -1;
	}
	if (netns_name[0] != '\0') {
		sh("ip netns del %s", netns_name);
		sh("ip link del %s", veth_a);
		netns_name[0] = '\0';
	}
}

/* Create the namespace, the veth pair and the upstream server. */
static void
netns_up(void)
{
	int k = 1 + (int)(getpid() % 250), i, tries;
	pid_t pid = getpid();

	if (geteuid() != 0) {
		snprintf(netns_why, sizeof netns_why, "not root: network namespaces need root");
		return;
	}
	/* a /24 no other interface of this computer holds (another proxy
	 * suite may run beside this one) */
	for (tries = 0; tries < 250 && sh("ip -o addr show to 10.231.%d.0/24 | "
	    "grep -q .", k) == 0; tries++)
		k = 1 + k % 250;
	snprintf(netns_name, sizeof netns_name, "sboxt-%d", (int)pid);
	snprintf(veth_a, sizeof veth_a, "sbt%da", (int)(pid % 10000000));
	snprintf(up_ip, sizeof up_ip, "10.231.%d.2", k);
	snprintf(silent_ip, sizeof silent_ip, "10.231.%d.77", k);
	if (sh("ip netns add %s", netns_name) < 0 ||
	    sh("ip link add %s type veth peer name sbt%db", veth_a, (int)(pid % 10000000)) < 0 ||
	    sh("ip link set sbt%db netns %s", (int)(pid % 10000000), netns_name) < 0 ||
	    sh("ip addr add 10.231.%d.1/24 dev %s", k, veth_a) < 0 ||
	    sh("ip link set %s up", veth_a) < 0 ||
	    sh("ip -n %s addr add %s/24 dev sbt%db", netns_name, up_ip, (int)(pid % 10000000)) < 0 ||
	    sh("ip -n %s link set sbt%db up", netns_name, (int)(pid % 10000000)) < 0 ||
	    sh("ip -n %s link set lo up", netns_name) < 0) {
		snprintf(netns_why, sizeof netns_why, "cannot create a network namespace "
		    "and veth pair (ip netns add / ip link add failed)");
		netns_down();
		return;
	}
	upstream_pid = fork();
	if (upstream_pid == 0)
		up_main();
	/* Wait until the upstream answers. */
	for (i = 0; i < 100; i++) {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(7000) };
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		inet_pton(AF_INET, up_ip, &sin.sin_addr);
		if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == 0) {
			close(fd);
			netns_ok = 1;
			return;
		}
		close(fd);
		usleep(50000);
	}
	snprintf(netns_why, sizeof netns_why, "the upstream server in %s did not start",
	    netns_name);
	netns_down();
}

#define NEED_NETNS() do { \
	if (!netns_ok) { \
		printf("SKIP %s: %s\n", __func__, netns_why); \
		return; \
	} } while (0)

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
