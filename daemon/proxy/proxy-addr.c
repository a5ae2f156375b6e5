/* proxy-addr.c: IP literals in every spelling, and which addresses the proxy
 * may connect to. The tables follow IANA's IPv4 and IPv6 special-purpose
 * address registries, kept strict: anything not globally reachable is
 * refused, and the few globally reachable exceptions inside reserved blocks
 * are refused too. */
#include "daemon/proxy/proxy-addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

struct proxy_addr_v4rule {
	uint32_t              net;
	int                   len;
	enum proxy_addr_level level;
	const char           *reason;
};

/* First match wins: specific entries come before the blocks holding them. */
static const struct proxy_addr_v4rule proxy_addr_v4rules[] = {
	{ 0xA9FEA9FE, 32, PROXY_ADDR_NEVER,   "metadata" },      /* 169.254.169.254 */
	{ 0x646464C8, 32, PROXY_ADDR_NEVER,   "metadata" },      /* 100.100.100.200 */
	{ 0xC00000C0, 32, PROXY_ADDR_NEVER,   "metadata" },      /* 192.0.0.192 */
	{ 0xFFFFFFFF, 32, PROXY_ADDR_NEVER,   "broadcast" },
	{ 0x00000000, 32, PROXY_ADDR_NEVER,   "unspecified" },
	{ 0x00000000,  8, PROXY_ADDR_NEVER,   "this network" },
	{ 0x7F000000,  8, PROXY_ADDR_NEVER,   "loopback" },
	{ 0xA9FE0000, 16, PROXY_ADDR_NEVER,   "link-local" },
	{ 0xE0000000,  4, PROXY_ADDR_NEVER,   "multicast" },
	{ 0x0A000000,  8, PROXY_ADDR_PRIVATE, "private" },
	{ 0x64400000, 10, PROXY_ADDR_PRIVATE, "CGNAT" },
	{ 0xAC100000, 12, PROXY_ADDR_PRIVATE, "private" },
	{ 0xC0000000, 24, PROXY_ADDR_PRIVATE, "reserved" },      /* IETF protocol assignments */
	{ 0xC0000200, 24, PROXY_ADDR_PRIVATE, "documentation" }, /* TEST-NET-1 */
	{ 0xC0586300, 24, PROXY_ADDR_PRIVATE, "reserved" },      /* 6to4 relay anycast */
	{ 0xC0A80000, 16, PROXY_ADDR_PRIVATE, "private" },
	{ 0xC6120000, 15, PROXY_ADDR_PRIVATE, "benchmarking" },
	{ 0xC6336400, 24, PROXY_ADDR_PRIVATE, "documentation" }, /* TEST-NET-2 */
	{ 0xCB007100, 24, PROXY_ADDR_PRIVATE, "documentation" }, /* TEST-NET-3 */
	{ 0xF0000000,  4, PROXY_ADDR_PRIVATE, "reserved" },
};

struct proxy_addr_v6rule {
	uint8_t               net[16];
	int                   len;
	int                   embed;   /* offset of an embedded IPv4, or -1 */
	enum proxy_addr_level level;
	const char           *reason;
};

/* First match wins; rules with embed >= 0 classify the embedded IPv4. */
static const struct proxy_addr_v6rule proxy_addr_v6rules[] = {
	{ {0}, 128, -1, PROXY_ADDR_NEVER, "unspecified" },
	{ {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1}, 128, -1, PROXY_ADDR_NEVER, "loopback" },
	{ {0,0,0,0,0,0,0,0,0,0,0xff,0xff}, 96, 12, PROXY_ADDR_NEVER, "IPv4-mapped" },
	{ {0}, 96, 12, PROXY_ADDR_NEVER, "IPv4-compatible" },
	{ {0,0x64,0xff,0x9b}, 96, 12, PROXY_ADDR_NEVER, "NAT64" },
	{ {0,0x64,0xff,0x9b,0,1}, 48, -1, PROXY_ADDR_PRIVATE, "private" }, /* local-use NAT64 */
	{ {0x01,0x00}, 64, -1, PROXY_ADDR_PRIVATE, "reserved" },           /* discard-only */
	{ {0x20,0x01,0x0d,0xb8}, 32, -1, PROXY_ADDR_PRIVATE, "documentation" },
	{ {0x20,0x01}, 23, -1, PROXY_ADDR_PRIVATE, "reserved" },           /* IETF protocol assignments */
	{ {0x20,0x02}, 16, 2, PROXY_ADDR_NEVER, "6to4" },
	{ {0x3f,0xff}, 20, -1, PROXY_ADDR_PRIVATE, "documentation" },
	{ {0x5f,0x00}, 16, -1, PROXY_ADDR_PRIVATE, "reserved" },           /* SRv6 SIDs */
	{ {0xfd,0x00,0x0e,0xc2,0,0,0,0,0,0,0,0,0,0,0x02,0x54}, 128, -1,
	    PROXY_ADDR_NEVER, "metadata" },                                /* fd00:ec2::254 */
	{ {0xfc}, 7, -1, PROXY_ADDR_PRIVATE, "private" },                  /* unique local */
	{ {0xfe,0x80}, 10, -1, PROXY_ADDR_NEVER, "link-local" },
	{ {0xfe,0xc0}, 10, -1, PROXY_ADDR_PRIVATE, "private" },            /* site-local */
	{ {0xff}, 8, -1, PROXY_ADDR_NEVER, "multicast" },
};

/* Value of one IPv4 part (decimal, 0-octal or 0x-hex); -1 when it is none. */
static int
proxy_addr_part(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (n == 0)
		return -1;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (n >= 2 && s[0] == '0') {
		base = 8;
		i = 1;
	}
	for (; i < n; i++) {
		unsigned d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		if (d >= base)
			return -1;
		v = v * base + d;
		if (v > 0xFFFFFFFFull)
			v = 0x100000000ull; /* saturate: too big for any part */
	}
	*out = v;
	return 0;
}

/* True when the label looks like a number (all digits, or 0x + hex digits):
 * a host ending in such a label is an IPv4 literal or invalid. */
static int
proxy_addr_numeric_label(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0)
		return 0;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n; i++) {
			char c = s[i];
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
			    (c >= 'A' && c <= 'F')))
				return 0;
		}
		return 1;
	}
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Parse an IPv4 literal in inet_aton/URL spelling; 1, 0 (a name) or -1. */
static int
proxy_addr_parse_v4(const char *host, struct proxy_addr *out)
{
	const char *p[5];
	size_t plen[5], n = strlen(host), np = 0, i, start = 0;
	uint64_t v[4], addr;
	const char *last;
	size_t lastlen;

	if (n == 0)
		return 0;
	if (host[n - 1] == '.')   /* one trailing dot, as URL parsers allow */
		n--;
	if (n == 0)
		return 0;
	/* Find the last label to decide between a name and a literal. */
	last = host;
	for (i = 0; i < n; i++)
		if (host[i] == '.')
			last = host + i + 1;
	lastlen = (size_t)(host + n - last);
	if (!proxy_addr_numeric_label(last, lastlen))
		return 0;
	for (i = 0; i <= n; i++) {
		if (i == n || host[i] == '.') {
			if (np == 4)
				return -1;
			p[np] = host + start;
			plen[np] = i - start;
			np++;
			start = i + 1;
		}
	}
	for (i = 0; i < np; i++)
		if (proxy_addr_part(p[i], plen[i], &v[i]) < 0)
			return -1;
	for (i = 0; i + 1 < np; i++)
		if (v[i] > 255)
			return -1;
	if (v[np - 1] > (0xFFFFFFFFull >> (8 * (np - 1))))
		return -1;
	addr = v[np - 1];
	for (i = 0; i + 1 < np; i++)
		addr |= v[i] << (8 * (3 - i));
	memset(out, 0, sizeof *out);
	out->family = AF_INET;
	out->a[0] = (uint8_t)(addr >> 24);
	out->a[1] = (uint8_t)(addr >> 16);
	out->a[2] = (uint8_t)(addr >> 8);
	out->a[3] = (uint8_t)addr;
	return 1;
}

/* Parse host as an IP literal; 1 (filled), 0 (a name) or -1 (bad literal). */
int
proxy_addr_parse(const char *host, struct proxy_addr *out)
{
	char buf[64];
	size_t n;

	if (host == NULL)
		return -1;
	n = strlen(host);
	if (n > 0 && host[0] == '[') {
		if (n < 3 || host[n - 1] != ']' || n - 2 >= sizeof buf)
			return -1;
		memcpy(buf, host + 1, n - 2);
		buf[n - 2] = '\0';
	} else if (strchr(host, ':') != NULL) {
		if (n >= sizeof buf)
			return -1;
		memcpy(buf, host, n + 1);
	} else {
		return proxy_addr_parse_v4(host, out);
	}
	memset(out, 0, sizeof *out);
	if (inet_pton(AF_INET6, buf, out->a) != 1)
		return -1;
	out->family = AF_INET6;
	return 1;
}

/* True when the first len bits of a and net agree. */
static int
proxy_addr_prefix(const uint8_t *a, const uint8_t *net, int len)
{
	int full = len / 8, rest = len % 8;
	uint8_t mask;

	if (memcmp(a, net, (size_t)full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	mask = (uint8_t)(0xFF << (8 - rest));
	return (a[full] & mask) == (net[full] & mask);
}

/* Classify an IPv4 address given as 4 bytes. */
static enum proxy_addr_level
proxy_addr_classify_v4(const uint8_t *b, const char **reason)
{
	uint32_t x = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	    (uint32_t)b[2] << 8 | b[3];
	size_t i;

	for (i = 0; i < sizeof proxy_addr_v4rules / sizeof proxy_addr_v4rules[0]; i++) {
		const struct proxy_addr_v4rule *r = &proxy_addr_v4rules[i];
		uint32_t mask = r->len == 0 ? 0 : 0xFFFFFFFFu << (32 - r->len);

		if ((x & mask) == (r->net & mask)) {
			*reason = r->reason;
			return r->level;
		}
	}
	*reason = NULL;
	return PROXY_ADDR_PUBLIC;
}

/* Classify an address: its level, and a reason when it is not public. */
enum proxy_addr_level
proxy_addr_classify(const struct proxy_addr *a, const char **reason)
{
	const char *dummy;
	size_t i;

	if (reason == NULL)
		reason = &dummy;
	*reason = NULL;
	if (a->family == AF_INET)
		return proxy_addr_classify_v4(a->a, reason);
	if (a->family != AF_INET6) {
		*reason = "reserved";
		return PROXY_ADDR_NEVER;
	}
	for (i = 0; i < sizeof proxy_addr_v6rules / sizeof proxy_addr_v6rules[0]; i++) {
		const struct proxy_addr_v6rule *r = &proxy_addr_v6rules[i];

		if (!proxy_addr_prefix(a->a, r->net, r->len))
			continue;
		if (r->embed >= 0)
			return proxy_addr_classify_v4(a->a + r->embed, reason);
		*reason = r->reason;
		return r->level;
	}
	/* Only 2000::/3 is allocated as global unicast. */
	if ((a->a[0] & 0xE0) != 0x20) {
		*reason = "reserved";
		return PROXY_ADDR_PRIVATE;
	}
	return PROXY_ADDR_PUBLIC;
}

/* The reason an address is refused, or NULL when it may be used. */
const char *
proxy_addr_refusal(const struct proxy_addr *a, int private_ok)
{
	const char *reason = NULL;
	enum proxy_addr_level lv = proxy_addr_classify(a, &reason);

	if (lv == PROXY_ADDR_PUBLIC)
		return NULL;
	if (lv == PROXY_ADDR_PRIVATE && private_ok)
		return NULL;
	return reason != NULL ? reason : "reserved";
}

/* Why a is this computer's or on a directly attached network, or NULL. */
const char *
proxy_addr_local(const struct proxy_addr *a, const struct proxy_addr_net *nets,
    size_t n)
{
	const char *why = NULL;
	size_t i, len = a->family == AF_INET ? 4 : 16;

	for (i = 0; i < n; i++) {
		const struct proxy_addr_net *e = &nets[i];
		int bits = e->prefix;

		if (e->addr.family != a->family)
			continue;
		if (memcmp(e->addr.a, a->a, len) == 0)
			return "this computer";
		if (bits < 0 || bits > (int)len * 8)
			bits = (int)len * 8;
		if (why == NULL && proxy_addr_prefix(a->a, e->addr.a, bits))
			why = "a directly attached network";
	}
	return why;
}

/* Fill an address from a sockaddr; -1 for families other than IPv4/IPv6. */
int
proxy_addr_from_sockaddr(const struct sockaddr *sa, struct proxy_addr *out)
{
	memset(out, 0, sizeof *out);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
		out->family = AF_INET;
		memcpy(out->a, &sin->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;
		out->family = AF_INET6;
		memcpy(out->a, &sin6->sin6_addr, 16);
		return 0;
	}
	return -1;
}

/* Build a sockaddr for an address and port; returns its length. */
socklen_t
proxy_addr_to_sockaddr(const struct proxy_addr *a, int port,
    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof *ss);
	if (a->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		memcpy(&sin->sin_addr, a->a, 4);
		return sizeof *sin;
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons((uint16_t)port);
	memcpy(&sin6->sin6_addr, a->a, 16);
	return sizeof *sin6;
}

/* Write the canonical text of an address into buf. */
void
proxy_addr_format(const struct proxy_addr *a, char *buf, size_t len)
{
	if (len == 0)
		return;
	if (inet_ntop(a->family == AF_INET ? AF_INET : AF_INET6, a->a, buf,
	    (socklen_t)len) == NULL)
		buf[0] = '\0';
}
