/* proxy-addr.h: IP literals in every spelling, and which addresses the proxy
 * may connect to (IANA special-purpose registries, metadata, multicast).
 * Pure: no libevent, no I/O. */
#ifndef SBOX_PROXY_ADDR_H
#define SBOX_PROXY_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* One IPv4 or IPv6 address (network byte order). */
struct proxy_addr {
	int     family;      /* AF_INET or AF_INET6 */
	uint8_t a[16];       /* 4 bytes used for AF_INET */
};

/* How far a non-public address is off limits. */
enum proxy_addr_level {
	PROXY_ADDR_PUBLIC = 0, /* globally reachable: may be connected to */
	PROXY_ADDR_PRIVATE,    /* not global, but a host named in private_hosts may use it */
	PROXY_ADDR_NEVER,      /* loopback, unspecified, link-local, metadata,
	                          multicast, broadcast: refused even for private_hosts */
};

/* Longest text proxy_addr_format writes (with NUL). */
#define PROXY_ADDR_STRLEN 48

/* Parse host as an IP literal the way inet_aton and URL parsers do
 * (2130706433, 0x7f.1, 127.1, 0177.0.0.1, 127.0.0.1., [::1], ::ffff:1.2.3.4).
 * Returns 1 and fills out for a literal, 0 when host is a name, and -1 when
 * host looks numeric (its last label is a number) but is no valid address. */
int proxy_addr_parse(const char *host, struct proxy_addr *out);
/* Classify an address: PROXY_ADDR_PUBLIC, or the level and a reason
 * ("loopback", "private", "metadata", ...) in *reason. Embedded IPv4 of
 * mapped, compatible, NAT64 and 6to4 forms is classified as IPv4. */
enum proxy_addr_level proxy_addr_classify(const struct proxy_addr *a,
    const char **reason);
/* The reason an address is refused, or NULL when it may be used; private_ok
 * (the name is in private_hosts) lets PROXY_ADDR_PRIVATE addresses through. */
const char *proxy_addr_refusal(const struct proxy_addr *a, int private_ok);
/* An address of one of this computer's interfaces and its prefix length:
 * the address itself is this computer, the prefix a directly attached
 * network (reached without a gateway). */
struct proxy_addr_net {
	struct proxy_addr addr;
	int               prefix;
};

/* Why a is this computer's or on a network directly attached to it
 * ("this computer", "a directly attached network"), or NULL, given the
 * interfaces' addresses. */
const char *proxy_addr_local(const struct proxy_addr *a,
    const struct proxy_addr_net *nets, size_t n);
/* Fill an address from a sockaddr (AF_INET/AF_INET6); -1 for other families. */
int proxy_addr_from_sockaddr(const struct sockaddr *sa, struct proxy_addr *out);
/* Build a sockaddr for an address and port; returns its length. */
socklen_t proxy_addr_to_sockaddr(const struct proxy_addr *a, int port,
    struct sockaddr_storage *ss);
/* Write the canonical text of an address into buf (PROXY_ADDR_STRLEN). */
void proxy_addr_format(const struct proxy_addr *a, char *buf, size_t len);

#endif
