/* base64.h: standard base64 (RFC 4648) for bytes carried in JSON. */
#ifndef SBOX_BASE64_H
#define SBOX_BASE64_H

#include <stddef.h>

/* Encode n bytes; returns a NUL-terminated string the caller frees. */
char *base64_encode(const void *data, size_t n);
/* Decode a string; returns the bytes (caller frees) and their count in *out_n,
 * or NULL if the text is not valid base64. */
unsigned char *base64_decode(const char *text, size_t len, size_t *out_n);

#endif
