/* test-proxy-http.c: the proxy's request/response head parser, the chunked
 * state machine and the origin-form rewrite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/proxy/proxy-http.h"
#include "daemon/proxy/proxy-chunked.h"

/* Feed s in pieces of step bytes (0 = all at once); returns the final rc
 * and how many bytes were used in total. */
static int
feed(struct proxy_http_parser *p, const char *s, size_t n, size_t step,
    size_t *total)
{
	size_t off = 0, used;
	int rc = PROXY_HTTP_MORE;

	*total = 0;
	while (off < n) {
		size_t k = step == 0 || step > n - off ? n - off : step;

		rc = proxy_http_feed(p, s + off, k, &used);
		*total += used;
		if (rc != PROXY_HTTP_MORE)
			return rc;
		ck_assert_uint_eq(used, k);
		off += k;
	}
	return rc;
}

/* Parse a whole request both at once and byte by byte; returns the status
 * (0 for success), leaving the at-once parse in *p (caller frees). */
static int
parse_req(struct proxy_http_parser *p, const char *s)
{
	struct proxy_http_parser q;
	size_t t1, t2;
	int rc1, rc2;

	proxy_http_init(&q, PROXY_HTTP_REQUEST, 0);
	rc2 = feed(&q, s, strlen(s), 1, &t2);
	proxy_http_init(p, PROXY_HTTP_REQUEST, 0);
	rc1 = feed(p, s, strlen(s), 0, &t1);
	ck_assert_int_eq(rc1, rc2);
	if (rc1 == PROXY_HTTP_DONE)
		ck_assert_uint_eq(t1, t2);
	else if (rc1 == PROXY_HTTP_ERROR)
		ck_assert_int_eq(p->status, q.status);
	proxy_http_free(&q);
	if (rc1 == PROXY_HTTP_MORE)
		return -1;
	return rc1 == PROXY_HTTP_DONE ? 0 : p->status;
}

START_TEST(test_connect)
{
	struct proxy_http_parser p;

	ck_assert_int_eq(parse_req(&p, "CONNECT Example.COM:443 HTTP/1.1\r\n"
	    "Host: example.com:443\r\nUser-Agent: t\r\n\r\n"), 0);
	ck_assert_int_eq(p.msg.connect, 1);
	ck_assert_str_eq(p.msg.method, "CONNECT");
	ck_assert_str_eq(p.msg.host, "example.com");
	ck_assert_int_eq(p.msg.port, 443);
	ck_assert_str_eq(p.msg.path, "");
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_NONE);
	ck_assert_uint_eq(p.msg.n_headers, 2);
	ck_assert_str_eq(proxy_http_header(&p.msg, "user-agent"), "t");
	proxy_http_free(&p);

	ck_assert_int_eq(parse_req(&p, "CONNECT [2001:db8::1]:22 HTTP/1.1\r\n\r\n"), 0);
	ck_assert_str_eq(p.msg.host, "2001:db8::1");
	ck_assert_int_eq(p.msg.port, 22);
	proxy_http_free(&p);

	/* Host without a port matches a CONNECT to 443. */
	ck_assert_int_eq(parse_req(&p, "CONNECT a.b:443 HTTP/1.1\r\nHost: a.b\r\n\r\n"), 0);
	proxy_http_free(&p);
	ck_assert_int_eq(parse_req(&p, "CONNECT a.b HTTP/1.1\r\n\r\n"), 400);
	proxy_http_free(&p);
	ck_assert_int_eq(parse_req(&p, "CONNECT a.b:0 HTTP/1.1\r\n\r\n"), 400);
	proxy_http_free(&p);
	ck_assert_int_eq(parse_req(&p, "CONNECT a.b:65536 HTTP/1.1\r\n\r\n"), 400);
	proxy_http_free(&p);
	ck_assert_int_eq(parse_req(&p, "CONNECT a.b:443 HTTP/1.1\r\nContent-Length: 5\r\n\r\n"), 400);
	proxy_http_free(&p);
}
END_TEST

START_TEST(test_absolute_form)
{
	struct proxy_http_parser p;

	ck_assert_int_eq(parse_req(&p, "GET http://Example.com/a/b?c=d HTTP/1.1\r\n"
	    "Host: example.com\r\nAccept: */*\r\n\r\n"), 0);
	ck_assert_str_eq(p.msg.method, "GET");
	ck_assert_str_eq(p.msg.host, "example.com");
	ck_assert_int_eq(p.msg.port, 80);
	ck_assert_str_eq(p.msg.path, "/a/b?c=d");
	ck_assert_int_eq(p.msg.minor, 1);
	ck_assert_int_eq(p.msg.keep_alive, 1);
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_NONE);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_req(&p, "GET http://example.com HTTP/1.0\r\n\r\n"), 0);
	ck_assert_str_eq(p.msg.path, "/");
	ck_assert_int_eq(p.msg.keep_alive, 0);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_req(&p, "GET http://example.com:8080?q HTTP/1.1\r\n"
	    "Connection: close\r\n\r\n"), 0);
	ck_assert_str_eq(p.msg.path, "/?q");
	ck_assert_int_eq(p.msg.port, 8080);
	ck_assert_int_eq(p.msg.keep_alive, 0);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_req(&p, "POST http://[::1]:81/x HTTP/1.1\r\n"
	    "Content-Length: 12\r\n\r\n"), 0);
	ck_assert_str_eq(p.msg.host, "::1");
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_LENGTH);
	ck_assert_uint_eq(p.msg.length, 12);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_req(&p, "POST http://h/x HTTP/1.1\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"), 0);
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_CHUNKED);
	proxy_http_free(&p);

	/* A leading empty line is skipped. */
	ck_assert_int_eq(parse_req(&p, "\r\nGET http://h/ HTTP/1.1\r\n\r\n"), 0);
	ck_assert_str_eq(p.msg.host, "h");
	proxy_http_free(&p);
}
END_TEST

/* Request shapes the proxy refuses, and the status for each. */
static const struct {
	const char *req;
	int status;
} bad[] = {
	{ "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", 400 },           /* origin-form */
	{ "GET https://example.com/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET ftp://example.com/ HTTP/1.1\r\n\r\n", 400 },
	{ "OPTIONS * HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://u:p@example.com/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://example.com/#f HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://exa%6dple.com/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://example.com\\@evil.com/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http:///x HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://example.com:/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://example.com:99999/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://[::1/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://[zz::1]/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET  http://h/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://h/ HTTP/1.1 \r\n\r\n", 400 },
	{ "GET http://h/ HTTP/2.0\r\n\r\n", 505 },
	{ "GET http://h/ HTTX/1.1\r\n\r\n", 400 },
	{ "G(T http://h/ HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://h/\x01 HTTP/1.1\r\n\r\n", 400 },
	{ "GET http://h/\xc3\xa9 HTTP/1.1\r\n\r\n", 400 },
	/* bare LF and bare CR */
	{ "GET http://h/ HTTP/1.1\n\n", 400 },
	{ "GET http://h/ HTTP/1.1\r\nA: b\n\r\n", 400 },
	{ "GET http://h/ HTTP/1.1\r\nA: b\rX: y\r\n\r\n", 400 },
	/* smuggling shapes */
	{ "POST http://h/ HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nContent-Length: 4, 4\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nContent-Length: +4\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nContent-Length: 0x4\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nContent-Length: \r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nTransfer-Encoding:\x0b" "chunked\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400 },
	{ "POST http://h/ HTTP/1.1\r\nX: a\r\n chunked\r\n\r\n", 400 },       /* obs-fold */
	{ "POST http://h/ HTTP/1.1\r\n\tX: a\r\n\r\n", 400 },
	{ "GET http://h/ HTTP/1.1\r\nX\x00Y: a\r\n\r\n", 400 },
	{ "GET http://h/ HTTP/1.1\r\nX: a\x7f\r\n\r\n", 400 },
	{ "GET http://h/ HTTP/1.1\r\n: a\r\n\r\n", 400 },
	{ "GET http://h/ HTTP/1.1\r\nNoColon\r\n\r\n", 400 },
	{ "GET http://h/ HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n", 400 },
	{ "GET http://h/ HTTP/1.1\r\nHost: h:x\r\n\r\n", 400 },
	{ "GET http://h/ HTTP/1.1\r\nHost: \r\n\r\n", 400 },
	/* Host mismatch is a refusal */
	{ "GET http://h/ HTTP/1.1\r\nHost: other\r\n\r\n", 403 },
	{ "GET http://h/ HTTP/1.1\r\nHost: h:8080\r\n\r\n", 403 },
	{ "GET http://h:8080/ HTTP/1.1\r\nHost: h\r\n\r\n", 403 },
	{ "CONNECT h:443 HTTP/1.1\r\nHost: evil:443\r\n\r\n", 403 },
	{ "CONNECT h:22 HTTP/1.1\r\nHost: h\r\n\r\n", 403 },
	{ "\r\n\r\n\r\n\r\n\r\nGET http://h/ HTTP/1.1\r\n\r\n", 400 },
};

START_TEST(test_bad_requests)
{
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct proxy_http_parser p;
		size_t len = strlen(bad[i].req);
		size_t t;
		int rc;

		/* embedded NULs: use the literal's real length */
		if (strncmp(bad[i].req, "GET http://h/ HTTP/1.1\r\nX", 25) == 0 &&
		    bad[i].req[25] == '\0')
			len = sizeof "GET http://h/ HTTP/1.1\r\nX\x00Y: a\r\n\r\n" - 1;
		proxy_http_init(&p, PROXY_HTTP_REQUEST, 0);
		rc = feed(&p, bad[i].req, len, 0, &t);
		ck_assert_msg(rc == PROXY_HTTP_ERROR, "case %zu accepted: %s", i, bad[i].req);
		ck_assert_msg(p.status == bad[i].status, "case %zu: status %d, want %d (%s)",
		    i, p.status, bad[i].status, p.error);
		ck_assert_ptr_nonnull(p.error);
		if (bad[i].status == 403)
			ck_assert_str_eq(p.error, PROXY_HTTP_HOST_MISMATCH);
		proxy_http_free(&p);
	}
}
END_TEST

START_TEST(test_limits)
{
	struct proxy_http_parser p;
	char *big;
	size_t t, i, off;
	int rc;

	/* One header longer than the head limit: 431. */
	big = malloc(40000);
	off = (size_t)sprintf(big, "GET http://h/ HTTP/1.1\r\nX: ");
	memset(big + off, 'a', 20000);
	strcpy(big + off + 20000, "\r\n\r\n");
	proxy_http_init(&p, PROXY_HTTP_REQUEST, 0);
	rc = feed(&p, big, strlen(big), 1000, &t);
	ck_assert_int_eq(rc, PROXY_HTTP_ERROR);
	ck_assert_int_eq(p.status, 431);
	ck_assert_uint_le(p.cap, PROXY_HTTP_MAX_REQUEST_HEAD + 1);
	proxy_http_free(&p);

	/* A request line longer than the limit: 414. */
	off = (size_t)sprintf(big, "GET http://h/");
	memset(big + off, 'a', 20000);
	strcpy(big + off + 20000, " HTTP/1.1\r\n\r\n");
	proxy_http_init(&p, PROXY_HTTP_REQUEST, 0);
	rc = feed(&p, big, strlen(big), 0, &t);
	ck_assert_int_eq(rc, PROXY_HTTP_ERROR);
	ck_assert_int_eq(p.status, 414);
	proxy_http_free(&p);

	/* Too many header fields: 431. */
	off = (size_t)sprintf(big, "GET http://h/ HTTP/1.1\r\n");
	for (i = 0; i < PROXY_HTTP_MAX_HEADERS + 1; i++)
		off += (size_t)sprintf(big + off, "X%zu: y\r\n", i);
	strcpy(big + off, "\r\n");
	proxy_http_init(&p, PROXY_HTTP_REQUEST, 0);
	rc = feed(&p, big, strlen(big), 0, &t);
	ck_assert_int_eq(rc, PROXY_HTTP_ERROR);
	ck_assert_int_eq(p.status, 431);
	proxy_http_free(&p);

	/* Many small pieces of a head under the limit still parse. */
	off = (size_t)sprintf(big, "GET http://h/ HTTP/1.1\r\n");
	for (i = 0; i < 90; i++)
		off += (size_t)sprintf(big + off, "X%zu: %0100d\r\n", i, 0);
	strcpy(big + off, "\r\n");
	proxy_http_init(&p, PROXY_HTTP_REQUEST, 0);
	rc = feed(&p, big, strlen(big), 7, &t);
	ck_assert_int_eq(rc, PROXY_HTTP_DONE);
	ck_assert_uint_eq(p.msg.n_headers, 90);
	ck_assert_str_eq(p.msg.headers[89].name, "X89");
	proxy_http_free(&p);
	free(big);
}
END_TEST

/* Two pipelined requests: the first head stops at its end, and after a
 * reset the second is parsed (and checked) on its own. */
START_TEST(test_keepalive_reparse)
{
	const char *two = "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\n\r\n"
	    "GET http://b.example/x HTTP/1.1\r\nHost: a.example\r\n\r\n";
	struct proxy_http_parser p;
	size_t used, used2;

	proxy_http_init(&p, PROXY_HTTP_REQUEST, 0);
	ck_assert_int_eq(proxy_http_feed(&p, two, strlen(two), &used), PROXY_HTTP_DONE);
	ck_assert_str_eq(p.msg.host, "a.example");
	ck_assert_uint_eq(used, strlen("GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\n\r\n"));
	proxy_http_reset(&p);
	ck_assert_int_eq(proxy_http_feed(&p, two + used, strlen(two) - used, &used2),
	    PROXY_HTTP_ERROR);
	ck_assert_int_eq(p.status, 403);
	proxy_http_reset(&p);
	ck_assert_int_eq(proxy_http_feed(&p, "GET http://b.example/x HTTP/1.1\r\n\r\n",
	    35, &used2), PROXY_HTTP_DONE);
	ck_assert_str_eq(p.msg.host, "b.example");
	ck_assert_str_eq(p.msg.path, "/x");
	proxy_http_free(&p);
}
END_TEST

START_TEST(test_upstream_head)
{
	struct proxy_http_parser p;
	size_t len;
	char *h;

	ck_assert_int_eq(parse_req(&p, "POST http://Api.Example:8080/v1?x=1 HTTP/1.1\r\n"
	    "Host: api.example:8080\r\nProxy-Authorization: Basic eA==\r\n"
	    "Proxy-Connection: keep-alive\r\nConnection: X-Secret, close\r\n"
	    "X-Secret: 1\r\nKeep-Alive: 5\r\nUpgrade: websocket\r\nTE: trailers\r\n"
	    "Content-Length: 3\r\nAccept: */*\r\n\r\n"), 0);
	h = proxy_http_upstream_head(&p.msg, &len);
	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(len, strlen(h));
	ck_assert_str_eq(h, "POST /v1?x=1 HTTP/1.1\r\nHost: api.example:8080\r\n"
	    "Content-Length: 3\r\nAccept: */*\r\nConnection: close\r\n\r\n");
	free(h);
	proxy_http_free(&p);

	/* Connection cannot be used to strip the framing headers. */
	ck_assert_int_eq(parse_req(&p, "POST http://[2001:db8::1]/ HTTP/1.1\r\n"
	    "Connection: content-length, transfer-encoding\r\nContent-Length: 3\r\n\r\n"), 0);
	h = proxy_http_upstream_head(&p.msg, &len);
	ck_assert_str_eq(h, "POST / HTTP/1.1\r\nHost: [2001:db8::1]\r\n"
	    "Content-Length: 3\r\n\r\n");
	free(h);
	proxy_http_free(&p);
}
END_TEST

/* Feed a response head; returns rc. */
static int
parse_resp(struct proxy_http_parser *p, const char *s, int head_request)
{
	size_t t;

	proxy_http_init(p, PROXY_HTTP_RESPONSE, 0);
	p->head_request = head_request;
	return feed(p, s, strlen(s), 0, &t);
}

START_TEST(test_responses)
{
	struct proxy_http_parser p;

	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", 0),
	    PROXY_HTTP_DONE);
	ck_assert_int_eq(p.msg.status, 200);
	ck_assert_str_eq(p.msg.status_reason, "OK");
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_LENGTH);
	ck_assert_uint_eq(p.msg.length, 5);
	ck_assert_int_eq(p.msg.keep_alive, 1);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", 1),
	    PROXY_HTTP_DONE);
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_NONE);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 204 No Content\r\n\r\n", 0), PROXY_HTTP_DONE);
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_NONE);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 100 Continue\r\n\r\n", 0), PROXY_HTTP_DONE);
	ck_assert_int_eq(p.msg.status, 100);
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_NONE);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 302 Found\r\nLocation: http://x/\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", 0), PROXY_HTTP_DONE);
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_CHUNKED);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
	    "Content-Length: 3\r\n\r\n", 0), PROXY_HTTP_DONE);
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_CLOSE);
	ck_assert_int_eq(p.msg.keep_alive, 0);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_resp(&p, "HTTP/1.0 200 OK\r\n\r\n", 0), PROXY_HTTP_DONE);
	ck_assert_int_eq(p.msg.body, PROXY_HTTP_BODY_CLOSE);
	ck_assert_int_eq(p.msg.keep_alive, 0);
	proxy_http_free(&p);

	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 200\r\nContent-Length: 1\r\n"
	    "Content-Length: 1\r\n\r\n", 0), PROXY_HTTP_DONE);
	ck_assert_str_eq(p.msg.status_reason, "");
	proxy_http_free(&p);

	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
	    "Content-Length: 2\r\n\r\n", 0), PROXY_HTTP_ERROR);
	ck_assert_int_eq(p.status, 502);
	proxy_http_free(&p);
	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 2x0 OK\r\n\r\n", 0), PROXY_HTTP_ERROR);
	proxy_http_free(&p);
	ck_assert_int_eq(parse_resp(&p, "HTTP/1.1 200 OK\n\n", 0), PROXY_HTTP_ERROR);
	proxy_http_free(&p);
	ck_assert_int_eq(parse_resp(&p, "ICY 200 OK\r\n\r\n", 0), PROXY_HTTP_ERROR);
	proxy_http_free(&p);
}
END_TEST

/* Run a chunked body through the decoder in pieces of step bytes. */
static int
chunked(const char *s, size_t n, size_t step, size_t *total)
{
	struct proxy_chunked c;
	size_t off = 0, used;
	int rc = PROXY_HTTP_MORE;

	proxy_chunked_init(&c);
	*total = 0;
	while (off < n) {
		size_t k = step == 0 || step > n - off ? n - off : step;
		rc = proxy_chunked_feed(&c, s + off, k, &used);
		*total += used;
		if (rc != PROXY_HTTP_MORE)
			return rc;
		off += k;
	}
	return rc;
}

START_TEST(test_chunked)
{
	static const char *good = "5\r\nhello\r\nA;ext=1\r\n0123456789\r\n0\r\n"
	    "X-Trailer: v\r\n\r\nGET http://next/";
	size_t t, step, body = strlen(good) - strlen("GET http://next/");

	for (step = 0; step < 9; step++) {
		ck_assert_int_eq(chunked(good, strlen(good), step, &t), PROXY_HTTP_DONE);
		ck_assert_uint_eq(t, body);
	}
	ck_assert_int_eq(chunked("0\r\n\r\n", 5, 0, &t), PROXY_HTTP_DONE);
	ck_assert_uint_eq(t, 5);
	ck_assert_int_eq(chunked("5\r\nhel", 6, 0, &t), PROXY_HTTP_MORE);
	ck_assert_int_eq(chunked("5\nhello\r\n0\r\n\r\n", 15, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("5\r\nhello\n0\r\n\r\n", 15, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("5\r\nhelloX\r\n", 11, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("0\r\n\n", 4, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("-1\r\n", 4, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("0x5\r\n", 5, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked(" 5\r\n", 4, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("5 \r\n", 4, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("\r\n", 2, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("10000000000000000\r\n", 19, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("0\r\n folded\r\n\r\n", 15, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("0\r\nX: a\nY: b\r\n\r\n", 16, 0, &t), PROXY_HTTP_ERROR);
	ck_assert_int_eq(chunked("1;a\nb\r\n", 7, 0, &t), PROXY_HTTP_ERROR);
}
END_TEST

START_TEST(test_chunked_limits)
{
	char *s = malloc(20000);
	size_t t;

	/* an endless chunk extension */
	s[0] = '1';
	s[1] = ';';
	memset(s + 2, 'a', 5000);
	ck_assert_int_eq(chunked(s, 5002, 100, &t), PROXY_HTTP_ERROR);
	/* endless trailers */
	strcpy(s, "0\r\n");
	for (t = 3; t + 8 < 19000; t += 7)
		memcpy(s + t, "X: abc\r\n", 8);
	ck_assert_int_eq(chunked(s, t, 0, &t), PROXY_HTTP_ERROR);
	free(s);
}
END_TEST

START_TEST(test_authority)
{
	char h[PROXY_HTTP_HOST_MAX];
	int port;

	ck_assert_int_eq(proxy_http_parse_authority("A.b:1", 5, h, sizeof h, &port, 0), 0);
	ck_assert_str_eq(h, "a.b");
	ck_assert_int_eq(port, 1);
	ck_assert_int_eq(proxy_http_parse_authority("a.b", 3, h, sizeof h, &port, 0), -1);
	ck_assert_int_eq(proxy_http_parse_authority("a.b", 3, h, sizeof h, &port, 80), 0);
	ck_assert_int_eq(port, 80);
	ck_assert_int_eq(proxy_http_parse_authority("[::FFFF:1.2.3.4]:443", 20, h, sizeof h,
	    &port, 0), 0);
	ck_assert_str_eq(h, "::ffff:1.2.3.4");
	ck_assert_int_eq(proxy_http_parse_authority("::1:80", 6, h, sizeof h, &port, 0), -1);
	ck_assert_int_eq(proxy_http_parse_authority("a b:1", 5, h, sizeof h, &port, 0), -1);
	ck_assert_int_eq(proxy_http_parse_authority("a:1:2", 5, h, sizeof h, &port, 0), -1);
	ck_assert_int_eq(proxy_http_parse_authority("a:+1", 4, h, sizeof h, &port, 0), -1);
	ck_assert_int_eq(proxy_http_parse_authority("[::1]x", 6, h, sizeof h, &port, 80), -1);
}
END_TEST

/* The suite. */
static Suite *
proxy_http_suite(void)
{
	Suite *s = suite_create("proxy-http");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_connect);
	tcase_add_test(tc, test_absolute_form);
	tcase_add_test(tc, test_bad_requests);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_keepalive_reparse);
	tcase_add_test(tc, test_upstream_head);
	tcase_add_test(tc, test_responses);
	tcase_add_test(tc, test_chunked);
	tcase_add_test(tc, test_chunked_limits);
	tcase_add_test(tc, test_authority);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(proxy_http_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
