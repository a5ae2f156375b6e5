/* proxy-upstream.h: the remote host of the proxy's tests: a network
 * namespace of their own, a veth pair, and an upstream server in it (HTTP,
 * a sink and source of checked bytes, a slow accept). Included by
 * proxy-fixture.h (a header of static functions, as it is). */
#ifndef SBOX_TEST_PROXY_UPSTREAM_H
#define SBOX_TEST_PROXY_UPSTREAM_H

#include <check.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Send back whatever comes on fd until it ends. */
static void
up_serve_echo(int fd)
{
	char buf[4096];
	ssize_t r;

	while ((r = read(fd, buf, sizeof buf)) > 0)
		if (write(fd, buf, (size_t)r) != r)
			break;
}

/* Port 7002: a queue of one, each connection taken half a second after it
 * is waiting, then echoed; a SYN that comes while one waits is dropped,
 * so its connect goes on until the SYN is sent again. */
static void
up_serve_slow_accept(int lfd)
{
	struct pollfd p = { lfd, POLLIN, 0 };
	int fd;

	for (;;) {
		if (poll(&p, 1, -1) < 0)
			continue;
		usleep(500000);
		if ((fd = accept(lfd, NULL, NULL)) < 0)
			continue;
		if (fork() == 0) {
			up_serve_echo(fd);
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
				if (i == 0)
					up_serve_http(fd);
				else if (i == 2)
					up_serve_sink_source(fd);
				else
					up_serve_echo(fd);
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

#endif
