/* ttyfilter.h: the filter of what a sandbox writes to the person's
 * terminal: sequences that act on the person's machine rather than the
 * screen (clipboard, titles, notifications, file transfer, window
 * operations) are dropped, across reads. */
#ifndef SBOX_TTYFILTER_H
#define SBOX_TTYFILTER_H

#include <stddef.h>

#define TTYFILTER_HOLD 128  /* bytes a filter may hold between reads */

struct ttyfilter {
	int           state;
	unsigned char hold[TTYFILTER_HOLD];
	size_t        nhold;
	unsigned long num;      /* the OSC's (or CSI's first) number so far */
	int           ndigits;  /* its digits, leading zeros not counted */
	int           flags;    /* CSI: a second parameter, a private marker */
};

/* Start a stream. */
void ttyfilter_init(struct ttyfilter *f);
/* Filter n bytes of in into out (room for n + TTYFILTER_HOLD); returns
 * how many were written. */
size_t ttyfilter_run(struct ttyfilter *f, const unsigned char *in, size_t n,
    unsigned char *out);
/* The end of the stream: an unfinished sequence still held is dropped
 * (what is written next would finish it); returns 0 bytes written to out,
 * kept for callers that flush into a buffer. */
size_t ttyfilter_flush(struct ttyfilter *f, unsigned char *out);

#endif
