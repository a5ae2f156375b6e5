// sources: daemon/proxy/proxy-http.c daemon/proxy/proxy-chunked.c daemon/proxy/proxy-socks.c daemon/proxy/proxy-addr.c
/* fuzz-proxy-http.c: arbitrary bytes into the proxy's HTTP head parser (as a
 * request and as a response), split at pseudo-random points; the result must
 * not depend on the split. What follows a request head goes through the
 * chunked decoder, and the same bytes through the SOCKS5 and address parsers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/proxy/proxy-addr.h"
#include "daemon/proxy/proxy-http.h"
#include "daemon/proxy/proxy-chunked.h"
#include "daemon/proxy/proxy-socks.h"

/* Feed data split by a tiny PRNG seeded from seed; returns rc and *total. */
static int
fuzz_feed(struct proxy_http_parser *p, const uint8_t *d, size_t n,
    uint32_t seed, size_t *total)
{
	size_t off = 0, used;
	int rc = PROXY_HTTP_MORE;

	*total = 0;
	while (off < n) {
		size_t k;

		seed = seed * 1103515245u + 12345u;
		k = seed == 0 ? n - off : 1 + (seed >> 16) % 64;
		if (k > n - off)
			k = n - off;
		rc = proxy_http_feed(p, (const char *)d + off, k, &used);
		*total += used;
		if (rc != PROXY_HTTP_MORE)
			return rc;
		if (used != k)
			abort();
		off += k;
	}
	return rc;
}

/* Check the invariants of a parsed message. */
static void
fuzz_check_msg(const struct proxy_http_parser *p)
{
	const struct proxy_http_msg *m = &p->msg;
	size_t i;

	if (m->n_headers > PROXY_HTTP_MAX_HEADERS)
		abort();
	for (i = 0; i < m->n_headers; i++)
		if (strlen(m->headers[i].name) == 0 || strlen(m->headers[i].value) > p->len)
			abort();
	if (p->kind == PROXY_HTTP_REQUEST) {
		struct proxy_addr a;
		size_t len;
		char *h;

		if (m->port < 1 || m->port > 65535 || m->host[0] == '\0')
			abort();
		if (!m->connect && m->path[0] != '/')
			abort();
		if (m->connect && m->body != PROXY_HTTP_BODY_NONE)
			abort();
		if (m->body == PROXY_HTTP_BODY_CLOSE)
			abort();
		(void)proxy_addr_parse(m->host, &a);
		h = proxy_http_upstream_head(m, &len);
		if (h != NULL) {
			if (strlen(h) != len || len < 4 || memcmp(h + len - 4, "\r\n\r\n", 4) != 0)
				abort();
			free(h);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_http_parser a, b;
	struct proxy_socks_request sr;
	struct proxy_addr addr;
	size_t ta, tb, used;
	uint32_t seed = 0;
	int ra, rb, noauth, reply, kind;
	char host[300];

	if (size > 0)
		seed = data[0] | (uint32_t)(size > 1 ? data[1] : 0) << 8;
	for (kind = 0; kind < 2; kind++) {
		proxy_http_init(&a, kind == 0 ? PROXY_HTTP_REQUEST : PROXY_HTTP_RESPONSE, 0);
		proxy_http_init(&b, kind == 0 ? PROXY_HTTP_REQUEST : PROXY_HTTP_RESPONSE, 0);
		ra = fuzz_feed(&a, data, size, 0, &ta);
		rb = fuzz_feed(&b, data, size, seed | 1, &tb);
		if (ra != rb)
			abort();
		if (ra == PROXY_HTTP_DONE) {
			if (ta != tb || a.msg.body != b.msg.body || a.msg.port != b.msg.port ||
			    strcmp(a.msg.host, b.msg.host) != 0 || a.msg.length != b.msg.length)
				abort();
			fuzz_check_msg(&a);
			if (a.msg.body == PROXY_HTTP_BODY_CHUNKED) {
				struct proxy_chunked c1, c2;
				size_t u1, u2, off = ta, tot = 0;
				int r1, r2 = PROXY_HTTP_MORE;

				proxy_chunked_init(&c1);
				proxy_chunked_init(&c2);
				r1 = proxy_chunked_feed(&c1, (const char *)data + ta,
				    size - ta, &u1);
				while (off < size) {
					size_t k = 1 + (off * 7 + seed) % 13;
					if (k > size - off)
						k = size - off;
					r2 = proxy_chunked_feed(&c2, (const char *)data + off,
					    k, &u2);
					tot += u2;
					if (r2 != PROXY_HTTP_MORE)
						break;
					off += k;
				}
				if (size > ta && (r1 != r2 || (r1 == PROXY_HTTP_DONE && u1 != tot)))
					abort();
			}
			/* The next head on a kept-alive connection parses afresh. */
			proxy_http_reset(&a);
			(void)proxy_http_feed(&a, (const char *)data + ta, size - ta, &used);
		} else if (ra == PROXY_HTTP_ERROR) {
			if (a.status != b.status || a.error == NULL)
				abort();
		}
		proxy_http_free(&a);
		proxy_http_free(&b);
	}
	if (proxy_socks_greeting(data, size, &used, &noauth) == 1)
		(void)proxy_socks_request(data + used, size - used, &sr, &used, &reply);
	(void)proxy_socks_request(data, size, &sr, &used, &reply);
	if (size < sizeof host) {
		memcpy(host, data, size);
		host[size] = '\0';
		if (proxy_addr_parse(host, &addr) == 1)
			(void)proxy_addr_refusal(&addr, data[0] & 1);
	}
	return 0;
}
