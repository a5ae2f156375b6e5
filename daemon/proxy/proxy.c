/* proxy.c: the per-session network proxy: its life cycle, listeners and
 * connection limits and timeouts. Every connection is bounded: a head timeout, a
 * connect timeout, an idle timeout and per-direction buffer caps (a side is
 * read only while the other side has room). Protocol parsing is in
 * proxy-http.c and proxy-socks.c, address rules in proxy-addr.c, ending
 * and answering a connection in proxy-conn.c, the decision and connecting
 * in proxy-connect.c, the relay in proxy-relay.c and proxy-tunnel.c. */
#include "daemon/proxy/proxy.h"
#include "daemon/proxy/proxy-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "daemon/log.h"
#include "policy/hostpat.h"

static int proxy_global_conns;
static unsigned long long proxy_serial;
static int proxy_global_max = 16384;

/* Cap on client connections over all proxies. */
void
proxy_set_global_limit(int max_conns)
{
	proxy_global_max = max_conns > 0 ? max_conns : 16384;
}

/* The limit proxy_set_global_limit set. */
int
proxy_global_limit(void)
{
	return proxy_global_max;
}

/* Live client connections of this proxy. */
int
proxy_connections(const struct proxy *px)
{
	return px->n_conns;
}

/* Free a connection now (from the deferred-free event). */
static void
proxy_conn_destroy(struct proxy_conn *c)
{
	if (c->dns_req != NULL)
		evdns_getaddrinfo_cancel(c->dns_req);
	c->dns_req = NULL;
	proxy_conn_tunnel_stop(c);
	if (c->cli != NULL)
		bufferevent_free(c->cli);
	if (c->up != NULL)
		bufferevent_free(c->up);
	if (c->timer != NULL)
		event_free(c->timer);
	if (c->free_ev != NULL)
		event_free(c->free_ev);
	if (c->req != NULL) {
		proxy_http_free(c->req);
		free(c->req);
	}
	if (c->resp != NULL) {
		proxy_http_free(c->resp);
		free(c->resp);
	}
	free(c->refuse_reason);
	free(c->refuse_rule);
	free(c->refuse_hint);
	LIST_REMOVE(c, link);
	c->px->n_conns--;
	proxy_global_conns--;
	free(c);
}

/* Deferred-free callback. */
static void
proxy_conn_free_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	proxy_conn_destroy(arg);
}

/* The refusal of connection serial is recorded: answer its client. */
void
proxy_refusal_noted(struct proxy *px, unsigned long long serial)
{
	struct proxy_conn *c;

	LIST_FOREACH(c, &px->conns, link) {
		if (c->serial != serial)
			continue;
		if (!c->dead && c->state == PC_REFUSING)
			proxy_conn_refuse_answer(c, c->refuse_reason,
			    c->refuse_rule, c->refuse_hint);
		return;
	}
}

/* The hosts file's answer for connection serial. */
void
proxy_hosts_answer(struct proxy *px, unsigned long long serial,
    const struct proxy_addr *addrs, size_t n)
{
	struct proxy_conn *c;

	LIST_FOREACH(c, &px->conns, link) {
		if (c->serial != serial)
			continue;
		if (!c->dead && c->state == PC_RESOLVING && c->hosts_wait)
			proxy_conn_hosts_answer(c, addrs, n);
		return;
	}
}

/* The connection's timer: head, connect, idle or closing timeout. */
static void
proxy_conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_conn *c = arg;
	struct proxy *px = c->px;
	struct timeval now;
	long long idle;

	(void)fd;
	(void)what;
	switch (c->state) {
	case PC_DETECT:
	case PC_SOCKS_GREET:
	case PC_SOCKS_REQ:
		proxy_conn_close(c);
		return;
	case PC_HTTP_HEAD:
		if (c->req != NULL && c->req->len > 0)
			proxy_conn_fail(c, 408, 0, "the request head did not arrive in time");
		else
			proxy_conn_close(c);
		return;
	case PC_RESOLVING:
	case PC_CONNECTING: {
		char cause[100];

		snprintf(cause, sizeof cause, "%s timed out after %d s",
		    c->state == PC_RESOLVING ? "DNS: the name's lookup" :
		    "the connection", (px->lim.connect_timeout_ms + 999) / 1000);
		proxy_conn_unreachable(c, 504, PROXY_SOCKS_HOST_UNREACHABLE,
		    "connecting to the host timed out", cause);
		return;
	}
	case PC_TUNNEL:
	case PC_HTTP:
		event_base_gettimeofday_cached(px->base, &now);
		idle = (long long)(now.tv_sec - c->last_active.tv_sec) * 1000 +
		    (now.tv_usec - c->last_active.tv_usec) / 1000;
		if (idle >= px->lim.idle_timeout_ms) {
			if (c->state == PC_HTTP && !c->resp_started)
				proxy_conn_fail(c, 504, 0, "the host did not answer in time");
			else
				proxy_conn_close(c);
			return;
		}
		proxy_conn_timer(c, px->lim.idle_timeout_ms - (int)idle);
		return;
	default:
		proxy_conn_close(c);
		return;
	}
}

/* The request often came with the connection: read it now rather than
 * after another trip through the loop. A socket bufferevent keeps its input
 * frozen outside its own read callback, so thaw it for the bytes. */
static void
proxy_accept_read_now(struct proxy_conn *c, evutil_socket_t fd)
{
	struct evbuffer *in = bufferevent_get_input(c->cli);
	char buf[4096];
	ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);

	if (n <= 0)
		return;   /* nothing yet; an EOF or error shows on the next read */
	evbuffer_unfreeze(in, 0);
	n = evbuffer_add(in, buf, (size_t)n);
	evbuffer_freeze(in, 0);
	if (n == 0)
		proxy_conn_cli_read_cb(c->cli, c);
	else
		proxy_conn_close(c);
}

/* A new client connection on one of the proxy's listeners. */
static void
proxy_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct proxy_listener *pl = arg;
	struct proxy *px = pl->px;
	struct proxy_conn *c;

	(void)l;
	(void)sa;
	(void)salen;
	if (px->n_conns >= px->lim.max_conns || proxy_global_conns >= proxy_global_max) {
		log_warn("proxy %s: connection limit reached (%d of this "
		    "session, %d in all), dropping connections", px->session,
		    px->n_conns, proxy_global_conns);
		evutil_closesocket(fd);
		return;
	}
	c = calloc(1, sizeof *c);
	if (c == NULL) {
		evutil_closesocket(fd);
		return;
	}
	c->px = px;
	c->serial = ++proxy_serial;
	c->cli = bufferevent_socket_new(px->base, fd, BEV_OPT_CLOSE_ON_FREE);
	c->timer = evtimer_new(px->base, proxy_conn_timer_cb, c);
	c->free_ev = event_new(px->base, -1, 0, proxy_conn_free_cb, c);
	LIST_INSERT_HEAD(&px->conns, c, link);
	px->n_conns++;
	proxy_global_conns++;
	if (c->cli == NULL || c->timer == NULL || c->free_ev == NULL) {
		if (c->cli == NULL)
			evutil_closesocket(fd);
		c->dead = 1;
		proxy_conn_destroy(c);
		return;
	}
	proxy_conn_touch(c);
	bufferevent_setcb(c->cli, proxy_conn_cli_read_cb, proxy_conn_cli_write_cb,
	    proxy_conn_cli_event_cb, c);
	bufferevent_setwatermark(c->cli, EV_READ, 0, px->lim.buffer_bytes);
	bufferevent_setwatermark(c->cli, EV_WRITE, px->lim.buffer_bytes / 2, 0);
	if (pl->local_port > 0) {
		c->kind = PK_LOCAL;
		c->port = pl->local_port;
		snprintf(c->host, sizeof c->host, "127.0.0.1");
		proxy_addr_parse("127.0.0.1", &c->addrs[0]);
		c->n_addrs = 1;
		c->literal = 1;
		c->state = PC_CONNECTING;
		proxy_conn_timer(c, px->lim.connect_timeout_ms);
		proxy_conn_try_connect(c);
		return;
	}
	c->state = PC_DETECT;
	proxy_conn_timer(c, px->lim.head_timeout_ms);
	/* writing is enabled once there is something to write (enabling it
	 * with nothing queued costs a wake-up for nothing) */
	bufferevent_enable(c->cli, EV_READ);
	proxy_accept_read_now(c, fd);
}

/* Re-enable a listener paused after an accept error. */
static void
proxy_listener_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_listener *pl = arg;

	(void)fd;
	(void)what;
	evconnlistener_enable(pl->lev);
}

/* accept() failed (EMFILE and the like): pause the listener a moment. */
static void
proxy_listener_error_cb(struct evconnlistener *l, void *arg)
{
	struct proxy_listener *pl = arg;
	struct timeval tv = { 0, 250 * 1000 };

	log_warn("proxy %s: accept failed, pausing its listener: %s",
	    pl->px->session,
	    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
	evconnlistener_disable(l);
	evtimer_add(pl->resume, &tv);
}

/* Add one listener for fd (port 0: the proxy; > 0: a local forward). */
static int
proxy_listen(struct proxy *px, int fd, int port, sbox_error *err)
{
	struct proxy_listener *pl;
	int one = 1;

	pl = calloc(1, sizeof *pl);
	if (pl == NULL) {
		close(fd);
		return error_nomem(err);
	}
	pl->px = px;
	pl->local_port = port;
	evutil_make_socket_nonblocking(fd);
	evutil_make_socket_closeonexec(fd);
	/* accepted sockets inherit TCP_NODELAY (replies and relayed bytes go
	 * on at once): one call here rather than one per connection */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	/* the listener is on the sandbox's loopback, so is every connection
	 * accepted from it: no network to be careful with, and a paced
	 * congestion control (BBR, a common default) costs the relay a timer
	 * per burst and up to a quarter of its throughput there; Reno, which
	 * every kernel has and any user may choose, sends as fast as the reader
	 * takes. The host side keeps the system's choice. */
	setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, PROXY_LOOPBACK_CC,
	    sizeof PROXY_LOOPBACK_CC - 1);
	pl->resume = evtimer_new(px->base, proxy_listener_resume_cb, pl);
	pl->lev = evconnlistener_new(px->base, proxy_accept_cb, pl,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd);
	if (pl->lev == NULL || pl->resume == NULL) {
		if (pl->lev != NULL)
			evconnlistener_free(pl->lev);
		else
			close(fd);
		if (pl->resume != NULL)
			event_free(pl->resume);
		free(pl);
		return error_set(err, E_INTERNAL, "cannot listen on the proxy socket");
	}
	evconnlistener_set_error_cb(pl->lev, proxy_listener_error_cb);
	LIST_INSERT_HEAD(&px->listeners, pl, link);
	return 0;
}

/* Start a proxy on the configured listening fds. */
struct proxy *
proxy_new(const struct proxy_config *cfg, sbox_error *err)
{
	struct proxy *px;
	size_t i;

	px = calloc(1, sizeof *px);
	if (px == NULL)
		goto oom;
	px->base = cfg->base;
	px->dns = cfg->dns;
	px->net = cfg->net;
	px->on_refusal = cfg->on_refusal;
	px->on_failure = cfg->on_failure;
	px->on_refusal_async = cfg->on_refusal_async;
	px->on_hosts = cfg->on_hosts;
	px->arg = cfg->arg;
	px->lim = cfg->limits;
	px->up = &proxy_relay_upstream;
	if (px->lim.max_conns <= 0)
		px->lim.max_conns = 1024;
	if (px->lim.head_timeout_ms <= 0)
		px->lim.head_timeout_ms = 30000;
	if (px->lim.idle_timeout_ms <= 0)
		px->lim.idle_timeout_ms = 300000;
	if (px->lim.connect_timeout_ms <= 0)
		px->lim.connect_timeout_ms = 10000;
	if (px->lim.buffer_bytes < 16384)
		px->lim.buffer_bytes = px->lim.buffer_bytes == 0 ? 262144 : 16384;
	px->session = strdup(cfg->session != NULL ? cfg->session : "");
	px->profile = strdup(cfg->profile != NULL ? cfg->profile : "");
	px->extra = calloc(1, sizeof *px->extra);
	LIST_INIT(&px->conns);
	LIST_INIT(&px->listeners);
	if (px->session == NULL || px->profile == NULL || px->extra == NULL)
		goto oom;
	if (px->base == NULL) {
		error_set(err, E_INTERNAL, "proxy: no event base");
		goto fail;
	}
	for (i = 0; i < cfg->n_listen_fds; i++) {
		if (proxy_listen(px, cfg->listen_fds[i], 0, err) < 0) {
			for (i++; i < cfg->n_listen_fds; i++)
				close(cfg->listen_fds[i]);
			error_context(err, "proxy for session %s", px->session);
			proxy_free(px);
			return NULL;
		}
	}
	return px;
oom:
	error_nomem(err);
fail:
	for (i = 0; i < cfg->n_listen_fds; i++)
		close(cfg->listen_fds[i]);
	if (px != NULL)
		proxy_free(px);
	return NULL;
}

/* Close every listener and connection and free the proxy. */
void
proxy_free(struct proxy *px)
{
	struct proxy_listener *pl;
	struct proxy_conn *c;
	size_t i;

	if (px == NULL)
		return;
	while ((pl = LIST_FIRST(&px->listeners)) != NULL) {
		LIST_REMOVE(pl, link);
		evconnlistener_free(pl->lev);
		event_free(pl->resume);
		free(pl);
	}
	while ((c = LIST_FIRST(&px->conns)) != NULL) {
		proxy_conn_close(c);
		proxy_conn_destroy(c);
	}
	for (i = 0; px->extra != NULL && px->extra[i] != NULL; i++)
		free(px->extra[i]);
	free(px->extra);
	free(px->session);
	free(px->profile);
	free(px);
}

/* Allow one more host pattern. */
int
proxy_allow_host(struct proxy *px, const char *host, sbox_error *err)
{
	char **n;
	size_t i;

	if (hostpat_validate(host, err) < 0)
		return error_context(err, "allow host");
	for (i = 0; px->extra[i] != NULL; i++)
		if (strcasecmp(px->extra[i], host) == 0)
			return 0;
	n = realloc(px->extra, (i + 2) * sizeof *n);
	if (n == NULL)
		return error_nomem(err);
	px->extra = n;
	px->extra[i] = strdup(host);
	px->extra[i + 1] = NULL;
	if (px->extra[i] == NULL)
		return error_nomem(err);
	return 0;
}

/* Was host:port allowed by proxy_allow_host (after the session began)? */
int
proxy_allowed_later(const struct proxy *px, const char *host, int port)
{
	return px != NULL && host != NULL &&
	    hostpat_match_list(px->extra, host, port);
}

/* Forward connections on listen_fd to 127.0.0.1:port of this computer. */
int
proxy_add_local_forward(struct proxy *px, int listen_fd, int port, sbox_error *err)
{
	if (port < 1 || port > 65535) {
		close(listen_fd);
		return error_set_field(err, E_INVALID_PARAMS, "local_ports",
		    "port %d is out of range", port);
	}
	if (proxy_listen(px, listen_fd, port, err) < 0)
		return error_context(err, "local port %d", port);
	return 0;
}
