/* hostpat.c: parsing and matching host patterns, without DNS. */
#include "policy/hostpat.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fill err for pattern text with a reason; returns -1. */
static int
hostpat_fail(sbox_error *err, const char *text, const char *why)
{
	return error_set(err, E_CONFIG, "bad host pattern \"%s\": %s", text, why);
}

/* Parse ":port" digits (s points after the colon); -1 when invalid. */
static int
hostpat_parse_port(const char *s)
{
	long v = 0;
	size_t i;

	if (s[0] == '\0' || s[0] == '0')
		return -1;
	for (i = 0; s[i] != '\0'; i++) {
		if (!isdigit((unsigned char)s[i]) || i >= 5)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= 65535 ? (int)v : -1;
}

/* Check and lower-case a DNS name in place (no wildcard); NULL or a reason. */
static const char *
hostpat_check_name(char *name)
{
	size_t len = strlen(name), label = 0, i;
	const char *last;
	int numeric = 1;

	if (len > 0 && name[len - 1] == '.')
		name[--len] = '\0';
	if (len == 0)
		return "empty name";
	if (len > HOSTPAT_NAME_MAX)
		return "name longer than 253 characters";
	for (i = 0; i <= len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '.' || c == '\0') {
			if (label == 0)
				return "empty label";
			if (label > 63)
				return "label longer than 63 characters";
			if (name[i - 1] == '-')
				return "label ends with '-'";
			label = 0;
			continue;
		}
		if (c >= 0x80)
			return "non-ASCII name (use its punycode xn-- form)";
		if (c == '*')
			return "'*' is only allowed as the whole first label";
		if (!isalnum(c) && c != '-')
			return "character not allowed in a host name";
		if (c == '-' && label == 0)
			return "label starts with '-'";
		name[i] = (char)tolower(c);
		label++;
	}
	last = strrchr(name, '.');
	last = last ? last + 1 : name;
	for (i = 0; last[i] != '\0'; i++) {
		if (!isdigit((unsigned char)last[i]))
			numeric = 0;
	}
	if (numeric)
		return "numeric name that is not an IPv4 address";
	if (last[0] == '0' && last[1] == 'x') {
		for (i = 2; isxdigit((unsigned char)last[i]); i++)
			;
		if (last[i] == '\0')
			return "looks like a numeric IP address spelling";
	}
	return NULL;
}

/* Parse text into *out; on error fills err (E_CONFIG) and returns -1. */
int
hostpat_parse(const char *text, struct hostpat *out, sbox_error *err)
{
	char buf[HOSTPAT_NAME_MAX + 16], *host, *colon, *end;
	unsigned char addr[16];
	const char *why;
	size_t len;

	memset(out, 0, sizeof *out);
	if (text == NULL || text[0] == '\0')
		return hostpat_fail(err, "", "empty pattern");
	len = strlen(text);
	if (len >= sizeof buf)
		return hostpat_fail(err, text, "too long");
	memcpy(buf, text, len + 1);
	host = buf;
	if (host[0] == '[') {
		end = strchr(host, ']');
		if (end == NULL)
			return hostpat_fail(err, text, "missing ']'");
		*end = '\0';
		if (end[1] == ':') {
			if ((out->port = hostpat_parse_port(end + 2)) == -1)
				return hostpat_fail(err, text, "port must be 1..65535");
		} else if (end[1] != '\0')
			return hostpat_fail(err, text, "junk after ']'");
		host++;
		if (strchr(host, '%') != NULL)
			return hostpat_fail(err, text, "IPv6 zone ids are not allowed");
		if (inet_pton(AF_INET6, host, addr) != 1)
			return hostpat_fail(err, text, "not an IPv6 address");
		inet_ntop(AF_INET6, addr, out->name, sizeof out->name);
		out->is_ip = 6;
		return 0;
	}
	colon = strchr(host, ':');
	if (colon != NULL) {
		if (strchr(colon + 1, ':') != NULL)
			return hostpat_fail(err, text,
			    "IPv6 addresses must be written in brackets, [addr]:port");
		*colon = '\0';
		if ((out->port = hostpat_parse_port(colon + 1)) == -1)
			return hostpat_fail(err, text, "port must be 1..65535");
	}
	if (host[0] == '*') {
		if (host[1] != '.')
			return hostpat_fail(err, text,
			    "'*' must be followed by '.' and a domain, as in *.example.com");
		out->wildcard = 1;
		host += 2;
	}
	if (inet_pton(AF_INET, host, addr) == 1) {
		if (out->wildcard)
			return hostpat_fail(err, text, "a wildcard cannot apply to an IP address");
		inet_ntop(AF_INET, addr, out->name, sizeof out->name);
		out->is_ip = 4;
		return 0;
	}
	if ((why = hostpat_check_name(host)) != NULL)
		return hostpat_fail(err, text, why);
	if (out->wildcard && strchr(host, '.') == NULL)
		return hostpat_fail(err, text,
		    "a wildcard needs at least two labels after it (*.example.com, not *.com)");
	memcpy(out->name, host, strlen(host) + 1);	/* <= 253, checked */
	return 0;
}

/* Check a pattern; returns 0 or -1 with err saying what is wrong. */
int
hostpat_validate(const char *pattern, sbox_error *err)
{
	struct hostpat p;

	return hostpat_parse(pattern, &p, err);
}

/* The canonical spelling of a pattern, written to buf. */
int
hostpat_format(const struct hostpat *p, char *buf, size_t len)
{
	char port[16] = "";
	int n;

	if (p->port > 0)
		snprintf(port, sizeof port, ":%d", p->port);
	if (p->is_ip == 6)
		n = snprintf(buf, len, "[%s]%s", p->name, port);
	else
		n = snprintf(buf, len, "%s%s%s", p->wildcard ? "*." : "", p->name,
		    port);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Canonicalise a host to match (name or IP literal) into out; -1 if invalid. */
static int
hostpat_canon_host(const char *host, struct hostpat *out)
{
	char buf[HOSTPAT_NAME_MAX + 8];
	size_t len;

	if (host == NULL || host[0] == '*')
		return -1;
	len = strlen(host);
	if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
		if (len - 2 >= sizeof buf)
			return -1;
		memcpy(buf, host + 1, len - 2);
		buf[len - 2] = '\0';
	} else {
		if (strchr(host, ':') != NULL) {	/* bare IPv6 */
			if (len >= sizeof buf - 2)
				return -1;
			snprintf(buf, sizeof buf, "[%s]", host);
			return hostpat_parse(buf, out, NULL) == 0 ? 0 : -1;
		}
		if (len >= sizeof buf)
			return -1;
		memcpy(buf, host, len + 1);
		return hostpat_parse(buf, out, NULL) == 0 && out->port == 0 ? 0 : -1;
	}
	if (strchr(buf, ':') == NULL)
		return -1;
	{
		char wrapped[sizeof buf + 2];

		snprintf(wrapped, sizeof wrapped, "[%s]", buf);
		return hostpat_parse(wrapped, out, NULL) == 0 ? 0 : -1;
	}
}

/* Is name a strict subdomain of base (both canonical)? */
static int
hostpat_is_subdomain(const char *name, const char *base)
{
	size_t n = strlen(name), b = strlen(base);

	return n > b + 1 && name[n - b - 1] == '.' && strcmp(name + n - b, base) == 0;
}

/* Does the parsed pattern allow host on port? */
int
hostpat_match(const struct hostpat *p, const char *host, int port)
{
	struct hostpat h;

	if (hostpat_canon_host(host, &h) == -1)
		return 0;
	if (p->port != 0 && p->port != port)
		return 0;
	if (p->is_ip || h.is_ip)
		return p->is_ip == h.is_ip && strcmp(p->name, h.name) == 0;
	if (p->wildcard)
		return hostpat_is_subdomain(h.name, p->name);
	return strcmp(p->name, h.name) == 0;
}

/* Returns 1 when any pattern of the list matches host:port. */
int
hostpat_match_list(char *const *patterns, const char *host, int port)
{
	struct hostpat p;
	size_t i;

	for (i = 0; patterns != NULL && patterns[i] != NULL; i++) {
		if (hostpat_parse(patterns[i], &p, NULL) == 0 &&
		    hostpat_match(&p, host, port))
			return 1;
	}
	return 0;
}

/* Returns 1 when everything `inner` allows is allowed by `outer`. */
int
hostpat_subsumes(const char *outer, const char *inner)
{
	struct hostpat o, i;

	if (hostpat_parse(outer, &o, NULL) == -1 ||
	    hostpat_parse(inner, &i, NULL) == -1)
		return 0;
	if (o.port != 0 && o.port != i.port)
		return 0;
	if (o.is_ip || i.is_ip)
		return o.is_ip == i.is_ip && strcmp(o.name, i.name) == 0;
	if (!o.wildcard)
		return !i.wildcard && strcmp(o.name, i.name) == 0;
	if (i.wildcard && strcmp(o.name, i.name) == 0)
		return 1;
	return hostpat_is_subdomain(i.name, o.name);
}
