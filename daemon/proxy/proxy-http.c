/* proxy-http.c: a strict, incremental HTTP/1.x head parser for the proxy,
 * and the origin-form rewrite (the chunked body: proxy-chunked.c). Anything that
 * could let a request be framed two ways (smuggling) is an error: bare LF,
 * obs-fold, Content-Length with Transfer-Encoding, duplicate Content-Length,
 * codings other than chunked, control characters. */
#include "daemon/proxy/proxy-http.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PROXY_HTTP_MAX_EMPTY      4      /* empty lines before a request line */

/* True for tchar (RFC 9110 token characters). */
int
proxy_http_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* True for a byte allowed in a field value (VCHAR, obs-text, SP, HTAB). */
int
proxy_http_vchar(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* Fail the parse with a status and a reason; returns PROXY_HTTP_ERROR. */
static int
proxy_http_fail(struct proxy_http_parser *p, int status, const char *why)
{
	p->status = p->kind == PROXY_HTTP_RESPONSE ? 502 : status;
	p->error = why;
	return PROXY_HTTP_ERROR;
}

/* Prepare a parser for a request or a response head. */
void
proxy_http_init(struct proxy_http_parser *p, enum proxy_http_kind kind,
    size_t max_head)
{
	memset(p, 0, sizeof *p);
	p->kind = kind;
	if (max_head == 0)
		max_head = kind == PROXY_HTTP_REQUEST ? PROXY_HTTP_MAX_REQUEST_HEAD :
		    PROXY_HTTP_MAX_RESPONSE_HEAD;
	p->max_head = max_head;
}

/* Forget the last head and get ready for the next one. */
void
proxy_http_reset(struct proxy_http_parser *p)
{
	char *buf = p->buf;
	size_t cap = p->cap, max = p->max_head;
	enum proxy_http_kind kind = p->kind;

	memset(p, 0, sizeof *p);
	p->buf = buf;
	p->cap = cap;
	p->max_head = max;
	p->kind = kind;
}

/* Release the parser's buffer. */
void
proxy_http_free(struct proxy_http_parser *p)
{
	free(p->buf);
	p->buf = NULL;
	p->cap = p->len = 0;
}

/* Parse "host[:port]" or "[v6][:port]" into host and port; 0 or -1. */
int
proxy_http_parse_authority(const char *s, size_t n, char *host,
    size_t hostcap, int *port, int default_port)
{
	size_t i, hl;
	const char *h, *rest;
	size_t restlen;

	if (n == 0)
		return -1;
	if (s[0] == '[') {
		unsigned char tmp[16];
		const char *close = memchr(s, ']', n);

		if (close == NULL)
			return -1;
		h = s + 1;
		hl = (size_t)(close - h);
		if (hl == 0 || hl >= 46 || hl >= hostcap)
			return -1;
		for (i = 0; i < hl; i++) {
			char c = h[i];
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
			    (c >= 'A' && c <= 'F') || c == ':' || c == '.'))
				return -1;
		}
		rest = close + 1;
		restlen = n - (size_t)(rest - s);
		memcpy(host, h, hl);
		host[hl] = '\0';
		if (inet_pton(AF_INET6, host, tmp) != 1)
			return -1;
	} else {
		const char *colon = memchr(s, ':', n);

		h = s;
		hl = colon != NULL ? (size_t)(colon - s) : n;
		if (hl == 0 || hl > 253 + 1 || hl >= hostcap)
			return -1;
		for (i = 0; i < hl; i++) {
			char c = h[i];
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			    (c >= 'A' && c <= 'Z') || c == '-' || c == '.' || c == '_'))
				return -1;
		}
		rest = h + hl;
		restlen = n - hl;
		memcpy(host, h, hl);
		host[hl] = '\0';
	}
	for (i = 0; host[i] != '\0'; i++)
		if (host[i] >= 'A' && host[i] <= 'Z')
			host[i] = (char)(host[i] - 'A' + 'a');
	if (restlen == 0) {
		if (default_port == 0)
			return -1;
		*port = default_port;
		return 0;
	}
	if (rest[0] != ':' || restlen < 2 || restlen > 6)
		return -1;
	*port = 0;
	for (i = 1; i < restlen; i++) {
		if (rest[i] < '0' || rest[i] > '9')
			return -1;
		*port = *port * 10 + (rest[i] - '0');
	}
	if (*port < 1 || *port > 65535)
		return -1;
	return 0;
}

/* Parse the request target (absolute-form http:// or CONNECT authority). */
static int
proxy_http_target(struct proxy_http_parser *p, char *t, size_t tl)
{
	struct proxy_http_msg *m = &p->msg;
	size_t i, al;

	for (i = 0; i < tl; i++) {
		unsigned char c = (unsigned char)t[i];
		if (c <= 0x20 || c >= 0x7f || c == '\\')
			return proxy_http_fail(p, 400, "invalid character in the request target");
	}
	if (m->connect) {
		if (proxy_http_parse_authority(t, tl, m->host, sizeof m->host,
		    &m->port, 0) < 0)
			return proxy_http_fail(p, 400, "CONNECT target must be host:port");
		p->path_off = (size_t)(t + tl - p->buf);  /* points at a NUL: "" */
		return 0;
	}
	if (tl > 0 && t[0] == '/')
		return proxy_http_fail(p, 400,
		    "origin-form request: the proxy needs an absolute http:// URL");
	if (tl >= 8 && strncasecmp(t, "https://", 8) == 0)
		return proxy_http_fail(p, 400, "https:// targets must use CONNECT");
	if (tl < 7 || strncasecmp(t, "http://", 7) != 0)
		return proxy_http_fail(p, 400, "the request target must be an http:// URL");
	t += 7;
	tl -= 7;
	for (al = 0; al < tl && t[al] != '/' && t[al] != '?' && t[al] != '#'; al++)
		if (t[al] == '@')
			return proxy_http_fail(p, 400, "user information in the request target");
	if (memchr(t, '#', tl) != NULL)
		return proxy_http_fail(p, 400, "fragment in the request target");
	if (proxy_http_parse_authority(t, al, m->host, sizeof m->host, &m->port, 80) < 0)
		return proxy_http_fail(p, 400, "invalid host or port in the request target");
	if (al == tl || t[al] == '?') {
		/* The authority ends the target, or a query follows it: the path
		 * is "/" (written over the last byte of the authority). */
		t[al - 1] = '/';
		p->path_off = (size_t)(t + al - 1 - p->buf);
	} else {
		p->path_off = (size_t)(t + al - p->buf);
	}
	return 0;
}

/* Parse "HTTP/1.x" at s (length n) into minor; 0, or an error. */
static int
proxy_http_version(struct proxy_http_parser *p, const char *s, size_t n)
{
	if (n == 8 && memcmp(s, "HTTP/1.", 7) == 0 && (s[7] == '0' || s[7] == '1')) {
		p->msg.minor = s[7] - '0';
		return 0;
	}
	if (n == 8 && memcmp(s, "HTTP/", 5) == 0 && s[5] >= '0' && s[5] <= '9' &&
	    s[6] == '.' && s[7] >= '0' && s[7] <= '9')
		return proxy_http_fail(p, 505, "HTTP version not supported");
	return proxy_http_fail(p, 400, "malformed HTTP version");
}

/* Parse the request line or status line (NUL-terminated at line). */
static int
proxy_http_start_line(struct proxy_http_parser *p, char *line, size_t n)
{
	struct proxy_http_msg *m = &p->msg;
	char *sp1, *sp2;
	size_t i;

	if (p->kind == PROXY_HTTP_RESPONSE) {
		if (n < 12 || proxy_http_version(p, line, 8) < 0 || line[8] != ' ')
			return proxy_http_fail(p, 502, "malformed status line");
		for (i = 9; i < 12; i++)
			if (line[i] < '0' || line[i] > '9')
				return proxy_http_fail(p, 502, "malformed status code");
		m->status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
		if (m->status < 100)
			return proxy_http_fail(p, 502, "malformed status code");
		if (n > 12 && line[12] != ' ')
			return proxy_http_fail(p, 502, "malformed status line");
		for (i = 12; i < n; i++)
			if (!proxy_http_vchar((unsigned char)line[i]))
				return proxy_http_fail(p, 502, "invalid character in the status line");
		p->reason_off = (size_t)(line - p->buf) + (n > 12 ? 13 : 12);
		return 0;
	}
	if (n > PROXY_HTTP_MAX_LINE)
		return proxy_http_fail(p, 414, "request line too long");
	sp1 = memchr(line, ' ', n);
	if (sp1 == NULL || sp1 == line)
		return proxy_http_fail(p, 400, "malformed request line");
	for (i = 0; line + i < sp1; i++)
		if (!proxy_http_tchar((unsigned char)line[i]))
			return proxy_http_fail(p, 400, "invalid method");
	sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - line));
	if (sp2 == NULL || sp2 == sp1 + 1)
		return proxy_http_fail(p, 400, "malformed request line");
	if (proxy_http_version(p, sp2 + 1, n - (size_t)(sp2 + 1 - line)) < 0)
		return -1;
	*sp1 = '\0';
	*sp2 = '\0';
	p->method_off = (size_t)(line - p->buf);
	m->connect = strcmp(line, "CONNECT") == 0;
	m->head_method = strcmp(line, "HEAD") == 0;
	return proxy_http_target(p, sp1 + 1, (size_t)(sp2 - sp1 - 1));
}

/* Parse one header line (NUL-terminated at line, n bytes). */
static int
proxy_http_field(struct proxy_http_parser *p, char *line, size_t n)
{
	size_t i, v, e;

	if (line[0] == ' ' || line[0] == '\t')
		return proxy_http_fail(p, 400, "obsolete line folding");
	for (i = 0; i < n && line[i] != ':'; i++)
		if (!proxy_http_tchar((unsigned char)line[i]))
			return proxy_http_fail(p, 400, "invalid character in a header name");
	if (i == 0 || i == n)
		return proxy_http_fail(p, 400, "malformed header line");
	for (v = i + 1; v < n; v++)
		if (!proxy_http_vchar((unsigned char)line[v]))
			return proxy_http_fail(p, 400, "invalid character in a header value");
	if (p->msg.n_headers == PROXY_HTTP_MAX_HEADERS)
		return proxy_http_fail(p, 431, "too many header fields");
	line[i] = '\0';
	for (v = i + 1; v < n && (line[v] == ' ' || line[v] == '\t'); v++)
		;
	for (e = n; e > v && (line[e - 1] == ' ' || line[e - 1] == '\t'); e--)
		;
	line[e] = '\0';
	p->name_off[p->msg.n_headers] = (size_t)(line - p->buf);
	p->value_off[p->msg.n_headers] = (size_t)(line + v - p->buf);
	p->msg.n_headers++;
	return 0;
}

/* Value of the first header called name, or NULL. */
const char *
proxy_http_header(const struct proxy_http_msg *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n_headers; i++)
		if (strcasecmp(m->headers[i].name, name) == 0)
			return m->headers[i].value;
	return NULL;
}

/* True when a comma-separated list value holds token (case-insensitive). */
static int
proxy_http_has_token(const char *value, const char *token)
{
	size_t tl = strlen(token);
	const char *s = value;

	while (*s != '\0') {
		const char *e;
		size_t n;

		while (*s == ' ' || *s == '\t' || *s == ',')
			s++;
		e = s;
		while (*e != '\0' && *e != ',')
			e++;
		n = (size_t)(e - s);
		while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n == tl && strncasecmp(s, token, tl) == 0)
			return 1;
		s = e;
	}
	return 0;
}

/* Parse 1*DIGIT into *out; -1 when it is not a plain decimal number. */
static int
proxy_http_length(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (s[0] == '\0')
		return -1;
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 18)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Fix up pointers and decide framing once the head is complete. */
static int
proxy_http_finish(struct proxy_http_parser *p)
{
	struct proxy_http_msg *m = &p->msg;
	const char *cl = NULL, *te = NULL, *host = NULL, *conn;
	size_t i;
	int n_cl = 0, n_te = 0, n_host = 0;

	for (i = 0; i < m->n_headers; i++) {
		m->headers[i].name = p->buf + p->name_off[i];
		m->headers[i].value = p->buf + p->value_off[i];
		if (strcasecmp(m->headers[i].name, "Content-Length") == 0) {
			if (n_cl++ > 0 && (p->kind == PROXY_HTTP_REQUEST ||
			    strcmp(cl, m->headers[i].value) != 0))
				return proxy_http_fail(p, 400, "duplicate Content-Length");
			cl = m->headers[i].value;
		} else if (strcasecmp(m->headers[i].name, "Transfer-Encoding") == 0) {
			n_te++;
			te = m->headers[i].value;
		} else if (strcasecmp(m->headers[i].name, "Host") == 0) {
			n_host++;
			host = m->headers[i].value;
		}
	}
	if (p->kind == PROXY_HTTP_REQUEST) {
		m->method = p->buf + p->method_off;
		m->path = p->buf + p->path_off;
	} else {
		m->status_reason = p->buf + p->reason_off;
	}
	conn = proxy_http_header(m, "Connection");
	if (m->minor == 0)
		m->keep_alive = conn != NULL && proxy_http_has_token(conn, "keep-alive");
	else
		m->keep_alive = conn == NULL || !proxy_http_has_token(conn, "close");
	m->body = PROXY_HTTP_BODY_NONE;
	if (p->kind == PROXY_HTTP_RESPONSE) {
		if (m->status < 200 || m->status == 204 || m->status == 304 ||
		    p->head_request)
			return PROXY_HTTP_DONE;
		if (te != NULL) {
			/* Transfer-Encoding wins over Content-Length; anything
			 * but a lone "chunked" is read until close. */
			if (n_te == 1 && strcasecmp(te, "chunked") == 0 && cl == NULL) {
				m->body = PROXY_HTTP_BODY_CHUNKED;
			} else {
				m->body = PROXY_HTTP_BODY_CLOSE;
				m->keep_alive = 0;
			}
		} else if (cl != NULL) {
			if (proxy_http_length(cl, &m->length) < 0)
				return proxy_http_fail(p, 502, "invalid Content-Length");
			m->body = PROXY_HTTP_BODY_LENGTH;
		} else {
			m->body = PROXY_HTTP_BODY_CLOSE;
			m->keep_alive = 0;
		}
		return PROXY_HTTP_DONE;
	}
	if (te != NULL && cl != NULL)
		return proxy_http_fail(p, 400, "both Content-Length and Transfer-Encoding");
	if (n_te > 1)
		return proxy_http_fail(p, 400, "duplicate Transfer-Encoding");
	if (n_host > 1)
		return proxy_http_fail(p, 400, "duplicate Host");
	if (te != NULL) {
		if (strcasecmp(te, "chunked") != 0)
			return proxy_http_fail(p, 400, "unsupported Transfer-Encoding");
		if (m->minor == 0)
			return proxy_http_fail(p, 400, "Transfer-Encoding in an HTTP/1.0 request");
		m->body = PROXY_HTTP_BODY_CHUNKED;
	} else if (cl != NULL) {
		if (proxy_http_length(cl, &m->length) < 0)
			return proxy_http_fail(p, 400, "invalid Content-Length");
		m->body = m->length > 0 ? PROXY_HTTP_BODY_LENGTH : PROXY_HTTP_BODY_NONE;
	}
	if (m->connect && m->body != PROXY_HTTP_BODY_NONE)
		return proxy_http_fail(p, 400, "CONNECT with a body");
	if (host != NULL) {
		char h[PROXY_HTTP_HOST_MAX];
		int port;

		if (proxy_http_parse_authority(host, strlen(host), h, sizeof h, &port,
		    m->connect ? 443 : 80) < 0)
			return proxy_http_fail(p, 400, "malformed Host header");
		if (strcmp(h, m->host) != 0 || port != m->port)
			return proxy_http_fail(p, 403, PROXY_HTTP_HOST_MISMATCH);
	}
	return PROXY_HTTP_DONE;
}

/* Make room for n more bytes in the head buffer; -1 when over the limit. */
static int
proxy_http_grow(struct proxy_http_parser *p, size_t n)
{
	size_t want = p->len + n + 1, cap;
	char *nb;

	if (want <= p->cap)
		return 0;
	cap = p->cap == 0 ? 1024 : p->cap;
	while (cap < want)
		cap *= 2;
	if (cap > p->max_head + 1)
		cap = p->max_head + 1;
	nb = realloc(p->buf, cap);
	if (nb == NULL)
		return -1;
	p->buf = nb;
	p->cap = cap;
	return 0;
}

/* Handle one complete line (buf[line_start, len), ending in LF). */
static int
proxy_http_line(struct proxy_http_parser *p)
{
	char *line = p->buf + p->line_start;
	size_t n = p->len - p->line_start;

	if (n < 2 || line[n - 2] != '\r')
		return proxy_http_fail(p, 400, "bare LF line ending");
	n -= 2;
	if (memchr(line, '\r', n) != NULL)
		return proxy_http_fail(p, 400, "bare CR in the head");
	if (memchr(line, '\0', n) != NULL)
		return proxy_http_fail(p, 400, "NUL in the head");
	line[n] = '\0';
	if (p->lines == 0) {
		if (n == 0 && p->kind == PROXY_HTTP_REQUEST &&
		    ++p->empty_lines <= PROXY_HTTP_MAX_EMPTY) {
			p->len = p->line_start = 0;  /* skip it */
			return PROXY_HTTP_MORE;
		}
		if (n == 0)
			return proxy_http_fail(p, 400, "empty request line");
		p->lines++;
		if (proxy_http_start_line(p, line, n) < 0)
			return PROXY_HTTP_ERROR;
	} else if (n == 0) {
		p->done = 1;
		return proxy_http_finish(p);
	} else {
		p->lines++;
		if (proxy_http_field(p, line, n) < 0)
			return PROXY_HTTP_ERROR;
	}
	p->line_start = p->len;
	return PROXY_HTTP_MORE;
}

/* Feed bytes of a head; see proxy-http.h. */
int
proxy_http_feed(struct proxy_http_parser *p, const char *data, size_t len,
    size_t *used)
{
	size_t off = 0;

	*used = 0;
	if (p->done)
		return PROXY_HTTP_DONE;
	if (p->error != NULL)
		return PROXY_HTTP_ERROR;
	while (off < len) {
		const char *lf = memchr(data + off, '\n', len - off);
		size_t n = lf != NULL ? (size_t)(lf - (data + off)) + 1 : len - off;
		int rc;

		if (p->len + n > p->max_head) {
			*used = off;
			if (p->lines == 0 && p->kind == PROXY_HTTP_REQUEST)
				return proxy_http_fail(p, 414, "request line too long");
			return proxy_http_fail(p, 431, "request head too large");
		}
		if (proxy_http_grow(p, n) < 0) {
			*used = off;
			return proxy_http_fail(p, 503, "out of memory");
		}
		memcpy(p->buf + p->len, data + off, n);
		p->len += n;
		off += n;
		*used = off;
		if (lf == NULL)
			break;
		rc = proxy_http_line(p);
		if (rc != PROXY_HTTP_MORE)
			return rc;
	}
	return PROXY_HTTP_MORE;
}

/* True for the headers not forwarded upstream (hop-by-hop, Proxy-*, Host,
 * and those the client's Connection header names). */
static int
proxy_http_hop(const struct proxy_http_msg *m, const char *name)
{
	static const char *const hop[] = {
		"Host", "Connection", "Keep-Alive", "TE", "Trailer", "Upgrade",
		NULL,
	};
	const char *conn;
	size_t i;

	if (strncasecmp(name, "Proxy-", 6) == 0)
		return 1;
	for (i = 0; hop[i] != NULL; i++)
		if (strcasecmp(name, hop[i]) == 0)
			return 1;
	conn = proxy_http_header(m, "Connection");
	if (conn != NULL && strcasecmp(name, "Content-Length") != 0 &&
	    strcasecmp(name, "Transfer-Encoding") != 0 &&
	    proxy_http_has_token(conn, name))
		return 1;
	return 0;
}

/* The request head to send upstream for an absolute-form request. */
char *
proxy_http_upstream_head(const struct proxy_http_msg *m, size_t *len)
{
	size_t cap = 64 + strlen(m->method) + strlen(m->path) + strlen(m->host);
	size_t i, off = 0;
	char *out;
	int n;
	int v6 = strchr(m->host, ':') != NULL;

	for (i = 0; i < m->n_headers; i++)
		cap += strlen(m->headers[i].name) + strlen(m->headers[i].value) + 4;
	cap += 32;
	out = malloc(cap);
	if (out == NULL)
		return NULL;
	n = snprintf(out, cap, "%s %s HTTP/1.%d\r\nHost: %s%s%s", m->method,
	    m->path, m->minor, v6 ? "[" : "", m->host, v6 ? "]" : "");
	off = (size_t)n;
	if (m->port != 80)
		off += (size_t)snprintf(out + off, cap - off, ":%d", m->port);
	off += (size_t)snprintf(out + off, cap - off, "\r\n");
	for (i = 0; i < m->n_headers; i++) {
		if (proxy_http_hop(m, m->headers[i].name))
			continue;
		off += (size_t)snprintf(out + off, cap - off, "%s: %s\r\n",
		    m->headers[i].name, m->headers[i].value);
	}
	if (!m->keep_alive)
		off += (size_t)snprintf(out + off, cap - off, "Connection: close\r\n");
	else if (m->minor == 0)
		off += (size_t)snprintf(out + off, cap - off, "Connection: keep-alive\r\n");
	off += (size_t)snprintf(out + off, cap - off, "\r\n");
	*len = off;
	return out;
}
