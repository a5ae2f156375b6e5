/* proxy-relay.c: what the proxy does with bytes once a connection is
 * accepted: tell SOCKS5 from HTTP by the first byte, read the SOCKS request
 * or the HTTP request head, and relay: a tunnel (CONNECT, SOCKS, local
 * forwards) moves bytes both ways; an absolute-form HTTP request is rewritten
 * to origin-form, its body forwarded by its framing, and the response head
 * parsed to find the response's end, so the next request on a kept-alive
 * connection is parsed and checked again (tunnels: proxy-tunnel.c). Bytes
 * move from one side to the other only while the other side's output has
 * room (buffer_bytes); the bufferevent read watermark stops reading a side
 * whose input is full. */
#include "daemon/proxy/proxy-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

static void proxy_relay_pump(struct proxy_conn *c);
static void proxy_relay_http_head(struct proxy_conn *c);
static void proxy_conn_upstream_eof(struct proxy_conn *c, int error);

/* Move up to max bytes from src to dst, as far as dst has room; returns
 * the bytes moved. */
static size_t
proxy_relay_move(struct proxy_conn *c, struct evbuffer *src, struct evbuffer *dst,
    uint64_t max)
{
	size_t cap = c->px->lim.buffer_bytes, have = evbuffer_get_length(dst);
	size_t n = evbuffer_get_length(src);

	if (have >= cap)
		return 0;
	if (n > cap - have)
		n = cap - have;
	if ((uint64_t)n > max)
		n = (size_t)max;
	if (n > 0)
		evbuffer_remove_buffer(src, dst, n);
	return n;
}

/* Switch to relaying bytes both ways. */
static void
proxy_relay_start_tunnel(struct proxy_conn *c)
{
	c->state = PC_TUNNEL;
	if (c->req != NULL) {
		proxy_http_free(c->req);
		free(c->req);
		c->req = NULL;
	}
	if (c->resp != NULL) {
		proxy_http_free(c->resp);
		free(c->resp);
		c->resp = NULL;
	}
	proxy_conn_touch(c);
	proxy_conn_timer(c, c->px->lim.idle_timeout_ms);
	if (proxy_tunnel_start(c) < 0) {
		proxy_conn_close(c);
		return;
	}
	proxy_tunnel_pump(c);
}

/* Send the rewritten request head upstream and start relaying the request. */
static void
proxy_relay_http_send(struct proxy_conn *c)
{
	const struct proxy_http_msg *m = &c->req->msg;
	size_t len;
	char *head = proxy_http_upstream_head(m, &len);

	if (head == NULL) {
		proxy_conn_fail(c, 503, 0, "out of memory");
		return;
	}
	proxy_tunnel_write_now(c->up, head, len);
	free(head);
	c->req_keep = m->keep_alive;
	c->req_body = m->body;
	c->req_left = m->length;
	proxy_chunked_init(&c->req_chunked);
	c->req_phase = m->body == PROXY_HTTP_BODY_NONE ? RQ_DONE : RQ_BODY;
	if (c->resp == NULL) {
		c->resp = malloc(sizeof *c->resp);
		if (c->resp == NULL) {
			proxy_conn_fail(c, 503, 0, "out of memory");
			return;
		}
		proxy_http_init(c->resp, PROXY_HTTP_RESPONSE,
		    c->px->lim.buffer_bytes < PROXY_HTTP_MAX_RESPONSE_HEAD ?
		    c->px->lim.buffer_bytes : PROXY_HTTP_MAX_RESPONSE_HEAD);
	} else {
		proxy_http_reset(c->resp);
	}
	c->resp->head_request = m->head_method;
	c->resp_phase = RS_HEAD;
	c->resp_head_len = 0;
	c->resp_started = 0;
	c->state = PC_HTTP;
	proxy_conn_touch(c);
	proxy_conn_timer(c, c->px->lim.idle_timeout_ms);
	proxy_relay_pump(c);
}

/* A request head is complete: check it and send it on. */
static void
proxy_relay_http_request(struct proxy_conn *c)
{
	const struct proxy_http_msg *m = &c->req->msg;

	snprintf(c->host, sizeof c->host, "%s", m->host);
	c->port = m->port;
	c->connect_method = m->connect;
	c->resp_started = 0;
	if (proxy_conn_allowed(c) < 0)
		return;
	if (!m->connect && c->up != NULL && c->up_ready && c->up_port == c->port &&
	    strcmp(c->up_host, c->host) == 0) {
		proxy_relay_http_send(c);
		return;
	}
	proxy_conn_resolve_connect(c);
}

/* Parse the client's bytes as a request head. */
static void
proxy_relay_http_head(struct proxy_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->cli);

	while (!c->dead && c->state == PC_HTTP_HEAD && evbuffer_get_length(in) > 0) {
		struct evbuffer_iovec v;
		size_t used;
		int rc;

		if (evbuffer_peek(in, -1, NULL, &v, 1) < 1 || v.iov_len == 0)
			break;
		rc = proxy_http_feed(c->req, v.iov_base, v.iov_len, &used);
		evbuffer_drain(in, used);
		if (rc == PROXY_HTTP_MORE)
			continue;
		if (rc == PROXY_HTTP_ERROR) {
			if (c->req->status == 403) {
				snprintf(c->host, sizeof c->host, "%s", c->req->msg.host);
				c->port = c->req->msg.port;
				proxy_conn_refuse(c, c->req->error, PROXY_RULE_HOST_HEADER,
				    "Send a Host header equal to the request target, or none.");
			} else {
				proxy_conn_fail(c, c->req->status, 0, c->req->error);
			}
			return;
		}
		proxy_relay_http_request(c);
		return;
	}
}

/* The response ended: go back to reading the next request, or close. */
static void
proxy_relay_http_done(struct proxy_conn *c)
{
	if (!c->req_keep || c->req_phase != RQ_DONE || c->cli_eof) {
		proxy_conn_close_after_flush(c);
		return;
	}
	if (!c->resp_keep || c->up_eof ||
	    evbuffer_get_length(bufferevent_get_input(c->up)) > 0)
		proxy_conn_drop_upstream(c);
	proxy_http_reset(c->req);
	c->resp_started = 0;	/* an error in the next head is answered */
	c->state = PC_HTTP_HEAD;
	proxy_conn_timer(c, c->px->lim.head_timeout_ms);
	bufferevent_enable(c->cli, EV_READ);
	proxy_tunnel_want_write(c->cli);
	proxy_relay_http_head(c);
}

/* Forward request body bytes per the request's framing. */
static void
proxy_relay_http_body(struct proxy_conn *c)
{
	struct evbuffer *ci = bufferevent_get_input(c->cli);
	struct evbuffer *uo = bufferevent_get_output(c->up);
	size_t cap = c->px->lim.buffer_bytes;

	if (c->req_body == PROXY_HTTP_BODY_LENGTH) {
		c->req_left -= proxy_relay_move(c, ci, uo, c->req_left);
		if (c->req_left == 0)
			c->req_phase = RQ_DONE;
		return;
	}
	while (evbuffer_get_length(uo) < cap && evbuffer_get_length(ci) > 0) {
		struct evbuffer_iovec v;
		size_t k, used;
		int rc;

		if (evbuffer_peek(ci, -1, NULL, &v, 1) < 1 || v.iov_len == 0)
			break;
		k = v.iov_len;
		if (k > cap - evbuffer_get_length(uo))
			k = cap - evbuffer_get_length(uo);
		rc = proxy_chunked_feed(&c->req_chunked, v.iov_base, k, &used);
		if (used > 0)
			evbuffer_remove_buffer(ci, uo, used);
		if (rc == PROXY_HTTP_DONE) {
			c->req_phase = RQ_DONE;
			return;
		}
		if (rc == PROXY_HTTP_ERROR) {
			proxy_conn_fail(c, 400, 0, c->req_chunked.error);
			return;
		}
	}
}

/* Relay response bytes; parse heads to find where each response ends. */
static void
proxy_relay_http_response(struct proxy_conn *c)
{
	struct evbuffer *ui = bufferevent_get_input(c->up);
	struct evbuffer *co = bufferevent_get_output(c->cli);
	size_t cap = c->px->lim.buffer_bytes;

	while (!c->dead && c->state == PC_HTTP) {
		const struct proxy_http_msg *m = &c->resp->msg;
		struct evbuffer_ptr pos;
		struct evbuffer_iovec v;
		size_t used, k;
		int rc, head_req;

		switch (c->resp_phase) {
		case RS_HEAD:
			if (evbuffer_get_length(ui) <= c->resp_head_len)
				return;
			evbuffer_ptr_set(ui, &pos, c->resp_head_len, EVBUFFER_PTR_SET);
			if (evbuffer_peek(ui, -1, &pos, &v, 1) < 1 || v.iov_len == 0)
				return;
			rc = proxy_http_feed(c->resp, v.iov_base, v.iov_len, &used);
			c->resp_head_len += used;
			if (rc == PROXY_HTTP_MORE)
				continue;
			if (rc == PROXY_HTTP_ERROR) {
				char why[200];
				snprintf(why, sizeof why, "the host sent a malformed response: %s",
				    c->resp->error);
				proxy_conn_fail(c, 502, 0, why);
				return;
			}
			evbuffer_remove_buffer(ui, co, c->resp_head_len);
			c->resp_head_len = 0;
			c->resp_started = 1;
			if (m->status == 101) {
				proxy_relay_start_tunnel(c);
				return;
			}
			if (m->status < 200) {
				head_req = c->resp->head_request;
				proxy_http_reset(c->resp);
				c->resp->head_request = head_req;
				continue;
			}
			c->resp_keep = m->keep_alive;
			switch (m->body) {
			case PROXY_HTTP_BODY_NONE:
				c->resp_phase = RS_DONE;
				break;
			case PROXY_HTTP_BODY_LENGTH:
				c->resp_left = m->length;
				c->resp_phase = m->length == 0 ? RS_DONE : RS_LENGTH;
				break;
			case PROXY_HTTP_BODY_CHUNKED:
				proxy_chunked_init(&c->resp_chunked);
				c->resp_phase = RS_CHUNKED;
				break;
			case PROXY_HTTP_BODY_CLOSE:
				c->resp_phase = RS_CLOSE;
				break;
			}
			continue;
		case RS_LENGTH:
			c->resp_left -= proxy_relay_move(c, ui, co, c->resp_left);
			if (c->resp_left > 0)
				return;
			c->resp_phase = RS_DONE;
			continue;
		case RS_CHUNKED:
			if (evbuffer_get_length(co) >= cap || evbuffer_get_length(ui) == 0)
				return;
			if (evbuffer_peek(ui, -1, NULL, &v, 1) < 1 || v.iov_len == 0)
				return;
			k = v.iov_len;
			if (k > cap - evbuffer_get_length(co))
				k = cap - evbuffer_get_length(co);
			rc = proxy_chunked_feed(&c->resp_chunked, v.iov_base, k, &used);
			if (used > 0)
				evbuffer_remove_buffer(ui, co, used);
			if (rc == PROXY_HTTP_ERROR) {
				proxy_conn_close_after_flush(c);
				return;
			}
			if (rc == PROXY_HTTP_DONE)
				c->resp_phase = RS_DONE;
			continue;
		case RS_CLOSE:
			proxy_relay_move(c, ui, co, UINT64_MAX);
			if (c->up_eof && evbuffer_get_length(ui) == 0)
				proxy_conn_close_after_flush(c);
			return;
		case RS_DONE:
			proxy_relay_http_done(c);
			return;
		}
	}
}

/* Move whatever can move in the connection's current state. */
static void
proxy_relay_pump(struct proxy_conn *c)
{
	if (c->dead || c->up == NULL)
		return;
	if (c->state == PC_TUNNEL) {
		proxy_tunnel_pump(c);
		return;
	}
	if (c->state != PC_HTTP)
		return;
	if (c->req_phase == RQ_BODY)
		proxy_relay_http_body(c);
	if (!c->dead && c->state == PC_HTTP)
		proxy_relay_http_response(c);
	if (!c->dead && c->state == PC_HTTP) {
		proxy_tunnel_want_write(c->cli);
		proxy_tunnel_want_write(c->up);
	}
}

/* Read the SOCKS5 greeting and request from the client. */
static void
proxy_relay_socks(struct proxy_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->cli);
	struct proxy_socks_request r;
	size_t n, used;
	uint8_t *p, reply[2];
	int rc, noauth, code;

	if (c->state == PC_SOCKS_GREET) {
		n = evbuffer_get_length(in);
		if (n > 257)
			n = 257;
		p = evbuffer_pullup(in, (ev_ssize_t)n);
		rc = proxy_socks_greeting(p, n, &used, &noauth);
		if (rc == 0)
			return;
		if (rc < 0) {
			proxy_conn_close(c);
			return;
		}
		evbuffer_drain(in, used);
		proxy_socks_method_reply(reply, noauth);
		proxy_tunnel_write_now(c->cli, reply, 2);
		if (!noauth) {
			proxy_conn_close_after_flush(c);
			return;
		}
		c->state = PC_SOCKS_REQ;
	}
	n = evbuffer_get_length(in);
	if (n > 262)
		n = 262;
	if (n == 0)
		return;
	p = evbuffer_pullup(in, (ev_ssize_t)n);
	rc = proxy_socks_request(p, n, &r, &used, &code);
	if (rc == 0)
		return;
	if (rc < 0) {
		proxy_conn_fail(c, 0, code, "bad SOCKS request");
		return;
	}
	evbuffer_drain(in, used);
	snprintf(c->host, sizeof c->host, "%s", r.host);
	c->port = r.port;
	if (proxy_conn_allowed(c) < 0)
		return;
	proxy_conn_resolve_connect(c);
}

/* Client bytes arrived. */
void
proxy_conn_cli_read_cb(struct bufferevent *bev, void *arg)
{
	struct proxy_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	proxy_conn_touch(c);
	if (c->state == PC_DETECT) {
		uint8_t *p = evbuffer_pullup(in, 1);

		if (p == NULL)
			return;
		if (p[0] == 0x05) {
			c->kind = PK_SOCKS;
			c->state = PC_SOCKS_GREET;
		} else {
			c->kind = PK_HTTP;
			c->req = malloc(sizeof *c->req);
			if (c->req == NULL) {
				proxy_conn_close(c);
				return;
			}
			proxy_http_init(c->req, PROXY_HTTP_REQUEST, 0);
			c->state = PC_HTTP_HEAD;
		}
	}
	switch (c->state) {
	case PC_SOCKS_GREET:
	case PC_SOCKS_REQ:
		proxy_relay_socks(c);
		break;
	case PC_HTTP_HEAD:
		proxy_relay_http_head(c);
		break;
	case PC_TUNNEL:
	case PC_HTTP:
		proxy_relay_pump(c);
		break;
	default:
		break;  /* resolving or connecting: the bytes wait */
	}
}

/* The client's output drained below the low watermark: move more. */
void
proxy_conn_cli_write_cb(struct bufferevent *bev, void *arg)
{
	(void)bev;
	proxy_relay_pump(arg);
}

/* The client closed or failed. */
void
proxy_conn_cli_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct proxy_conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_ERROR) {
		proxy_conn_close(c);
		return;
	}
	if (!(what & BEV_EVENT_EOF))
		return;
	c->cli_eof = 1;
	if (c->state == PC_TUNNEL) {
		proxy_relay_pump(c);
		return;
	}
	if (c->state == PC_HTTP) {
		proxy_relay_pump(c);
		if (!c->dead && c->state == PC_HTTP && c->req_phase != RQ_DONE)
			proxy_conn_close(c);
		return;
	}
	proxy_conn_close(c);
}

/* Upstream bytes arrived. */
static void
proxy_conn_up_read_cb(struct bufferevent *bev, void *arg)
{
	struct proxy_conn *c = arg;

	proxy_conn_touch(c);
	if (c->state == PC_HTTP_HEAD) {
		/* An idle kept-alive upstream spoke unasked: drop it. */
		(void)bev;
		proxy_conn_drop_upstream(c);
		return;
	}
	proxy_relay_pump(c);
}

/* The upstream's output drained below the low watermark: move more. */
static void
proxy_conn_up_write_cb(struct bufferevent *bev, void *arg)
{
	(void)bev;
	proxy_relay_pump(arg);
}

/* The upstream ended (EOF, or an error when error is set). */
static void
proxy_conn_upstream_eof(struct proxy_conn *c, int error)
{
	c->up_eof = 1;
	switch (c->state) {
	case PC_TUNNEL:
		if (error) {
			proxy_conn_close_after_flush(c);
			return;
		}
		proxy_relay_pump(c);
		return;
	case PC_HTTP:
		proxy_relay_pump(c);
		if (c->dead || c->state != PC_HTTP)
			return;
		if (c->resp_phase == RS_CLOSE)
			return;  /* waits for the client to take the rest */
		if (!c->resp_started)
			proxy_conn_fail(c, 502, 0, "the host closed the connection without an answer");
		else
			proxy_conn_close_after_flush(c);
		return;
	case PC_HTTP_HEAD:
		proxy_conn_drop_upstream(c);
		return;
	default:
		proxy_conn_close_after_flush(c);
		return;
	}
}

/* The upstream connection is up: answer the client and start relaying. */
static void
proxy_conn_connected(struct proxy_conn *c)
{
	static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	uint8_t r[PROXY_SOCKS_REPLY_LEN];

	c->up_eof = 0;
	c->up_shut = 0;
	switch (c->kind) {
	case PK_SOCKS:
		proxy_tunnel_write_now(c->cli, r, proxy_socks_reply(r, PROXY_SOCKS_OK));
		proxy_relay_start_tunnel(c);
		return;
	case PK_LOCAL:
		proxy_relay_start_tunnel(c);
		return;
	case PK_HTTP:
		if (c->connect_method) {
			proxy_tunnel_write_now(c->cli, established,
			    sizeof established - 1);
			proxy_relay_start_tunnel(c);
			return;
		}
		proxy_relay_http_send(c);
		return;
	}
}

/* The relay's side of an upstream, for proxy-connect.c (through px->up). */
const struct proxy_upstream_ops proxy_relay_upstream = {
	.read = proxy_conn_up_read_cb,
	.write = proxy_conn_up_write_cb,
	.connected = proxy_conn_connected,
	.ended = proxy_conn_upstream_eof,
};
