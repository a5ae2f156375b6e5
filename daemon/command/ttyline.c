/* ttyline.c: does the line a terminal is being written on hold text? */
#include "daemon/command/ttyline.h"

enum { TTYLINE_TEXT, TTYLINE_ESC, TTYLINE_CSI, TTYLINE_OSC };

/* Follow n bytes written to the terminal. */
void
ttyline_feed(struct ttyline *t, const char *data, size_t n)
{
	unsigned char b;
	size_t i;

	for (i = 0; i < n; i++) {
		b = (unsigned char)data[i];
		switch (t->esc) {
		case TTYLINE_ESC:
			t->esc = b == '[' ? TTYLINE_CSI : b == ']' ?
			    TTYLINE_OSC : TTYLINE_TEXT;
			break;
		case TTYLINE_CSI:
			if (b >= 0x40 && b <= 0x7e)
				t->esc = TTYLINE_TEXT;
			break;
		case TTYLINE_OSC:
			if (b == 0x07)
				t->esc = TTYLINE_TEXT;
			else if (b == 0x1b)
				t->esc = TTYLINE_ESC;
			break;
		default:
			if (b == '\n')
				t->midline = 0;
			else if (b == 0x1b)
				t->esc = TTYLINE_ESC;
			else if (b >= 0x20 && b != 0x7f)
				t->midline = 1;
		}
	}
}
