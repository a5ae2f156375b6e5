/* proxy.h: one network proxy per session. The proxy process (sboxd: proxy,
 * daemon/proxy/proxy-main.c; sboxd's side is daemon/proxy/proxy-proc.h) accepts on
 * listening sockets that sbox-init created inside the sandbox's network
 * namespace; each
 * connection speaks CONNECT, absolute-form HTTP or SOCKS5 (the first byte
 * tells which). The host is matched against the allowlist first (a refused
 * name is never resolved), resolved once (the plan's resolve table, then
 * evdns, never blocking), every address is classified (daemon/proxy/proxy-addr.h),
 * and the proxy connects to exactly an address it checked.
 *
 * Decisions:
 *  - network none: every request is refused ("network is off for profile X").
 *  - registries: the plan's host patterns plus hosts added by
 *    proxy_allow_host; internet: any host whose addresses are public.
 *  - A name in private_hosts may resolve to private, ULA, CGNAT,
 *    benchmarking, documentation and reserved addresses, but never to
 *    loopback, unspecified, link-local, metadata, multicast or broadcast:
 *    those would reach this computer or the cloud's credentials.
 *  - If any address of a name is refused, the name is refused (no partial
 *    use), so a DNS answer cannot slip a private address in beside a public one.
 *  - HTTP: Host must agree with the target; every request on a kept-alive
 *    connection is parsed and checked again; an upstream connection is only
 *    reused for the same host and port; redirects are relayed, not followed.
 *  - local forwards (local_ports) connect to 127.0.0.1:port on this computer
 *    without a decision: the profile listed the port. */
#ifndef SBOX_PROXY_H
#define SBOX_PROXY_H

#include <stddef.h>

#include "policy/plan.h"
#include "protocol/error.h"

struct event_base;
struct evdns_base;
struct proxy;

/* Why a request was refused (the `rule` argument of the refusal callback). */
#define PROXY_RULE_NETWORK_OFF "network: none"
#define PROXY_RULE_ALLOWLIST   "network allowlist"
#define PROXY_RULE_ADDRESS     "non-public addresses"
#define PROXY_RULE_HOST_HEADER "Host header check"

/* Limits; a zero field takes the default in brackets. */
struct proxy_limits {
	int    max_conns;          /* client connections of this proxy [1024] */
	int    head_timeout_ms;    /* a request head or SOCKS request must arrive
	                              within this, from accept or the last response [30000] */
	int    idle_timeout_ms;    /* no bytes either way on a tunnel or request [300000] */
	int    connect_timeout_ms; /* resolve + connect [10000] */
	size_t buffer_bytes;       /* bytes buffered per direction and side [262144] */
};

/* Called for every refusal, before the client is answered; it runs inside
 * the proxy's callbacks, so it must not call proxy_free. */
typedef void (*proxy_refusal_fn)(const char *session, const char *host, int port,
    const char *reason, const char *rule, void *arg);
/* Called when an allowed host could not be reached (its name does not
 * resolve, the connection is refused or times out: the 502 or 504 the
 * client is answered), with the cause in a few words. Same constraints. */
typedef void (*proxy_failure_fn)(const char *session, const char *host, int port,
    const char *cause, void *arg);
/* The proxy process's form of the refusal callback: the refusal is recorded
 * elsewhere (by sboxd); the client is answered once proxy_refusal_noted(px,
 * serial) is called (or the connection's timeout ends it). */
typedef void (*proxy_refusal_async_fn)(struct proxy *px, unsigned long long serial,
    const char *host, int port, const char *reason, const char *rule, void *arg);
/* Asks for the hosts file's addresses of name (read where the file is);
 * proxy_hosts_answer(px, serial, ...) continues the connection. */
typedef void (*proxy_hosts_fn)(struct proxy *px, unsigned long long serial,
    const char *name, void *arg);

struct proxy_config {
	struct event_base *base;      /* the daemon's loop (sboxd.base) */
	struct evdns_base *dns;       /* the daemon's resolver (sboxd.dns); NULL: only
	                                 the resolve table and IP literals work */
	const int  *listen_fds;       /* listening sockets; the proxy owns and closes them */
	size_t      n_listen_fds;
	const char *session;          /* session id (copied) */
	const char *profile;          /* profile name, for messages (copied) */
	const struct plan_net *net;   /* the session's network plan; must outlive the proxy */
	proxy_refusal_fn on_refusal;  /* may be NULL */
	proxy_failure_fn on_failure;  /* may be NULL */
	proxy_refusal_async_fn on_refusal_async; /* instead of on_refusal, or NULL */
	proxy_hosts_fn on_hosts;      /* NULL: the hosts file is read here */
	void       *arg;
	struct proxy_limits limits;
};

/* Start a proxy on the configured listening fds; NULL with err on failure
 * (the fds are closed then too). */
struct proxy *proxy_new(const struct proxy_config *cfg, sbox_error *err);
/* Close every listener and connection and free the proxy. */
void proxy_free(struct proxy *px);
/* Allow one more host pattern (session.allow_host); -1 with err if invalid. */
int proxy_allow_host(struct proxy *px, const char *host, sbox_error *err);
/* Was host:port allowed by proxy_allow_host (after the session began)? */
int proxy_allowed_later(const struct proxy *px, const char *host, int port);
/* Accept on listen_fd (a listener sbox-init made on 127.0.0.1:port inside the
 * sandbox) and forward each connection to 127.0.0.1:port on this computer.
 * The proxy owns listen_fd. 0, or -1 with err. */
int proxy_add_local_forward(struct proxy *px, int listen_fd, int port,
    sbox_error *err);
/* The refusal of connection serial is recorded: answer its client. */
void proxy_refusal_noted(struct proxy *px, unsigned long long serial);
/* The hosts file's addresses for connection serial's name (n == 0: not in
 * the file): check them and connect, or go on to DNS. */
struct proxy_addr;
void proxy_hosts_answer(struct proxy *px, unsigned long long serial,
    const struct proxy_addr *addrs, size_t n);
/* Live client connections of this proxy. */
int proxy_connections(const struct proxy *px);
/* Cap on client connections over all proxies [16384]. */
void proxy_set_global_limit(int max_conns);
/* The limit proxy_set_global_limit set. */
int proxy_global_limit(void);

#endif
