/* proxy-socks.h: the SOCKS5 side of the proxy (RFC 1928): the greeting
 * (no authentication only), the CONNECT request, and replies. Pure. */
#ifndef SBOX_PROXY_SOCKS_H
#define SBOX_PROXY_SOCKS_H

#include <stddef.h>
#include <stdint.h>

/* Reply codes (RFC 1928 section 6). */
#define PROXY_SOCKS_OK               0x00
#define PROXY_SOCKS_FAILURE          0x01
#define PROXY_SOCKS_NOT_ALLOWED      0x02  /* connection not allowed by ruleset */
#define PROXY_SOCKS_NET_UNREACHABLE  0x03
#define PROXY_SOCKS_HOST_UNREACHABLE 0x04
#define PROXY_SOCKS_REFUSED          0x05
#define PROXY_SOCKS_TTL_EXPIRED      0x06
#define PROXY_SOCKS_CMD_UNSUPPORTED  0x07
#define PROXY_SOCKS_ATYP_UNSUPPORTED 0x08

#define PROXY_SOCKS_REPLY_LEN 10           /* a reply with an IPv4 bound address */

/* One CONNECT request. */
struct proxy_socks_request {
	int  atyp;       /* 1 IPv4, 3 domain, 4 IPv6 */
	char host[256];  /* lower-case name, or the address as text (IPv6 without []) */
	int  port;
};

/* Parse the greeting (VER NMETHODS METHODS). Returns 0 (more bytes needed),
 * 1 with *used set and *noauth telling whether "no authentication" was
 * offered (answer with proxy_socks_method_reply), or -1 when it is not
 * SOCKS5 at all (close). */
int proxy_socks_greeting(const uint8_t *d, size_t n, size_t *used, int *noauth);
/* The 2-byte method selection reply: no authentication, or 0xFF (none). */
void proxy_socks_method_reply(uint8_t out[2], int noauth);
/* Parse a request (VER CMD RSV ATYP ADDR PORT). Returns 0 (more bytes
 * needed), 1 with *used and *r set, or -1 with *reply holding the code to
 * answer before closing (bad version, command other than CONNECT, unknown
 * address type, invalid name or port). */
int proxy_socks_request(const uint8_t *d, size_t n, struct proxy_socks_request *r,
    size_t *used, int *reply);
/* Write a reply with code and bound address 0.0.0.0:0; returns its length. */
size_t proxy_socks_reply(uint8_t out[PROXY_SOCKS_REPLY_LEN], int code);

#endif
