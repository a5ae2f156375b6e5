/* limits.h: how sboxd shares its file descriptors: a reserve for host
 * clients, the store and the containers, the rest for proxied connections
 * (two descriptors each), of which one session may hold only a share.
 * Pure: no I/O. */
#ifndef SBOX_LIMITS_H
#define SBOX_LIMITS_H

#define LIMITS_FIXED_FDS     128  /* store, log, resolver, netlink, signals, ... */
#define LIMITS_FDS_PER_SESSION 8  /* control socket, listeners, pipes of a container */

/* What limits_derive computes from the descriptors sboxd may open. */
struct limits_fds {
	int host_conns;       /* host client connections (each one fd, plus passed stdio) */
	int proxy_total;      /* proxied connections over all sessions */
	int proxy_session;    /* proxied connections of one session */
};

/* Split nofile descriptors: host clients get at most want_conns, sessions
 * LIMITS_FDS_PER_SESSION each for max_sessions, proxies the rest; one
 * session gets half the proxies' share, at most proxy_max (the option). */
void limits_derive(long nofile, int want_conns, int max_sessions,
    int proxy_max, struct limits_fds *out);

#endif
