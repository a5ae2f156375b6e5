/* proxy-int.h: the proxy's internal state, shared by proxy.c (life cycle,
 * listeners), proxy-conn.c (ending and answering a connection),
 * proxy-connect.c (decision, resolving, connecting), proxy-tunnel.c
 * (tunnels) and proxy-relay.c (protocols and byte relay); each calls only
 * the files listed after it.
 * Nothing outside daemon/proxy*.c includes this. */
#ifndef SBOX_PROXY_INT_H
#define SBOX_PROXY_INT_H

#include <stdint.h>
#include <sys/queue.h>
#include <sys/time.h>

#include <event2/util.h>

#include "daemon/proxy/proxy.h"
#include "daemon/proxy/proxy-addr.h"
#include "daemon/proxy/proxy-http.h"
#include "daemon/proxy/proxy-chunked.h"
#include "daemon/proxy/proxy-socks.h"

struct bufferevent;
struct evconnlistener;
struct evdns_getaddrinfo_request;
struct event;

#define PROXY_MAX_ADDRS 16   /* addresses of one name that are checked and tried */
#define PROXY_LINGER_MS 2000 /* after the last answer, read and discard this long */
#define PROXY_LINGER_BYTES (1024 * 1024) /* ... or until this many bytes came */
#define PROXY_LOOPBACK_CC "reno" /* congestion control of loopback-only sockets */

enum proxy_conn_kind { PK_HTTP, PK_SOCKS, PK_LOCAL };

enum proxy_conn_state {
	PC_DETECT,      /* waiting for the first byte */
	PC_SOCKS_GREET, /* SOCKS5 greeting */
	PC_SOCKS_REQ,   /* SOCKS5 request */
	PC_HTTP_HEAD,   /* an HTTP request head (the first, or the next one) */
	PC_RESOLVING,   /* allowed; resolving the name */
	PC_CONNECTING,  /* connecting to a checked address */
	PC_TUNNEL,      /* relaying bytes both ways */
	PC_HTTP,        /* relaying one HTTP request and its response */
	PC_REFUSING,    /* refused; waiting until sboxd recorded it */
	PC_CLOSING,     /* flushing the last answer to the client, then lingering */
	PC_DEAD,        /* closed; freed from the loop */
};

/* Progress of the request body and the response in PC_HTTP. */
enum proxy_req_phase { RQ_BODY, RQ_DONE };
enum proxy_resp_phase { RS_HEAD, RS_LENGTH, RS_CHUNKED, RS_CLOSE, RS_DONE };

struct proxy_conn {
	struct proxy          *px;
	LIST_ENTRY(proxy_conn) link;
	unsigned long long     serial;    /* names it in messages to sboxd */
	int                    hosts_wait;/* waiting for the hosts file's answer */
	char                  *refuse_reason, *refuse_rule, *refuse_hint; /* PC_REFUSING */
	enum proxy_conn_kind   kind;
	enum proxy_conn_state  state;
	int                    dead;
	struct bufferevent    *cli;       /* the sandbox side */
	struct bufferevent    *up;        /* the host side, or NULL */
	int                    up_ready;  /* up is connected */
	char                   up_host[PROXY_HTTP_HOST_MAX]; /* what up is connected to */
	int                    up_port;
	struct event          *timer;     /* head / connect / idle / closing timeout */
	struct event          *free_ev;   /* deferred free */
	struct timeval         last_active;
	/* the current target */
	char                   host[PROXY_HTTP_HOST_MAX];
	int                    port;
	int                    literal;   /* host is an IP literal */
	int                    private_ok;/* host is in private_hosts */
	struct proxy_addr      addrs[PROXY_MAX_ADDRS];
	size_t                 n_addrs, addr_i;
	int                    last_errno;
	struct evdns_getaddrinfo_request *dns_req;
	int                    dns_done;
	/* HTTP */
	struct proxy_http_parser *req;    /* request heads */
	struct proxy_http_parser *resp;   /* response heads */
	int                    connect_method; /* the request is CONNECT */
	int                    req_keep;  /* the client keeps the connection alive */
	int                    resp_keep; /* the upstream does */
	int                    resp_started; /* response bytes went to the client */
	enum proxy_req_phase   req_phase;
	enum proxy_resp_phase  resp_phase;
	enum proxy_http_body   req_body;
	uint64_t               req_left, resp_left;
	struct proxy_chunked req_chunked, resp_chunked;
	size_t                 resp_head_len; /* response head bytes parsed, still in up's input */
	int                    cli_eof, up_eof;
	int                    up_shut;   /* write side of up shut down (client EOF) */
	struct event          *tun_ev[2]; /* tunnel: our reads of cli (0) and up (1) */
	int                    tun_paused[2]; /* the other side's output is full */
	uint64_t               tun_bytes[2]; /* bytes each direction carried */
	int                    lingering; /* answer sent, our side shut down */
	size_t                 linger_bytes; /* client bytes discarded while lingering */
};

struct proxy_listener {
	struct proxy            *px;
	LIST_ENTRY(proxy_listener) link;
	struct evconnlistener   *lev;
	struct event            *resume;
	int                      local_port; /* 0: the proxy; > 0: forward to 127.0.0.1:port */
};

struct proxy {
	struct event_base     *base;
	struct evdns_base     *dns;
	char                  *session;
	char                  *profile;
	const struct plan_net *net;
	char                 **extra;     /* hosts added by proxy_allow_host */
	proxy_refusal_fn       on_refusal;
	proxy_failure_fn       on_failure;
	proxy_refusal_async_fn on_refusal_async;
	proxy_hosts_fn         on_hosts;
	void                  *arg;
	struct proxy_limits    lim;
	const struct proxy_upstream_ops *up; /* the relay's (proxy_relay_upstream) */
	LIST_HEAD(, proxy_conn) conns;
	LIST_HEAD(, proxy_listener) listeners;
	int                    n_conns;
};

/* The relay's side of an upstream connection: its bufferevent callbacks,
 * and what follows once it is connected or has ended. proxy-relay.c
 * provides it (proxy_relay_upstream); proxy.c gives it to each proxy, and
 * proxy-connect.c, a floor below the relay, calls it from there. */
struct proxy_upstream_ops {
	void (*read)(struct bufferevent *bev, void *arg);
	void (*write)(struct bufferevent *bev, void *arg);
	void (*connected)(struct proxy_conn *c);
	void (*ended)(struct proxy_conn *c, int error);
};

/* proxy-conn.c: ending and answering a connection (the lowest floor) */
void proxy_conn_tunnel_stop(struct proxy_conn *c);
void proxy_conn_close(struct proxy_conn *c);
void proxy_conn_close_after_flush(struct proxy_conn *c);
void proxy_conn_drop_upstream(struct proxy_conn *c);
void proxy_conn_timer(struct proxy_conn *c, int ms);
void proxy_conn_touch(struct proxy_conn *c);
void proxy_conn_refuse(struct proxy_conn *c, const char *reason, const char *rule,
    const char *hint);
void proxy_conn_refuse_answer(struct proxy_conn *c, const char *reason,
    const char *rule, const char *hint);
void proxy_conn_fail(struct proxy_conn *c, int status, int socks_code, const char *why);
void proxy_conn_unreachable(struct proxy_conn *c, int status, int socks_code,
    const char *why, const char *cause);

/* proxy-tunnel.c: a tunnel's bytes (over proxy-conn.c) */
void proxy_tunnel_init(void);
int proxy_tunnel_start(struct proxy_conn *c);
void proxy_tunnel_write_now(struct bufferevent *bev, const void *data, size_t len);
void proxy_tunnel_want_write(struct bufferevent *bev);
void proxy_tunnel_pump(struct proxy_conn *c);

/* proxy-connect.c: the decision, resolving, connecting (over proxy-conn.c) */
int proxy_conn_allowed(struct proxy_conn *c);
void proxy_conn_resolve_connect(struct proxy_conn *c);
void proxy_conn_try_connect(struct proxy_conn *c);
void proxy_conn_hosts_answer(struct proxy_conn *c, const struct proxy_addr *a,
    size_t n);

/* proxy-relay.c: protocols and byte relay (over the three above) */
extern const struct proxy_upstream_ops proxy_relay_upstream;
void proxy_conn_cli_read_cb(struct bufferevent *bev, void *arg);
void proxy_conn_cli_write_cb(struct bufferevent *bev, void *arg);
void proxy_conn_cli_event_cb(struct bufferevent *bev, short what, void *arg);

#endif
