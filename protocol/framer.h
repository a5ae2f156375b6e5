/* framer.h: line framing (one JSON object per LF-terminated line), bounded. */
#ifndef SBOX_FRAMER_H
#define SBOX_FRAMER_H

#include <stddef.h>
#include "error.h"

struct framer {
	char  *buf;        /* bytes received and not yet returned */
	size_t start;      /* first byte not yet returned */
	size_t len;        /* end of valid bytes */
	size_t cap;
	size_t max;        /* longest line accepted, without the LF */
	int    discarding; /* inside an over-long line: drop bytes until LF */
	int    overflowed; /* over-long lines seen and not yet reported */
	unsigned long long consumed; /* stream bytes returned or dropped so far */
};

/* Set up an empty framer that accepts lines of at most max bytes. */
void framer_init(struct framer *f, size_t max);
/* Release the framer's memory. */
void framer_free(struct framer *f);
/* Append received bytes; memory stays bounded by max. -1 on allocation failure. */
int framer_feed(struct framer *f, const void *data, size_t n, sbox_error *err);
/* Take the next complete line (without LF or a CR before it). Returns 1 with
 * *line and *len set (valid until the next framer call), 0 when more bytes are
 * needed, -1 (E_TOO_LARGE) once for each over-long line, which is dropped. */
int framer_next(struct framer *f, char **line, size_t *len, sbox_error *err);
/* Bytes buffered and not yet returned as lines. */
size_t framer_pending(const struct framer *f);

#endif
