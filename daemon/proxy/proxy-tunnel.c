/* proxy-tunnel.c: a tunnel's bytes (CONNECT, SOCKS5, local forwards, an
 * upgraded HTTP connection) moved both ways with large reads. libevent 2.1's
 * bufferevents read at most 4 KiB a call, which caps a tunnel far below
 * what a socket pair can carry, so in a tunnel the proxy reads each socket
 * itself (up to PROXY_TUNNEL_READ a call, into one buffer shared by all
 * connections of the loop), writes straight to the other socket while that
 * side's output buffer is empty, and leaves only what the other side could
 * not take yet to its bufferevent, which writes it when it can. A side is
 * read only while the other side's output has room (buffer_bytes), so a
 * slow reader holds back a fast writer and memory stays bounded. While the
 * other side has nothing queued and a direction has carried more than a
 * few messages' worth, the bytes go by splice() through one pipe
 * of the loop (no copy through user space); what the other side does not
 * take is read back from the pipe into its output buffer, so the pipe is
 * empty between calls and one pipe serves every tunnel. */
#include "daemon/proxy/proxy-int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#define PROXY_TUNNEL_READ (256 * 1024)  /* bytes read in one call */
#define PROXY_TUNNEL_ROUNDS 4           /* reads per wake-up, for fairness */
#define PROXY_TUNNEL_SMALL (16 * 1024)  /* a spliced read this short ends the round */
#define PROXY_TUNNEL_SPLICE_AFTER (64 * 1024) /* a direction splices once it
                                         carried this much (small messages
                                         are cheaper copied) */

static char proxy_tunnel_buf[PROXY_TUNNEL_READ];
static int proxy_tunnel_pipe[2] = { -1, -1 };
static int proxy_tunnel_pipe_state;  /* 0: not tried, 1: usable, -1: none */
static size_t proxy_tunnel_pipe_size;

/* Make the loop's splice pipe (once; the proxy process calls this before
 * its seccomp filter, which allows no pipe2). */
void
proxy_tunnel_init(void)
{
	int sz;

	if (proxy_tunnel_pipe_state != 0)
		return;
	proxy_tunnel_pipe_state = -1;
	if (pipe2(proxy_tunnel_pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return;
	fcntl(proxy_tunnel_pipe[1], F_SETPIPE_SZ, PROXY_TUNNEL_READ);
	if ((sz = fcntl(proxy_tunnel_pipe[1], F_GETPIPE_SZ)) <= 0) {
		close(proxy_tunnel_pipe[0]);
		close(proxy_tunnel_pipe[1]);
		return;
	}
	proxy_tunnel_pipe_size = (size_t)sz;
	proxy_tunnel_pipe_state = 1;
}

/* Read len bytes back out of the pipe into buf; -1 if they are not there. */
static int
proxy_tunnel_pipe_take(char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(proxy_tunnel_pipe[0], buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Move up to room bytes from fd to dst's socket through the pipe; the
 * bytes dst does not take go to out. Returns the bytes moved from fd, 0 at
 * EOF, -1 with errno (EAGAIN: nothing now), -2 when writing dst failed,
 * -3 when the pipe broke (the caller closes). */
static ssize_t
proxy_tunnel_splice(int fd, int dstfd, struct evbuffer *out, size_t room)
{
	ssize_t n, w;

	if (room > proxy_tunnel_pipe_size)
		room = proxy_tunnel_pipe_size;
	n = splice(fd, NULL, proxy_tunnel_pipe[1], NULL, room,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n <= 0)
		return n;
	w = splice(proxy_tunnel_pipe[0], NULL, dstfd, NULL, (size_t)n,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
		if (proxy_tunnel_pipe_take(proxy_tunnel_buf, (size_t)n) < 0)
			return -3;
		return -2;
	}
	if (w < 0)
		w = 0;
	if (w < n) {
		if (proxy_tunnel_pipe_take(proxy_tunnel_buf, (size_t)(n - w)) < 0 ||
		    evbuffer_add(out, proxy_tunnel_buf, (size_t)(n - w)) < 0)
			return -3;
	}
	return n;
}

static void proxy_tunnel_read_cb(evutil_socket_t fd, short what, void *arg);

/* Write data to a side now when nothing is queued for it (saving a trip
 * through the loop on a new tunnel), queueing what the socket does not take. */
void
proxy_tunnel_write_now(struct bufferevent *bev, const void *data, size_t len)
{
	struct evbuffer *out = bufferevent_get_output(bev);
	ssize_t w = -1;

	if (evbuffer_get_length(out) == 0)
		w = send(bufferevent_getfd(bev), data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (w < 0)
		w = 0;   /* an error shows on the bufferevent's next write */
	if ((size_t)w < len) {
		bufferevent_write(bev, (const char *)data + w, len - (size_t)w);
		proxy_tunnel_want_write(bev);
	}
}

/* Have bev write what is queued for it. Writing is enabled only with bytes
 * queued: enabling it on an empty output wakes the loop for nothing. Once
 * enabled it stays so, and libevent waits for writability only while
 * bytes are queued. */
void
proxy_tunnel_want_write(struct bufferevent *bev)
{
	if (bev != NULL && !(bufferevent_get_enabled(bev) & EV_WRITE) &&
	    evbuffer_get_length(bufferevent_get_output(bev)) > 0)
		bufferevent_enable(bev, EV_WRITE);
}

/* The side a direction reads (0: client to host, 1: host to client). */
static struct bufferevent *
proxy_tunnel_src(struct proxy_conn *c, int d)
{
	return d == 0 ? c->cli : c->up;
}

/* The side a direction writes. */
static struct bufferevent *
proxy_tunnel_dst(struct proxy_conn *c, int d)
{
	return d == 0 ? c->up : c->cli;
}

/* Start relaying a tunnel: the bufferevents keep writing, reading is ours.
 * 0, or -1 (out of memory: the caller closes). */
int
proxy_tunnel_start(struct proxy_conn *c)
{
	struct event_base *base = c->px->base;
	int d;

	proxy_tunnel_init();
	for (d = 0; d < 2; d++) {
		struct bufferevent *src = proxy_tunnel_src(c, d);

		bufferevent_disable(src, EV_READ);
		/* libevent writes 16 KiB per wake-up by default */
		bufferevent_set_max_single_write(src, c->px->lim.buffer_bytes);
		proxy_tunnel_want_write(src);
		c->tun_ev[d] = event_new(base, bufferevent_getfd(src),
		    EV_READ | EV_PERSIST, proxy_tunnel_read_cb, c);
		if (c->tun_ev[d] == NULL || event_add(c->tun_ev[d], NULL) < 0) {
			proxy_conn_tunnel_stop(c);
			return -1;
		}
	}
	return 0;
}

/* One side ended (EOF, or an error when error is set) while reading. */
static void
proxy_tunnel_ended(struct proxy_conn *c, int d, int error)
{
	event_del(c->tun_ev[d]);
	if (d == 0) {
		if (error) {
			proxy_conn_close(c);
			return;
		}
		c->cli_eof = 1;
	} else {
		if (error) {
			proxy_conn_close_after_flush(c);
			return;
		}
		c->up_eof = 1;
	}
	proxy_tunnel_pump(c);
}

/* Writing to the other side failed: the connection is over. */
static void
proxy_tunnel_write_failed(struct proxy_conn *c, int d)
{
	if (d == 0)
		proxy_conn_close_after_flush(c);   /* the host went away */
	else
		proxy_conn_close(c);               /* the client went away */
}

/* A side is readable: move what it has to the other side. */
static void
proxy_tunnel_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_conn *c = arg;
	int d = fd == bufferevent_getfd(c->cli) ? 0 : 1, r;
	struct bufferevent *dst = proxy_tunnel_dst(c, d);
	struct evbuffer *out = bufferevent_get_output(dst);
	size_t cap = c->px->lim.buffer_bytes, have, room;
	ssize_t n, w;

	(void)what;
	for (r = 0; r < PROXY_TUNNEL_ROUNDS && !c->dead && c->state == PC_TUNNEL; r++) {
		have = evbuffer_get_length(out);
		if (have >= cap) {
			event_del(c->tun_ev[d]);
			c->tun_paused[d] = 1;
			return;
		}
		room = cap - have;
		if (room > sizeof proxy_tunnel_buf)
			room = sizeof proxy_tunnel_buf;
		if (have == 0 && proxy_tunnel_pipe_state == 1 &&
		    c->tun_bytes[d] >= PROXY_TUNNEL_SPLICE_AFTER) {
			n = proxy_tunnel_splice(fd, bufferevent_getfd(dst), out, room);
			if (n == -3) {
				proxy_conn_close(c);
				return;
			}
			if (n == -2) {
				proxy_tunnel_write_failed(c, d);
				return;
			}
			if (n < 0) {
				if (errno != EAGAIN && errno != EWOULDBLOCK &&
				    errno != EINTR)
					proxy_tunnel_ended(c, d, 1);
				return;
			}
			if (n == 0) {
				proxy_tunnel_ended(c, d, 0);
				return;
			}
			proxy_conn_touch(c);
			c->tun_bytes[d] += (uint64_t)n;
			proxy_tunnel_want_write(dst);
			/* a small read has most likely drained the socket (a
			 * large one may have stopped at the pipe's page slots) */
			if ((size_t)n < PROXY_TUNNEL_SMALL)
				return;
			continue;
		}
		n = recv(fd, proxy_tunnel_buf, room, 0);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				proxy_tunnel_ended(c, d, 1);
			return;
		}
		if (n == 0) {
			proxy_tunnel_ended(c, d, 0);
			return;
		}
		proxy_conn_touch(c);
		c->tun_bytes[d] += (uint64_t)n;
		w = 0;
		if (have == 0) {
			w = send(bufferevent_getfd(dst), proxy_tunnel_buf, (size_t)n,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR) {
				proxy_tunnel_write_failed(c, d);
				return;
			}
			if (w < 0)
				w = 0;
		}
		if (w < n && evbuffer_add(out, proxy_tunnel_buf + w,
		    (size_t)(n - w)) < 0) {
			proxy_conn_close(c);
			return;
		}
		proxy_tunnel_want_write(dst);
		if ((size_t)n < room)
			return;   /* the socket is drained */
	}
}

/* Move what can move: bytes that came before the tunnel started (still in
 * the bufferevents' inputs), reading again once the other side has room,
 * passing a client EOF on as a half-close, and closing once the host has
 * ended and its bytes are delivered. */
void
proxy_tunnel_pump(struct proxy_conn *c)
{
	size_t cap = c->px->lim.buffer_bytes;
	int d;

	if (c->dead || c->state != PC_TUNNEL || c->up == NULL)
		return;
	for (d = 0; d < 2; d++) {
		struct evbuffer *in = bufferevent_get_input(proxy_tunnel_src(c, d));
		struct evbuffer *out = bufferevent_get_output(proxy_tunnel_dst(c, d));
		size_t have = evbuffer_get_length(out), n = evbuffer_get_length(in);

		if (n > 0 && have < cap) {
			if (n > cap - have)
				n = cap - have;
			evbuffer_remove_buffer(in, out, n);
			proxy_tunnel_want_write(proxy_tunnel_dst(c, d));
			have += n;
		}
		if (c->tun_paused[d] && have < cap && c->tun_ev[d] != NULL &&
		    evbuffer_get_length(in) == 0) {
			c->tun_paused[d] = 0;
			event_add(c->tun_ev[d], NULL);
		}
	}
	if (c->cli_eof && !c->up_shut &&
	    evbuffer_get_length(bufferevent_get_input(c->cli)) == 0 &&
	    evbuffer_get_length(bufferevent_get_output(c->up)) == 0) {
		c->up_shut = 1;
		shutdown(bufferevent_getfd(c->up), SHUT_WR);
	}
	if (c->up_eof && evbuffer_get_length(bufferevent_get_input(c->up)) == 0)
		proxy_conn_close_after_flush(c);
}
