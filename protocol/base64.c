/* base64.c: RFC 4648 base64 with padding. */
#include "base64.h"

#include <stdlib.h>

static const char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Encode n bytes; returns a NUL-terminated string the caller frees. */
char *
base64_encode(const void *data, size_t n)
{
	const unsigned char *p = data;
	char *out, *o;
	size_t i;
	unsigned v;

	out = malloc(((n + 2) / 3) * 4 + 1);
	if (out == NULL)
		return NULL;
	o = out;
	for (i = 0; i + 2 < n; i += 3) {
		v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		*o++ = base64_alphabet[(v >> 18) & 63];
		*o++ = base64_alphabet[(v >> 12) & 63];
		*o++ = base64_alphabet[(v >> 6) & 63];
		*o++ = base64_alphabet[v & 63];
	}
	if (i < n) {
		v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0);
		*o++ = base64_alphabet[(v >> 18) & 63];
		*o++ = base64_alphabet[(v >> 12) & 63];
		*o++ = i + 1 < n ? base64_alphabet[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

/* The value of one base64 character, or -1. */
static int
base64_value(char c)
{
	if (c >= 'A' && c <= 'Z') return c - 'A';
	if (c >= 'a' && c <= 'z') return c - 'a' + 26;
	if (c >= '0' && c <= '9') return c - '0' + 52;
	if (c == '+') return 62;
	if (c == '/') return 63;
	return -1;
}

/* Decode a string; NULL if it is not valid base64. */
unsigned char *
base64_decode(const char *text, size_t len, size_t *out_n)
{
	unsigned char *out;
	size_t i, o = 0, pad = 0;
	int a, b, c, d;

	if (len % 4 != 0)
		return NULL;
	if (len > 0 && text[len - 1] == '=') pad++;
	if (len > 1 && text[len - 2] == '=') pad++;
	out = malloc(len / 4 * 3 + 1);
	if (out == NULL)
		return NULL;
	for (i = 0; i < len; i += 4) {
		int last = i + 4 == len;
		a = base64_value(text[i]);
		b = base64_value(text[i + 1]);
		c = (last && pad >= 2) ? 0 : base64_value(text[i + 2]);
		d = (last && pad >= 1) ? 0 : base64_value(text[i + 3]);
		if (a < 0 || b < 0 || c < 0 || d < 0) {
			free(out);
			return NULL;
		}
		out[o++] = (unsigned char)(a << 2 | b >> 4);
		if (!(last && pad >= 2))
			out[o++] = (unsigned char)((b & 15) << 4 | c >> 2);
		if (!(last && pad >= 1))
			out[o++] = (unsigned char)((c & 3) << 6 | d);
	}
	*out_n = o;
	return out;
}
