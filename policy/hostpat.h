/* hostpat.h: host patterns of the network allowlist.
 *
 *   example.com        that name only (case-insensitive, a trailing dot ignored)
 *   *.example.com      any subdomain of example.com, not example.com itself
 *   NAME:443           the same, limited to one port (default: any port)
 *   192.0.2.1, [2001:db8::1], [2001:db8::1]:443
 *                      an IP literal matches only itself
 *
 * Refused: `*`, `*.com` (a wildcard needs two labels after it), a `*` that is
 * not the whole first label, empty labels, non-ASCII (use punycode), labels
 * over 63 or names over 253 characters, characters other than letters,
 * digits and `-` (not at a label's ends), a numeric last label that is not an
 * IPv4 address, unbracketed IPv6, zone ids, ports outside 1..65535.
 * Matching is string comparison only: it never needs a DNS lookup. */
#ifndef SBOX_HOSTPAT_H
#define SBOX_HOSTPAT_H

#include <stddef.h>

#include "protocol/error.h"

#define HOSTPAT_NAME_MAX 253

struct hostpat {
	char name[HOSTPAT_NAME_MAX + 1]; /* lower case, no trailing dot; for IPs the
	                                    canonical literal without brackets */
	int  wildcard;                   /* pattern was "*.name" */
	int  is_ip;                      /* 4 or 6 for IP literals, else 0 */
	int  port;                       /* 0 = any */
};

/* Parse text into *out; on error fills err (E_CONFIG) and returns -1. */
int hostpat_parse(const char *text, struct hostpat *out, sbox_error *err);
/* Check a pattern; returns 0 or -1 with err saying what is wrong. */
int hostpat_validate(const char *pattern, sbox_error *err);
/* The canonical spelling of a pattern ("*.Example.COM." -> "*.example.com"),
 * written to buf; returns 0 or -1 (err) when invalid or buf too small. */
int hostpat_format(const struct hostpat *p, char *buf, size_t len);
/* Does the parsed pattern allow host (a name or IP literal, brackets optional)
 * on port (port <= 0: unknown, matches only patterns without a port)? */
int hostpat_match(const struct hostpat *p, const char *host, int port);
/* Returns 1 when any pattern of the NULL-terminated list matches host:port;
 * invalid patterns in the list never match. */
int hostpat_match_list(char *const *patterns, const char *host, int port);
/* Returns 1 when every host:port allowed by `inner` is allowed by `outer`
 * (both pattern strings; invalid ones never subsume nor are subsumed). */
int hostpat_subsumes(const char *outer, const char *inner);

#endif
