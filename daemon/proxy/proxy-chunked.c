/* proxy-chunked.c: a chunked body (Transfer-Encoding: chunked) followed
 * byte by byte, so that the proxy knows where one request or response ends
 * and the next begins on a kept-alive connection (a smuggled request hides
 * in a body whose end two parsers see differently). */
#include "daemon/proxy/proxy-chunked.h"

#include <string.h>

#define PROXY_CHUNKED_MAX_LINE     1024 /* chunk size line with extensions */
#define PROXY_CHUNKED_MAX_TRAILERS 8192 /* bytes of trailer fields */

/* Where the state machine is. */
enum {
	CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF,
	CH_TRAILER_START, CH_TRAILER_NAME, CH_TRAILER_VALUE, CH_TRAILER_LF,
	CH_END_LF, CH_DONE, CH_ERROR,
};

/* Start a new chunked body. */
void
proxy_chunked_init(struct proxy_chunked *c)
{
	memset(c, 0, sizeof *c);
	c->state = CH_SIZE;
}

/* Fail the chunked body; returns PROXY_HTTP_ERROR. */
static int
proxy_chunked_fail(struct proxy_chunked *c, const char *why)
{
	c->state = CH_ERROR;
	c->error = why;
	return PROXY_HTTP_ERROR;
}

/* Feed body bytes to the chunked state machine; see proxy-chunked.h. */
int
proxy_chunked_feed(struct proxy_chunked *c, const char *data,
    size_t len, size_t *used)
{
	size_t i = 0;

	*used = 0;
	if (c->state == CH_DONE)
		return PROXY_HTTP_DONE;
	if (c->state == CH_ERROR)
		return PROXY_HTTP_ERROR;
	while (i < len) {
		unsigned char ch = (unsigned char)data[i];

		switch (c->state) {
		case CH_DATA: {
			size_t n = len - i;
			if ((uint64_t)n > c->left)
				n = (size_t)c->left;
			c->left -= n;
			i += n;
			if (c->left == 0)
				c->state = CH_DATA_CR;
			*used = i;
			continue;
		}
		case CH_SIZE: {
			int d = -1;
			if (ch >= '0' && ch <= '9')
				d = ch - '0';
			else if (ch >= 'a' && ch <= 'f')
				d = ch - 'a' + 10;
			else if (ch >= 'A' && ch <= 'F')
				d = ch - 'A' + 10;
			if (d >= 0) {
				if (++c->digits > 15)
					return proxy_chunked_fail(c, "chunk size too large");
				c->left = c->left * 16 + (uint64_t)d;
			} else if (c->digits == 0) {
				return proxy_chunked_fail(c, "malformed chunk size");
			} else if (ch == ';') {
				c->state = CH_EXT;
			} else if (ch == '\r') {
				c->state = CH_SIZE_LF;
			} else {
				return proxy_chunked_fail(c, "malformed chunk size");
			}
			break;
		}
		case CH_EXT:
			if (++c->line > PROXY_CHUNKED_MAX_LINE)
				return proxy_chunked_fail(c, "chunk extension too long");
			if (ch == '\r')
				c->state = CH_SIZE_LF;
			else if (!proxy_http_vchar(ch))
				return proxy_chunked_fail(c, "invalid chunk extension");
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				return proxy_chunked_fail(c, "bare CR in a chunk size line");
			c->state = c->left == 0 ? CH_TRAILER_START : CH_DATA;
			c->digits = 0;
			c->line = 0;
			break;
		case CH_DATA_CR:
			if (ch != '\r')
				return proxy_chunked_fail(c, "chunk data not followed by CRLF");
			c->state = CH_DATA_LF;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				return proxy_chunked_fail(c, "chunk data not followed by CRLF");
			c->state = CH_SIZE;
			break;
		case CH_TRAILER_START:
			if (ch == '\r') {
				c->state = CH_END_LF;
				break;
			}
			if (!proxy_http_tchar(ch))
				return proxy_chunked_fail(c, "malformed trailer field");
			c->state = CH_TRAILER_NAME;
			break;
		case CH_TRAILER_NAME:
			if (ch == ':')
				c->state = CH_TRAILER_VALUE;
			else if (!proxy_http_tchar(ch))
				return proxy_chunked_fail(c, "malformed trailer field");
			break;
		case CH_TRAILER_VALUE:
			if (ch == '\r')
				c->state = CH_TRAILER_LF;
			else if (!proxy_http_vchar(ch))
				return proxy_chunked_fail(c, "invalid character in a trailer");
			break;
		case CH_TRAILER_LF:
			if (ch != '\n')
				return proxy_chunked_fail(c, "bare CR in a trailer");
			c->state = CH_TRAILER_START;
			break;
		case CH_END_LF:
			if (ch != '\n')
				return proxy_chunked_fail(c, "bare CR after the last chunk");
			c->state = CH_DONE;
			*used = i + 1;
			return PROXY_HTTP_DONE;
		default:
			return proxy_chunked_fail(c, "internal state");
		}
		if (c->state >= CH_TRAILER_START && c->state <= CH_END_LF &&
		    ++c->trailer > PROXY_CHUNKED_MAX_TRAILERS)
			return proxy_chunked_fail(c, "trailers too large");
		i++;
		*used = i;
	}
	return PROXY_HTTP_MORE;
}
