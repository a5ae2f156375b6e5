/* limits.c: sharing sboxd's file descriptors between host clients,
 * containers and proxied connections. */
#include "daemon/container/limits.h"

/* Split nofile descriptors between host clients, sessions and proxies. */
void
limits_derive(long nofile, int want_conns, int max_sessions, int proxy_max,
    struct limits_fds *out)
{
	long avail = nofile - LIMITS_FIXED_FDS, host, cts, proxy;

	if (avail < 64)
		avail = 64;
	/* host clients: what was asked, at most an eighth, at least 16 */
	host = avail / 8;
	if (host > want_conns)
		host = want_conns;
	if (host < 16)
		host = 16;
	/* containers: a quarter at most */
	cts = (long)max_sessions * LIMITS_FDS_PER_SESSION;
	if (cts > avail / 4)
		cts = avail / 4;
	/* host clients pass up to 3 stdio fds per command: count them twice */
	proxy = (avail - 2 * host - cts) / 2;
	if (proxy < 8)
		proxy = 8;
	out->host_conns = (int)host;
	out->proxy_total = (int)proxy;
	out->proxy_session = (int)(proxy / 2 > 4 ? proxy / 2 : 4);
	if (proxy_max > 0 && out->proxy_session > proxy_max)
		out->proxy_session = proxy_max;
	if (out->proxy_total < out->proxy_session)
		out->proxy_total = out->proxy_session;
}
