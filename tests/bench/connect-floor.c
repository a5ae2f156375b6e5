/* connect-floor.c: the least an HTTP CONNECT proxy can do, as one more
 * column of bench-proxy (issue 24): the floor of a new tunnel's first byte
 * and of bulk throughput for any proxy the client speaks CONNECT to, on
 * this machine. One thread, epoll, no policy, no log, no resolver: it
 * reads the request head, takes NAME:PORT when NAME is the one name it was
 * given, connects to that name's address (a blocking connect), answers
 * 200 and relays with splice() through one pipe of 1 MiB (no copy through
 * user space); the client's side uses Reno, as sboxd's proxy's does. The client must wait for the 200 before
 * it sends (the bench's does). Not a product: a bench tool, loopback only.
 *   connect-floor PORT NAME ADDR */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define FLOOR_PIPE (1024 * 1024)
#define FLOOR_HEAD 4096

/* One side of a tunnel: its socket and the other side's. */
struct floor_end {
	int               fd;
	struct floor_end *peer;
	int               head;     /* still reading the request head */
	size_t            nhead;
	char              buf[FLOOR_HEAD];
};

static int floor_ep;
static const char *floor_name;
static struct in_addr floor_addr;
static int floor_pipe[2];

/* Watch fd for reading, with end as its data. */
static void
floor_watch(struct floor_end *end)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = end };

	epoll_ctl(floor_ep, EPOLL_CTL_ADD, end->fd, &ev);
}

/* Ends closed in this batch of events, freed after it (a later event of
 * the batch may name one). */
static struct floor_end *floor_dead[256];
static size_t floor_ndead;

/* Close one end and its peer; they are freed after the batch. */
static void
floor_close(struct floor_end *end)
{
	struct floor_end *two[2] = { end, end->peer };
	int i;

	for (i = 0; i < 2; i++) {
		if (two[i] == NULL || two[i]->fd < 0)
			continue;
		epoll_ctl(floor_ep, EPOLL_CTL_DEL, two[i]->fd, NULL);
		close(two[i]->fd);
		two[i]->fd = -1;
		floor_dead[floor_ndead++] = two[i];
	}
}

/* Wait until fd can take more bytes. */
static void
floor_wait_out(int fd)
{
	struct epoll_event ev = { .events = EPOLLOUT };
	int one = epoll_create1(EPOLL_CLOEXEC);

	epoll_ctl(one, EPOLL_CTL_ADD, fd, &ev);
	epoll_wait(one, &ev, 1, -1);
	close(one);
}

/* Write all of buf to fd (blocking for the rest: a floor, not a product). */
static int
floor_write(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN) {
			floor_wait_out(fd);
			continue;
		}
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Move what fd has to dst through the pipe: bytes moved, 0 at EOF, -1
 * when nothing is there (EAGAIN), -2 on an error. */
static ssize_t
floor_splice(int fd, int dst)
{
	ssize_t n = splice(fd, NULL, floor_pipe[1], NULL, FLOOR_PIPE,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK), left = n;

	if (n < 0)
		return errno == EAGAIN ? -1 : -2;
	while (left > 0) {
		ssize_t w = splice(floor_pipe[0], NULL, dst, NULL, (size_t)left,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		if (w < 0 && errno == EAGAIN) {
			floor_wait_out(dst);
			continue;
		}
		if (w <= 0)
			return -2;
		left -= w;
	}
	return n;
}

/* The request head is in: connect upstream and answer. */
static int
floor_connect(struct floor_end *end)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = floor_addr };
	char host[256];
	unsigned port;
	struct floor_end *up;
	int fd, one = 1;
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

	if (sscanf(end->buf, "CONNECT %255[^:]:%u ", host, &port) != 2 ||
	    strcmp(host, floor_name) != 0 || port == 0 || port > 65535)
		return -1;
	sa.sin_port = htons((uint16_t)port);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if ((up = calloc(1, sizeof *up)) == NULL) {
		close(fd);
		return -1;
	}
	up->fd = fd;
	up->peer = end;
	end->peer = up;
	end->head = 0;
	floor_watch(up);
	return floor_write(end->fd, ok, sizeof ok - 1);
}

/* Something to read on one end. */
static void
floor_readable(struct floor_end *end)
{
	ssize_t n;

	if (end->head) {
		n = recv(end->fd, end->buf + end->nhead,
		    sizeof end->buf - 1 - end->nhead, 0);
		if (n <= 0 && !(n < 0 && errno == EAGAIN)) {
			floor_close(end);
			return;
		}
		if (n < 0)
			return;
		end->nhead += (size_t)n;
		end->buf[end->nhead] = '\0';
		if (strstr(end->buf, "\r\n\r\n") == NULL) {
			if (end->nhead == sizeof end->buf - 1)
				floor_close(end);
			return;
		}
		if (floor_connect(end) == -1)
			floor_close(end);
		return;
	}
	n = floor_splice(end->fd, end->peer->fd);
	if (n == -1)
		return;
	/* one side ended: end both (the bench's exchanges are done then) */
	if (n <= 0)
		floor_close(end);
}

/* Serve until killed. */
int
main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct epoll_event evs[64];
	int lfd, one = 1, i, n;

	if (argc != 4 || inet_pton(AF_INET, argv[3], &floor_addr) != 1) {
		fprintf(stderr, "usage: connect-floor PORT NAME ADDR\n");
		return 2;
	}
	floor_name = argv[2];
	sa.sin_port = htons((uint16_t)atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    listen(lfd, 4096) < 0) {
		perror("connect-floor: listen");
		return 1;
	}
	if (pipe2(floor_pipe, O_CLOEXEC) == -1)
		return 1;
	(void)fcntl(floor_pipe[0], F_SETPIPE_SZ, FLOOR_PIPE);
	floor_ep = epoll_create1(EPOLL_CLOEXEC);
	{
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
		epoll_ctl(floor_ep, EPOLL_CTL_ADD, lfd, &ev);
	}
	for (;;) {
		n = epoll_wait(floor_ep, evs, 64, -1);
		for (i = 0; i < n; i++) {
			struct floor_end *end = evs[i].data.ptr;
			int fd;

			if (end != NULL) {
				if (end->fd >= 0)
					floor_readable(end);
				continue;
			}
			while ((fd = accept4(lfd, NULL, NULL,
			    SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
				if ((end = calloc(1, sizeof *end)) == NULL) {
					close(fd);
					continue;
				}
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				    sizeof one);
				/* loopback: Reno, as sboxd's proxy does */
				setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION,
				    "reno", 4);
				end->fd = fd;
				end->head = 1;
				floor_watch(end);
			}
		}
		while (floor_ndead > 0)
			free(floor_dead[--floor_ndead]);
	}
}
