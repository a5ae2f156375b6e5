/* proxy.c: the per-session network proxy: listeners, the decision (allowlist,
 * resolve, classify), connecting, and the relay for CONNECT tunnels, SOCKS5
 * and absolute-form HTTP. Every connection is bounded: a head timeout, a
 * connect timeout, an idle timeout and per-direction buffer caps (a side is
 * read only while the other side has room). Protocol parsing is in
 * proxy-http.c and proxy-socks.c, address rules in proxy-addr.c; the
 * HTTP request/response relay is in proxy-relay.c. */
#include "daemon/proxy.h"
#include "daemon/proxy-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "daemon/log.h"
#include "policy/hostpat.h"

static int proxy_global_conns;
static int proxy_global_max = 16384;

/* Cap on client connections over all proxies. */
void
proxy_set_global_limit(int max_conns)
{
	proxy_global_max = max_conns > 0 ? max_conns : 16384;
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

/* Drop the upstream connection, if any. */
void
proxy_conn_drop_upstream(struct proxy_conn *c)
{
	if (c->up != NULL)
		bufferevent_free(c->up);
	c->up = NULL;
	c->up_ready = 0;
	c->up_host[0] = '\0';
	c->up_port = 0;
}

/* Close a connection: stop all callbacks now, free it from the loop. */
void
proxy_conn_close(struct proxy_conn *c)
{
	if (c->dead)
		return;
	c->dead = 1;
	c->state = PC_DEAD;
	if (c->dns_req != NULL) {
		struct evdns_getaddrinfo_request *r = c->dns_req;
		c->dns_req = NULL;
		evdns_getaddrinfo_cancel(r);
	}
	if (c->cli != NULL) {
		bufferevent_setcb(c->cli, NULL, NULL, NULL, NULL);
		bufferevent_disable(c->cli, EV_READ | EV_WRITE);
	}
	proxy_conn_drop_upstream(c);
	evtimer_del(c->timer);
	event_active(c->free_ev, EV_TIMEOUT, 1);
}

/* Write-callback while closing: free once the output is flushed. */
static void
proxy_conn_closing_write_cb(struct bufferevent *bev, void *arg)
{
	struct proxy_conn *c = arg;

	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		proxy_conn_close(c);
}

/* Event-callback while closing: any error or EOF ends it. */
static void
proxy_conn_closing_event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	proxy_conn_close(arg);
}

/* Arm the connection's timer for ms milliseconds. */
void
proxy_conn_timer(struct proxy_conn *c, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	evtimer_add(c->timer, &tv);
}

/* Stop reading the client, send what is queued, then close. */
void
proxy_conn_close_after_flush(struct proxy_conn *c)
{
	if (c->dead)
		return;
	proxy_conn_drop_upstream(c);
	c->state = PC_CLOSING;
	bufferevent_disable(c->cli, EV_READ);
	bufferevent_setwatermark(c->cli, EV_WRITE, 0, 0);
	bufferevent_setcb(c->cli, NULL, proxy_conn_closing_write_cb,
	    proxy_conn_closing_event_cb, c);
	bufferevent_enable(c->cli, EV_WRITE);
	proxy_conn_timer(c, c->px->lim.head_timeout_ms);
	if (evbuffer_get_length(bufferevent_get_output(c->cli)) == 0)
		proxy_conn_close(c);
}

/* The reason text of an HTTP status. */
static const char *
proxy_status_text(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	default:  return "Error";
	}
}

/* Answer an HTTP client with status and a one-line body, then close. */
static void
proxy_conn_http_answer(struct proxy_conn *c, int status, const char *refused,
    const char *body)
{
	struct evbuffer *out = bufferevent_get_output(c->cli);

	evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\n", status, proxy_status_text(status));
	if (refused != NULL)
		evbuffer_add_printf(out, "X-Sbox-Refused: %s\r\n", refused);
	evbuffer_add_printf(out, "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s\n",
	    strlen(body) + 1, body);
	proxy_conn_close_after_flush(c);
}

/* Answer a SOCKS client with a reply code, then close. */
static void
proxy_conn_socks_answer(struct proxy_conn *c, int code)
{
	uint8_t r[PROXY_SOCKS_REPLY_LEN];

	bufferevent_write(c->cli, r, proxy_socks_reply(r, code));
	proxy_conn_close_after_flush(c);
}

/* Refuse the current request: record it, then answer 403 / SOCKS 0x02. */
void
proxy_conn_refuse(struct proxy_conn *c, const char *reason, const char *rule,
    const char *hint)
{
	struct proxy *px = c->px;
	char body[2048];

	if (px->on_refusal != NULL)
		px->on_refusal(px->session, c->host, c->port, reason, rule, px->arg);
	if (c->kind == PK_SOCKS) {
		proxy_conn_socks_answer(c, PROXY_SOCKS_NOT_ALLOWED);
		return;
	}
	if (c->kind == PK_LOCAL) {
		proxy_conn_close(c);
		return;
	}
	if (c->resp_started) {
		proxy_conn_close(c);
		return;
	}
	snprintf(body, sizeof body, "sbox refused %s port %d: %s (rule: %s). %s",
	    c->host, c->port, reason, rule, hint);
	proxy_conn_http_answer(c, 403, reason, body);
}

/* Fail the current request (not a refusal): HTTP status or SOCKS code. */
void
proxy_conn_fail(struct proxy_conn *c, int status, int socks_code, const char *why)
{
	char body[600];

	if (c->kind == PK_SOCKS && c->state != PC_TUNNEL) {
		proxy_conn_socks_answer(c, socks_code);
		return;
	}
	if (c->kind != PK_HTTP || c->resp_started || c->state == PC_TUNNEL) {
		proxy_conn_close_after_flush(c);
		return;
	}
	snprintf(body, sizeof body, "sbox proxy: %s", why);
	proxy_conn_http_answer(c, status, NULL, body);
}

/* True when name (trailing dot ignored) equals one of the NULL-terminated list. */
static int
proxy_name_in(char *const *list, const char *name)
{
	size_t n = strlen(name), i;

	if (n > 0 && name[n - 1] == '.')
		n--;
	for (i = 0; list != NULL && list[i] != NULL; i++) {
		size_t m = strlen(list[i]);

		if (m > 0 && list[i][m - 1] == '.')
			m--;
		if (m == n && strncasecmp(list[i], name, n) == 0)
			return 1;
	}
	return 0;
}

/* The resolve-table entry for name, or NULL. */
static const struct plan_resolve *
proxy_resolve_entry(const struct plan_net *net, const char *name)
{
	size_t i;

	for (i = 0; i < net->n_resolve; i++) {
		char *one[2] = { net->resolve[i].host, NULL };

		if (proxy_name_in(one, name))
			return &net->resolve[i];
	}
	return NULL;
}

/* Check one address for the current host; 0, or -1 after refusing. */
static int
proxy_conn_check_addr(struct proxy_conn *c, const struct proxy_addr *a)
{
	const char *why = proxy_addr_refusal(a, c->private_ok);
	enum proxy_addr_level lv;
	char text[PROXY_ADDR_STRLEN], reason[400];

	if (why == NULL)
		return 0;
	lv = proxy_addr_classify(a, NULL);
	proxy_addr_format(a, text, sizeof text);
	if (c->literal)
		snprintf(reason, sizeof reason, "%s address %s", why, text);
	else
		snprintf(reason, sizeof reason, "%s resolves to a %s address (%s)",
		    c->host, why, text);
	proxy_conn_refuse(c, reason, PROXY_RULE_ADDRESS,
	    lv == PROXY_ADDR_PRIVATE ? "To allow it, list the exact host name in "
	    "the profile's private_hosts." : "sbox never connects to such addresses.");
	return -1;
}

/* Match the request's host against the allowlist (no resolving); 0 when
 * allowed, -1 after refusing. Sets c->literal and c->private_ok. */
int
proxy_conn_allowed(struct proxy_conn *c)
{
	struct proxy *px = c->px;
	const struct plan_net *net = px->net;
	char reason[400], hint[600], canon[PROXY_ADDR_STRLEN];
	const char *match = c->host;
	int rc;

	if (net == NULL || net->mode == PLAN_NET_NONE) {
		snprintf(reason, sizeof reason, "network is off for profile %s", px->profile);
		proxy_conn_refuse(c, reason, PROXY_RULE_NETWORK_OFF,
		    "Use a profile with network access to reach hosts.");
		return -1;
	}
	rc = proxy_addr_parse(c->host, &c->addrs[0]);
	if (rc < 0) {
		proxy_conn_refuse(c, "invalid IP address literal", PROXY_RULE_ADDRESS,
		    "Use a host name or a plain IP address.");
		return -1;
	}
	c->literal = rc == 1;
	if (c->literal) {
		proxy_addr_format(&c->addrs[0], canon, sizeof canon);
		match = canon;
	}
	if (net->mode == PLAN_NET_REGISTRIES &&
	    !hostpat_match_list(net->hosts, match, c->port) &&
	    !hostpat_match_list(px->extra, match, c->port)) {
		snprintf(reason, sizeof reason, "%s is not in the allowlist of profile %s",
		    c->host, px->profile);
		snprintf(hint, sizeof hint, "To allow it: sbox session allow-host %s %s",
		    px->session, c->host);
		proxy_conn_refuse(c, reason, PROXY_RULE_ALLOWLIST, hint);
		return -1;
	}
	c->private_ok = !c->literal && proxy_name_in(net->private_hosts, c->host);
	if (c->literal) {
		c->n_addrs = 1;
		return proxy_conn_check_addr(c, &c->addrs[0]);
	}
	return 0;
}

static void proxy_conn_try_connect(struct proxy_conn *c);

/* evdns answer: collect and check every address, then connect. */
static void
proxy_conn_dns_cb(int result, struct evutil_addrinfo *res, void *arg)
{
	struct proxy_conn *c = arg;
	struct evutil_addrinfo *ai;
	size_t i;

	if (result == EVUTIL_EAI_CANCEL) {
		if (res != NULL)
			evutil_freeaddrinfo(res);
		return;
	}
	c->dns_req = NULL;
	c->dns_done = 1;
	if (c->dead || c->state != PC_RESOLVING) {
		if (res != NULL)
			evutil_freeaddrinfo(res);
		return;
	}
	c->n_addrs = 0;
	for (ai = res; result == 0 && ai != NULL; ai = ai->ai_next) {
		struct proxy_addr a;

		if (proxy_addr_from_sockaddr(ai->ai_addr, &a) < 0)
			continue;
		for (i = 0; i < c->n_addrs; i++)
			if (memcmp(&c->addrs[i], &a, sizeof a) == 0)
				break;
		if (i == c->n_addrs && c->n_addrs < PROXY_MAX_ADDRS)
			c->addrs[c->n_addrs++] = a;
	}
	if (res != NULL)
		evutil_freeaddrinfo(res);
	if (c->n_addrs == 0) {
		char why[400];

		snprintf(why, sizeof why, "cannot resolve %s: %s", c->host,
		    result == 0 ? "no addresses" : evutil_gai_strerror(result));
		proxy_conn_fail(c, 502, PROXY_SOCKS_HOST_UNREACHABLE, why);
		return;
	}
	for (i = 0; i < c->n_addrs; i++)
		if (proxy_conn_check_addr(c, &c->addrs[i]) < 0)
			return;
	c->addr_i = 0;
	proxy_conn_try_connect(c);
}

/* Resolve (if needed) and connect to the request's host; the allowlist check
 * has passed. On success the connected upstream calls proxy_conn_connected. */
void
proxy_conn_resolve_connect(struct proxy_conn *c)
{
	struct proxy *px = c->px;
	const struct plan_resolve *r;
	struct evutil_addrinfo hints;
	struct evdns_getaddrinfo_request *req;
	size_t i;

	proxy_conn_drop_upstream(c);
	c->state = PC_RESOLVING;
	proxy_conn_timer(c, px->lim.connect_timeout_ms);
	if (c->literal) {
		c->addr_i = 0;
		proxy_conn_try_connect(c);
		return;
	}
	r = proxy_resolve_entry(px->net, c->host);
	if (r != NULL) {
		c->n_addrs = 0;
		for (i = 0; r->addrs != NULL && r->addrs[i] != NULL &&
		    c->n_addrs < PROXY_MAX_ADDRS; i++) {
			if (proxy_addr_parse(r->addrs[i], &c->addrs[c->n_addrs]) == 1)
				c->n_addrs++;
		}
		if (c->n_addrs == 0) {
			proxy_conn_fail(c, 502, PROXY_SOCKS_HOST_UNREACHABLE,
			    "the resolve table has no usable address for this host");
			return;
		}
		for (i = 0; i < c->n_addrs; i++)
			if (proxy_conn_check_addr(c, &c->addrs[i]) < 0)
				return;
		c->addr_i = 0;
		proxy_conn_try_connect(c);
		return;
	}
	if (px->dns == NULL) {
		proxy_conn_fail(c, 502, PROXY_SOCKS_HOST_UNREACHABLE,
		    "no resolver available");
		return;
	}
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	hints.ai_flags = EVUTIL_AI_ADDRCONFIG;
	c->dns_done = 0;
	req = evdns_getaddrinfo(px->dns, c->host, NULL, &hints, proxy_conn_dns_cb, c);
	if (!c->dns_done)
		c->dns_req = req;
}

/* Upstream events while connecting: connected, or try the next address. */
static void
proxy_conn_up_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct proxy_conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_CONNECTED) {
		c->up_ready = 1;
		snprintf(c->up_host, sizeof c->up_host, "%s", c->host);
		c->up_port = c->port;
		proxy_conn_connected(c);
		return;
	}
	if (what & (BEV_EVENT_ERROR | BEV_EVENT_EOF)) {
		if (!c->up_ready) {
			c->last_errno = EVUTIL_SOCKET_ERROR();
			proxy_conn_drop_upstream(c);
			c->addr_i++;
			proxy_conn_try_connect(c);
			return;
		}
		proxy_conn_upstream_eof(c, (what & BEV_EVENT_ERROR) != 0);
	}
}

/* Connect to the next checked address (c->addrs[c->addr_i]). */
static void
proxy_conn_try_connect(struct proxy_conn *c)
{
	struct proxy *px = c->px;
	struct sockaddr_storage ss;
	socklen_t len;

	c->state = PC_CONNECTING;
	if (c->addr_i >= c->n_addrs) {
		char why[400];

		snprintf(why, sizeof why, "cannot connect to %s port %d: %s", c->host,
		    c->port, c->last_errno ? strerror(c->last_errno) : "no address");
		proxy_conn_fail(c, 502, c->last_errno == ECONNREFUSED ?
		    PROXY_SOCKS_REFUSED : PROXY_SOCKS_HOST_UNREACHABLE, why);
		return;
	}
	len = proxy_addr_to_sockaddr(&c->addrs[c->addr_i], c->port, &ss);
	c->up = bufferevent_socket_new(px->base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (c->up == NULL) {
		proxy_conn_fail(c, 503, PROXY_SOCKS_FAILURE, "out of memory");
		return;
	}
	bufferevent_setcb(c->up, proxy_conn_up_read_cb, proxy_conn_up_write_cb,
	    proxy_conn_up_event_cb, c);
	bufferevent_setwatermark(c->up, EV_READ, 0, px->lim.buffer_bytes);
	bufferevent_setwatermark(c->up, EV_WRITE, px->lim.buffer_bytes / 2, 0);
	if (bufferevent_socket_connect(c->up, (struct sockaddr *)&ss, (int)len) < 0) {
		/* bufferevent_socket_connect has reported the error through
		 * the event callback already, or the socket could not be made. */
		if (c->up != NULL && !c->up_ready && !c->dead && c->state == PC_CONNECTING) {
			c->last_errno = errno;
			proxy_conn_drop_upstream(c);
			c->addr_i++;
			proxy_conn_try_connect(c);
		}
		return;
	}
	bufferevent_enable(c->up, EV_READ | EV_WRITE);
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
	case PC_CONNECTING:
		proxy_conn_fail(c, 504, PROXY_SOCKS_HOST_UNREACHABLE,
		    "connecting to the host timed out");
		return;
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

/* Mark activity on a connection (for the idle timeout). */
void
proxy_conn_touch(struct proxy_conn *c)
{
	event_base_gettimeofday_cached(c->px->base, &c->last_active);
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
		log_warn("proxy %s: connection limit reached, dropping a connection",
		    px->session);
		evutil_closesocket(fd);
		return;
	}
	c = calloc(1, sizeof *c);
	if (c == NULL) {
		evutil_closesocket(fd);
		return;
	}
	c->px = px;
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
	bufferevent_enable(c->cli, EV_READ | EV_WRITE);
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

/* accept() failed (EMFILE and the like): pause the listener for a second. */
static void
proxy_listener_error_cb(struct evconnlistener *l, void *arg)
{
	struct proxy_listener *pl = arg;
	struct timeval tv = { 1, 0 };

	log_warn("proxy %s: accept: %s", pl->px->session,
	    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
	evconnlistener_disable(l);
	evtimer_add(pl->resume, &tv);
}

/* Add one listener for fd (port 0: the proxy; > 0: a local forward). */
static int
proxy_listen(struct proxy *px, int fd, int port, sbox_error *err)
{
	struct proxy_listener *pl;

	pl = calloc(1, sizeof *pl);
	if (pl == NULL) {
		close(fd);
		return error_set(err, E_INTERNAL, "out of memory");
	}
	pl->px = px;
	pl->local_port = port;
	evutil_make_socket_nonblocking(fd);
	evutil_make_socket_closeonexec(fd);
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
	px->arg = cfg->arg;
	px->lim = cfg->limits;
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
	error_set(err, E_INTERNAL, "out of memory");
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
		return error_set(err, E_INTERNAL, "out of memory");
	px->extra = n;
	px->extra[i] = strdup(host);
	px->extra[i + 1] = NULL;
	if (px->extra[i] == NULL)
		return error_set(err, E_INTERNAL, "out of memory");
	return 0;
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
