/* proxy-chunked.h: the chunked-body state machine (its answers are
 * proxy-http.h's PROXY_HTTP_DONE, MORE and ERROR). */
#ifndef SBOX_PROXY_CHUNKED_H
#define SBOX_PROXY_CHUNKED_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/proxy/proxy-http.h"

/* The chunked-body state machine: consumes exactly one chunked body. */
struct proxy_chunked {
	int      state;
	uint64_t left;      /* bytes left in the current chunk */
	int      digits;    /* hex digits of the size read so far */
	size_t   line;      /* bytes of the current size or trailer line */
	size_t   trailer;   /* bytes of trailers so far */
	const char *error;  /* why it failed */
};

/* Start a new chunked body. */
void proxy_chunked_init(struct proxy_chunked *c);
/* Feed body bytes; *used says how many belong to the body. DONE when the
 * last chunk and trailers ended, MORE when all bytes were taken, ERROR on a
 * malformed body (bare LF, bad size, over-long line or trailers). */
int proxy_chunked_feed(struct proxy_chunked *c, const char *data,
    size_t len, size_t *used);

#endif
