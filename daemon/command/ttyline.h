/* ttyline.h: does the line a terminal is being written on hold text? Fed
 * with what a command writes to its terminal, it tells where a line of
 * sbox's own can start without breaking the screen. Pure: no I/O. */
#ifndef SBOX_TTYLINE_H
#define SBOX_TTYLINE_H

#include <stddef.h>

struct ttyline {
	int midline;  /* the current line holds text */
	int esc;      /* inside an escape sequence (TTYLINE_* in ttyline.c) */
};

/* Follow n bytes written to the terminal: a newline ends the line; escape
 * sequences (CSI ... final byte, OSC ... BEL or ESC \, ESC and one byte),
 * '\r' and other control bytes write no text; any other byte does.
 * Sequences may be split between calls. */
void ttyline_feed(struct ttyline *t, const char *data, size_t n);

#endif
