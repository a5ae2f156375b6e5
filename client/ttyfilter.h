/* ttyfilter.h: the -t relay's filter that drops clipboard (OSC 52) and
 * title (OSC 0, 1, 2; ESC k) sequences, across reads. */
#ifndef SBOX_TTYFILTER_H
#define SBOX_TTYFILTER_H

#include <stddef.h>

#define TTYFILTER_HOLD 16   /* bytes a filter may hold between reads */

struct ttyfilter {
	int           state;
	unsigned char hold[TTYFILTER_HOLD];
	size_t        nhold;
	unsigned long num;      /* the OSC's number so far */
	int           ndigits;
};

/* Start a stream. */
void ttyfilter_init(struct ttyfilter *f);
/* Filter n bytes of in into out (room for n + TTYFILTER_HOLD); returns
 * how many were written. */
size_t ttyfilter_run(struct ttyfilter *f, const unsigned char *in, size_t n,
    unsigned char *out);
/* The end of the stream: what is still held (not inside a dropped
 * sequence) into out; returns how many bytes. */
size_t ttyfilter_flush(struct ttyfilter *f, unsigned char *out);

#endif
