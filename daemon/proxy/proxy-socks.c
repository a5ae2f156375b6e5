/* proxy-socks.c: SOCKS5 greeting, CONNECT request and replies (RFC 1928);
 * only "no authentication" and CONNECT are supported. */
#include "daemon/proxy/proxy-socks.h"

#include <arpa/inet.h>
#include <string.h>

/* Parse the greeting; 0 more, 1 done, -1 not SOCKS5. */
int
proxy_socks_greeting(const uint8_t *d, size_t n, size_t *used, int *noauth)
{
	size_t i, nm;

	*used = 0;
	*noauth = 0;
	if (n < 1)
		return 0;
	if (d[0] != 0x05)
		return -1;
	if (n < 2)
		return 0;
	nm = d[1];
	if (nm == 0)
		return -1;
	if (n < 2 + nm)
		return 0;
	for (i = 0; i < nm; i++)
		if (d[2 + i] == 0x00)
			*noauth = 1;
	*used = 2 + nm;
	return 1;
}

/* The 2-byte method selection reply. */
void
proxy_socks_method_reply(uint8_t out[2], int noauth)
{
	out[0] = 0x05;
	out[1] = noauth ? 0x00 : 0xFF;
}

/* Parse a CONNECT request; 0 more, 1 done, -1 with *reply set. */
int
proxy_socks_request(const uint8_t *d, size_t n, struct proxy_socks_request *r,
    size_t *used, int *reply)
{
	size_t need, i, hl;

	*used = 0;
	*reply = PROXY_SOCKS_FAILURE;
	if (n >= 1 && d[0] != 0x05)
		return -1;
	if (n >= 2 && d[1] != 0x01) {
		*reply = PROXY_SOCKS_CMD_UNSUPPORTED;
		return -1;
	}
	if (n >= 3 && d[2] != 0x00)
		return -1;
	if (n < 4)
		return 0;
	memset(r, 0, sizeof *r);
	r->atyp = d[3];
	switch (d[3]) {
	case 0x01:
		need = 4 + 4 + 2;
		if (n < need)
			return 0;
		inet_ntop(AF_INET, d + 4, r->host, sizeof r->host);
		break;
	case 0x04:
		need = 4 + 16 + 2;
		if (n < need)
			return 0;
		inet_ntop(AF_INET6, d + 4, r->host, sizeof r->host);
		break;
	case 0x03:
		if (n < 5)
			return 0;
		hl = d[4];
		need = 5 + hl + 2;
		if (hl == 0)
			return -1;
		if (n < need)
			return 0;
		for (i = 0; i < hl; i++) {
			char c = (char)d[5 + i];
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			    c == '-' || c == '.' || c == '_' || c == ':'))
				return -1;
			r->host[i] = c;
		}
		r->host[hl] = '\0';
		break;
	default:
		*reply = PROXY_SOCKS_ATYP_UNSUPPORTED;
		return -1;
	}
	r->port = d[need - 2] << 8 | d[need - 1];
	if (r->port == 0)
		return -1;
	*used = need;
	return 1;
}

/* Write a reply with code and bound address 0.0.0.0:0. */
size_t
proxy_socks_reply(uint8_t out[PROXY_SOCKS_REPLY_LEN], int code)
{
	memset(out, 0, PROXY_SOCKS_REPLY_LEN);
	out[0] = 0x05;
	out[1] = (uint8_t)code;
	out[3] = 0x01;
	return PROXY_SOCKS_REPLY_LEN;
}
