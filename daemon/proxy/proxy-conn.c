/* proxy-conn.c: one proxy connection's end and its answers: closing at
 * once or after the last answer is flushed (then lingering, so a client
 * still sending reads the answer rather than a reset), dropping the
 * upstream, the timer and activity mark, and the answers to the client
 * (403 for a refusal once recorded, other HTTP errors, SOCKS codes). The
 * floor under proxy-connect.c, proxy-tunnel.c and proxy-relay.c, which all
 * end or answer connections; proxy.c makes them. */
#include "daemon/proxy/proxy-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/dns.h>
#include <event2/event.h>

/* Stop relaying a tunnel's reads ourselves (freeing the events). */
void
proxy_conn_tunnel_stop(struct proxy_conn *c)
{
	int d;

	for (d = 0; d < 2; d++) {
		if (c->tun_ev[d] != NULL)
			event_free(c->tun_ev[d]);
		c->tun_ev[d] = NULL;
		c->tun_paused[d] = 0;
	}
}

/* Drop the upstream connection, if any. */
void
proxy_conn_drop_upstream(struct proxy_conn *c)
{
	proxy_conn_tunnel_stop(c);   /* a tunnel needs both sides */
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

/* Event-callback while closing: any error or EOF ends it. */
static void
proxy_conn_closing_event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	proxy_conn_close(arg);
}

/* Read-callback while lingering: discard what the client still sends;
 * close once it has sent too much. */
static void
proxy_conn_linger_read_cb(struct bufferevent *bev, void *arg)
{
	struct proxy_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	c->linger_bytes += evbuffer_get_length(in);
	evbuffer_drain(in, evbuffer_get_length(in));
	if (c->linger_bytes > PROXY_LINGER_BYTES)
		proxy_conn_close(c);
}

/* Write-callback while closing: once the answer is flushed, shut down our
 * side and linger, reading and discarding until the client closes (or the
 * linger time or byte bound ends it), so a client still sending a request
 * reads the answer instead of a reset. */
static void
proxy_conn_closing_write_cb(struct bufferevent *bev, void *arg)
{
	struct proxy_conn *c = arg;
	evutil_socket_t fd;

	if (evbuffer_get_length(bufferevent_get_output(bev)) != 0 || c->lingering)
		return;
	/* the client has sent all it will (its EOF came and was read): no
	 * reset to avoid, so no lingering (a wake-up and a read fewer) */
	if (c->cli_eof &&
	    evbuffer_get_length(bufferevent_get_input(bev)) == 0) {
		proxy_conn_close(c);
		return;
	}
	fd = bufferevent_getfd(bev);
	if (fd < 0 || shutdown(fd, SHUT_WR) < 0) {
		proxy_conn_close(c);
		return;
	}
	c->lingering = 1;
	bufferevent_setcb(bev, proxy_conn_linger_read_cb, NULL,
	    proxy_conn_closing_event_cb, c);
	bufferevent_setwatermark(bev, EV_READ, 0, 0);
	bufferevent_disable(bev, EV_WRITE);
	bufferevent_enable(bev, EV_READ);
	proxy_conn_timer(c, c->px->lim.head_timeout_ms < PROXY_LINGER_MS ?
	    c->px->lim.head_timeout_ms : PROXY_LINGER_MS);
	proxy_conn_linger_read_cb(bev, c);
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
	proxy_conn_closing_write_cb(c->cli, c);
}

/* The reason text of an HTTP status. */
static const char *
proxy_conn_status_text(int status)
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

	evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\n", status, proxy_conn_status_text(status));
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

/* Answer a refused request: 403 / SOCKS 0x02, or close. */
void
proxy_conn_refuse_answer(struct proxy_conn *c, const char *reason,
    const char *rule, const char *hint)
{
	char body[2048];

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

/* Refuse the current request: record it, then answer 403 / SOCKS 0x02 (in
 * the proxy process: once sboxd has recorded it, proxy_refusal_noted). */
void
proxy_conn_refuse(struct proxy_conn *c, const char *reason, const char *rule,
    const char *hint)
{
	struct proxy *px = c->px;

	if (px->on_refusal_async == NULL) {
		if (px->on_refusal != NULL)
			px->on_refusal(px->session, c->host, c->port, reason,
			    rule, px->arg);
		proxy_conn_refuse_answer(c, reason, rule, hint);
		return;
	}
	c->refuse_reason = strdup(reason);
	c->refuse_rule = strdup(rule);
	c->refuse_hint = strdup(hint);
	if (c->refuse_reason == NULL || c->refuse_rule == NULL ||
	    c->refuse_hint == NULL) {
		proxy_conn_close(c);
		return;
	}
	proxy_conn_drop_upstream(c);
	c->state = PC_REFUSING;
	bufferevent_setcb(c->cli, NULL, NULL, proxy_conn_closing_event_cb, c);
	bufferevent_disable(c->cli, EV_READ);
	proxy_conn_timer(c, px->lim.head_timeout_ms);
	px->on_refusal_async(px, c->serial, c->host, c->port, reason, rule,
	    px->arg);
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

/* The allowed host could not be reached: tell the owner the cause, then
 * fail the request as proxy_conn_fail does. */
void
proxy_conn_unreachable(struct proxy_conn *c, int status, int socks_code,
    const char *why, const char *cause)
{
	struct proxy *px = c->px;

	if (px->on_failure != NULL)
		px->on_failure(px->session, c->host, c->port, cause, px->arg);
	proxy_conn_fail(c, status, socks_code, why);
}

/* Mark activity on a connection (for the idle timeout). */
void
proxy_conn_touch(struct proxy_conn *c)
{
	event_base_gettimeofday_cached(c->px->base, &c->last_active);
}

