/* proxy-connect.c: the proxy's decision for one request, and connecting.
 * Order: network mode, then the allowlist on the name as given (or an IP
 * literal's canonical form), so a refused name is never resolved; then the
 * addresses: an IP literal as parsed, else the plan's resolve table, else
 * evdns (non-blocking); every address is classified and one refused address
 * refuses the name; then a connect to exactly a checked address (next
 * checked address on failure), never by name. */
#include "daemon/proxy/proxy-hosts.h"
#include "daemon/proxy/proxy-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/util.h>

#include "daemon/proxy/proxy-local.h"
#include "policy/hostpat.h"

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

/* Check one address for the current host; 0, or -1 after refusing. The
 * addresses of this computer and of its directly attached networks are
 * refused like private ones (a name in private_hosts may use them). */
static int
proxy_conn_check_addr(struct proxy_conn *c, const struct proxy_addr *a)
{
	const char *why = proxy_addr_refusal(a, c->private_ok), *local = NULL;
	enum proxy_addr_level lv;
	char text[PROXY_ADDR_STRLEN], reason[400];

	if (why == NULL && !c->private_ok)
		local = proxy_local_check(a);
	if (why == NULL && local == NULL)
		return 0;
	lv = local != NULL ? PROXY_ADDR_PRIVATE : proxy_addr_classify(a, NULL);
	proxy_addr_format(a, text, sizeof text);
	if (local != NULL && c->literal)
		snprintf(reason, sizeof reason, "%s is on %s", text, local);
	else if (local != NULL)
		snprintf(reason, sizeof reason, "%s resolves to an address on %s "
		    "(%s)", c->host, local, text);
	else if (c->literal)
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

	/* the session's provider's hosts are reachable in every mode */
	if (net == NULL || (net->mode == PLAN_NET_NONE &&
	    !hostpat_match_list(net->provider_hosts, c->host, c->port))) {
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
	if (net->mode != PLAN_NET_INTERNET &&
	    !hostpat_match_list(net->provider_hosts, match, c->port) &&
	    !hostpat_match_list(net->hosts, match, c->port) &&
	    !hostpat_match_list(px->extra, match, c->port)) {
		snprintf(reason, sizeof reason, "%s is not in the allowlist of profile %s",
		    c->host, px->profile);
		snprintf(hint, sizeof hint, "To allow it: sbox session allow-host %s %s",
		    px->session, c->host);
		proxy_conn_refuse(c, reason, PROXY_RULE_ALLOWLIST, hint);
		return -1;
	}
	c->private_ok = proxy_name_in(net->private_hosts, c->host) ||
	    (c->literal && proxy_name_in(net->private_hosts, match));
	if (c->literal) {
		c->n_addrs = 1;
		return proxy_conn_check_addr(c, &c->addrs[0]);
	}
	return 0;
}

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
		char why[400], cause[200];

		snprintf(why, sizeof why, "cannot resolve %s: %s", c->host,
		    result == 0 ? "no addresses" : evutil_gai_strerror(result));
		snprintf(cause, sizeof cause, "DNS: %s", result == 0 ?
		    "the name has no address" : result == EVUTIL_EAI_NONAME ?
		    "no such name" : result == EVUTIL_EAI_AGAIN ?
		    "no answer from the name server (try again later)" :
		    evutil_gai_strerror(result));
		proxy_conn_unreachable(c, 502, PROXY_SOCKS_HOST_UNREACHABLE, why,
		    cause);
		return;
	}
	for (i = 0; i < c->n_addrs; i++)
		if (proxy_conn_check_addr(c, &c->addrs[i]) < 0)
			return;
	c->addr_i = 0;
	proxy_conn_try_connect(c);
}

/* Resolve (if needed) and connect to the request's host; the allowlist check
 * has passed. On success the relay takes the connected upstream (px->up). */
void
proxy_conn_resolve_connect(struct proxy_conn *c)
{
	struct proxy *px = c->px;
	const struct plan_resolve *r;
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
			proxy_conn_unreachable(c, 502,
			    PROXY_SOCKS_HOST_UNREACHABLE, "the resolve table "
			    "has no usable address for this host", "the "
			    "config's resolve table has no usable address");
			return;
		}
		for (i = 0; i < c->n_addrs; i++)
			if (proxy_conn_check_addr(c, &c->addrs[i]) < 0)
				return;
		c->addr_i = 0;
		proxy_conn_try_connect(c);
		return;
	}
	/* the hosts file, as it is now (read again when it changed); in the
	 * proxy process, sboxd reads it and answers */
	if (px->on_hosts != NULL) {
		c->hosts_wait = 1;
		px->on_hosts(px, c->serial, c->host, px->arg);
		return;
	}
	c->n_addrs = proxy_hosts_lookup(c->host, c->addrs, PROXY_MAX_ADDRS);
	proxy_conn_hosts_answer(c, c->addrs, c->n_addrs);
}

/* The hosts file gave n addresses (0: not in it): check them and connect,
 * or ask DNS. */
void
proxy_conn_hosts_answer(struct proxy_conn *c, const struct proxy_addr *a,
    size_t n)
{
	struct proxy *px = c->px;
	struct evutil_addrinfo hints;
	struct evdns_getaddrinfo_request *req;
	size_t i;

	c->hosts_wait = 0;
	if (n > PROXY_MAX_ADDRS)
		n = PROXY_MAX_ADDRS;
	if (n > 0) {
		if (a != c->addrs)
			memcpy(c->addrs, a, n * sizeof *a);
		c->n_addrs = n;
		for (i = 0; i < c->n_addrs; i++)
			if (proxy_conn_check_addr(c, &c->addrs[i]) < 0)
				return;
		c->addr_i = 0;
		proxy_conn_try_connect(c);
		return;
	}
	if (px->dns == NULL) {
		proxy_conn_unreachable(c, 502, PROXY_SOCKS_HOST_UNREACHABLE,
		    "no resolver available", "DNS: sboxd has no resolver");
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

/* The upstream is connected: note to what, and hand it to the relay. */
static void
proxy_conn_up_connected(struct proxy_conn *c)
{
	c->up_ready = 1;
	snprintf(c->up_host, sizeof c->up_host, "%s", c->host);
	c->up_port = c->port;
	c->px->up->connected(c);
}

/* Upstream events while connecting: connected, or try the next address. */
static void
proxy_conn_up_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct proxy_conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_CONNECTED) {
		proxy_conn_up_connected(c);
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
		c->px->up->ended(c, (what & BEV_EVENT_ERROR) != 0);
	}
}

/* Start connecting fd to sa: 0 when connected already, 1 when under way,
 * -1 when it failed (errno). Over loopback or a veth pair the handshake is
 * usually over by the time connect returns; asking again tells (0 or
 * EISCONN; EALREADY while it goes on), which spares the new tunnel a trip
 * through the loop (two epoll calls and a getsockopt) before its reply. */
static int
proxy_conn_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -1;
	if (connect(fd, sa, len) == 0 || errno == EISCONN)
		return 0;
	return errno == EALREADY || errno == EINPROGRESS ? 1 : -1;
}

/* A socket connecting to the next checked address (c->addrs[c->addr_i],
 * then the ones after it); *state as proxy_conn_connect says. -1 when no
 * address is left (c->last_errno says why the last one failed). */
static int
proxy_conn_up_socket(struct proxy_conn *c, int *state)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	for (; c->addr_i < c->n_addrs; c->addr_i++) {
		len = proxy_addr_to_sockaddr(&c->addrs[c->addr_i], c->port, &ss);
		fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
		if (fd < 0) {
			c->last_errno = errno;
			continue;
		}
		/* relayed bytes go on at once (ssh, small requests) */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		/* a local forward's host side is this computer's loopback */
		if (c->kind == PK_LOCAL)
			setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION,
			    PROXY_LOOPBACK_CC, sizeof PROXY_LOOPBACK_CC - 1);
		*state = proxy_conn_connect(fd, (struct sockaddr *)&ss, len);
		if (*state >= 0)
			return fd;
		c->last_errno = errno;
		close(fd);
	}
	return -1;
}

/* Connect to the next checked address (c->addrs[c->addr_i]). */
void
proxy_conn_try_connect(struct proxy_conn *c)
{
	struct proxy *px = c->px;
	int fd, state = 1;

	c->state = PC_CONNECTING;
	if ((fd = proxy_conn_up_socket(c, &state)) < 0) {
		char why[400];

		snprintf(why, sizeof why, "cannot connect to %s port %d: %s", c->host,
		    c->port, c->last_errno ? strerror(c->last_errno) : "no address");
		proxy_conn_unreachable(c, 502, c->last_errno == ECONNREFUSED ?
		    PROXY_SOCKS_REFUSED : PROXY_SOCKS_HOST_UNREACHABLE, why,
		    c->last_errno ? strerror(c->last_errno) : "no address");
		return;
	}
	c->up = bufferevent_socket_new(px->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->up == NULL) {
		close(fd);
		proxy_conn_fail(c, 503, PROXY_SOCKS_FAILURE, "out of memory");
		return;
	}
	bufferevent_setcb(c->up, px->up->read, px->up->write,
	    proxy_conn_up_event_cb, c);
	bufferevent_setwatermark(c->up, EV_READ, 0, px->lim.buffer_bytes);
	bufferevent_setwatermark(c->up, EV_WRITE, px->lim.buffer_bytes / 2, 0);
	if (state == 0) {
		/* writing is enabled once bytes wait (proxy_tunnel_want_write) */
		bufferevent_enable(c->up, EV_READ);
		proxy_conn_up_connected(c);
		return;
	}
	/* under way: libevent reports it (BEV_EVENT_CONNECTED or an error)
	 * once the socket is writable */
	if (bufferevent_socket_connect(c->up, NULL, 0) < 0) {
		c->last_errno = errno;
		proxy_conn_drop_upstream(c);
		c->addr_i++;
		proxy_conn_try_connect(c);
		return;
	}
	bufferevent_enable(c->up, EV_READ | EV_WRITE);
}
