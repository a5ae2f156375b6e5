/* proxy-http.h: a strict, incremental HTTP/1.x head parser for the proxy
 * (requests from the sandbox, responses from upstream), the chunked-body
 * state machine, and the rewrite of a proxied request to origin-form.
 * Pure: no libevent, no I/O. */
#ifndef SBOX_PROXY_HTTP_H
#define SBOX_PROXY_HTTP_H

#include <stddef.h>
#include <stdint.h>

#define PROXY_HTTP_MAX_REQUEST_HEAD  16384  /* bytes in one request head */
#define PROXY_HTTP_MAX_RESPONSE_HEAD 65536  /* bytes in one response head */
#define PROXY_HTTP_MAX_LINE          8192   /* bytes in one request line */
#define PROXY_HTTP_MAX_HEADERS       100    /* header fields in one head */
#define PROXY_HTTP_HOST_MAX          256    /* host name, NUL included */

/* Reason (X-Sbox-Refused) when Host and the request target disagree. */
#define PROXY_HTTP_HOST_MISMATCH "Host header does not match the request target"

enum proxy_http_kind { PROXY_HTTP_REQUEST, PROXY_HTTP_RESPONSE };

/* How the body after a head is framed. */
enum proxy_http_body {
	PROXY_HTTP_BODY_NONE,     /* no body */
	PROXY_HTTP_BODY_LENGTH,   /* Content-Length bytes */
	PROXY_HTTP_BODY_CHUNKED,  /* Transfer-Encoding: chunked */
	PROXY_HTTP_BODY_CLOSE,    /* until the connection closes (responses only) */
};

/* Results of the feed functions. */
enum proxy_http_rc { PROXY_HTTP_ERROR = -1, PROXY_HTTP_MORE = 0, PROXY_HTTP_DONE = 1 };

struct proxy_http_header {
	const char *name;   /* as sent */
	const char *value;  /* without surrounding white space */
};

/* One parsed head; its strings point into the parser and live until the
 * parser is reset or freed. */
struct proxy_http_msg {
	/* requests */
	const char *method;
	int         connect;               /* method is CONNECT */
	int         head_method;           /* method is HEAD */
	char        host[PROXY_HTTP_HOST_MAX]; /* target host, lower case, IPv6 without [] */
	int         port;                  /* target port */
	const char *path;                  /* origin-form target, "" for CONNECT */
	/* responses */
	int         status;
	const char *status_reason;
	/* both */
	int         minor;                 /* HTTP/1.minor */
	struct proxy_http_header headers[PROXY_HTTP_MAX_HEADERS];
	size_t      n_headers;
	enum proxy_http_body body;
	uint64_t    length;                /* for PROXY_HTTP_BODY_LENGTH */
	int         keep_alive;            /* the connection may carry another message */
};

struct proxy_http_parser {
	enum proxy_http_kind kind;
	int         head_request;  /* responses: the request was HEAD (no body) */
	size_t      max_head;
	char       *buf;           /* the head so far (grows to max_head) */
	size_t      len, cap;
	size_t      line_start;    /* offset of the line being read */
	int         lines;         /* complete lines seen (0: start line next) */
	int         empty_lines;   /* empty lines skipped before a request line */
	int         done;
	size_t      name_off[PROXY_HTTP_MAX_HEADERS];
	size_t      value_off[PROXY_HTTP_MAX_HEADERS];
	size_t      method_off, path_off, reason_off;
	int         status;        /* on error: the HTTP status to answer */
	const char *error;         /* on error: one line saying why */
	struct proxy_http_msg msg;
};

/* Prepare a parser for a request or a response head (max_head 0 = default). */
void proxy_http_init(struct proxy_http_parser *p, enum proxy_http_kind kind,
    size_t max_head);
/* Forget the last head and get ready for the next one (keeps the buffer). */
void proxy_http_reset(struct proxy_http_parser *p);
/* Release the parser's buffer. */
void proxy_http_free(struct proxy_http_parser *p);
/* Feed bytes; *used says how many were taken (the head's bytes only).
 * PROXY_HTTP_DONE: p->msg holds the head; ERROR: p->status and p->error
 * say what to answer (400, 403, 414, 431, 505 for requests; 502 for
 * responses); MORE: all bytes taken, send more. */
int proxy_http_feed(struct proxy_http_parser *p, const char *data, size_t len,
    size_t *used);
/* Value of the first header called name (case-insensitive), or NULL. */
const char *proxy_http_header(const struct proxy_http_msg *m, const char *name);
/* Parse "host[:port]" or "[v6][:port]" into a lower-case host (without
 * brackets) and a port (default_port when absent; 0 = port required).
 * Returns 0, or -1 when malformed. */
int proxy_http_parse_authority(const char *s, size_t n, char *host,
    size_t hostcap, int *port, int default_port);
/* The request head to send upstream for an absolute-form request: origin-form
 * target, Host from the target, hop-by-hop and Proxy-* headers dropped,
 * Connection: close when the client does not keep alive. malloc'd, NUL-
 * terminated, *len its length; NULL when out of memory. */
char *proxy_http_upstream_head(const struct proxy_http_msg *m, size_t *len);

/* True for tchar (RFC 9110 token characters). */
int proxy_http_tchar(unsigned char c);
/* True for a byte allowed in a field value (VCHAR, obs-text, SP, HTAB). */
int proxy_http_vchar(unsigned char c);

#endif
