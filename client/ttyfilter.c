/* ttyfilter.c: what `-t` relays from a sandbox's terminal to ours, with the
 * clipboard and title sequences taken out (--drop-osc, or "terminal":
 * {"drop_osc": true} in the config). Dropped: OSC 52 (write the clipboard),
 * OSC 0, 1 and 2 (icon and window title), and screen's title sequence
 * (ESC k ... ST); an OSC starts with ESC ] or the C1 control U+009D (as
 * UTF-8, C2 9D) and ends with BEL, ESC \ or U+009C, or is cut short by
 * CAN, SUB or another ESC. Everything else passes as it is, as ssh passes
 * it. The filter is a state machine that keeps the few bytes of a
 * sequence's start across reads, so a sequence split anywhere is seen. */
#include "client/ttyfilter.h"

#include <string.h>

enum {
	TF_TEXT,	/* ordinary bytes */
	TF_ESC,		/* ESC held */
	TF_C2,		/* C2 held (maybe U+009D, OSC) */
	TF_NUM,		/* an OSC's number being read (held) */
	TF_PASS,	/* inside an OSC we pass */
	TF_DROP,	/* inside a sequence we drop */
	TF_DROP_ESC,	/* ESC inside a dropped sequence */
	TF_DROP_C2,	/* C2 inside a dropped sequence (maybe U+009C, ST) */
};

#define TF_MAX_DIGITS 8

/* Start in ordinary text. */
void
ttyfilter_init(struct ttyfilter *f)
{
	memset(f, 0, sizeof *f);
	f->state = TF_TEXT;
}

/* Is OSC number num one we drop (clipboard, titles)? */
static int
ttyfilter_dropped(unsigned long num)
{
	return num == 0 || num == 1 || num == 2 || num == 52;
}

/* Move the held bytes to out. */
static size_t
ttyfilter_release(struct ttyfilter *f, unsigned char *out)
{
	size_t n = f->nhold;

	memcpy(out, f->hold, n);
	f->nhold = 0;
	return n;
}

/* Filter n bytes of in into out, which has room for n + TTYFILTER_HOLD
 * bytes; returns how many were written. Bytes of a sequence's start stay
 * held until the next call decides them. */
size_t
ttyfilter_run(struct ttyfilter *f, const unsigned char *in, size_t n,
    unsigned char *out)
{
	size_t o = 0, i = 0;
	unsigned char b;

	while (i < n) {
		b = in[i];
		switch (f->state) {
		case TF_TEXT:
			if (b == 0x1b || b == 0xc2) {
				f->hold[f->nhold++] = b;
				f->state = b == 0x1b ? TF_ESC : TF_C2;
			} else
				out[o++] = b;
			i++;
			continue;
		case TF_ESC:
			if (b == ']') {
				f->hold[f->nhold++] = b;
				f->num = 0;
				f->ndigits = 0;
				f->state = TF_NUM;
				i++;
			} else if (b == 'k') {	/* screen's title: dropped */
				f->nhold = 0;
				f->state = TF_DROP;
				i++;
			} else if (b == 0x1b) {	/* the first ESC was alone */
				out[o++] = 0x1b;
				i++;
			} else {
				/* not ours (ST, CSI, ...): released, and b is
				 * looked at as text */
				o += ttyfilter_release(f, out + o);
				f->state = TF_TEXT;
				if (b != 0xc2) {
					out[o++] = b;
					i++;
				}
			}
			continue;
		case TF_C2:
			if (b == 0x9d) {	/* U+009D: OSC */
				f->hold[f->nhold++] = b;
				f->num = 0;
				f->ndigits = 0;
				f->state = TF_NUM;
				i++;
				continue;
			}
			o += ttyfilter_release(f, out + o);
			f->state = TF_TEXT;	/* b again, as text */
			continue;
		case TF_NUM:
			if (b >= '0' && b <= '9' && f->ndigits < TF_MAX_DIGITS) {
				f->hold[f->nhold++] = b;
				f->num = f->num * 10 + (unsigned long)(b - '0');
				f->ndigits++;
				i++;
				continue;
			}
			/* the number is known (none: 0, as a terminal reads it;
			 * too long: not one of ours) */
			if (b >= '0' && b <= '9')
				f->num = (unsigned long)-1;
			if (ttyfilter_dropped(f->num)) {
				f->nhold = 0;
				f->state = TF_DROP;
			} else {
				o += ttyfilter_release(f, out + o);
				f->state = TF_PASS;
			}
			continue;	/* b again, inside the sequence */
		case TF_PASS:
			if (b == 0x1b || b == 0xc2) {
				/* ST, or the start of another sequence */
				f->hold[f->nhold++] = b;
				f->state = b == 0x1b ? TF_ESC : TF_C2;
			} else {
				out[o++] = b;
				if (b == 0x07 || b == 0x18 || b == 0x1a)
					f->state = TF_TEXT;
			}
			i++;
			continue;
		case TF_DROP:
			if (b == 0x1b)
				f->state = TF_DROP_ESC;
			else if (b == 0xc2)
				f->state = TF_DROP_C2;
			else if (b == 0x07 || b == 0x18 || b == 0x1a)
				f->state = TF_TEXT;
			i++;
			continue;
		case TF_DROP_ESC:
			if (b == '\\') {	/* ESC \: the end */
				f->state = TF_TEXT;
				i++;
				continue;
			}
			/* cut short by another sequence: it starts here */
			f->hold[f->nhold++] = 0x1b;
			f->state = TF_ESC;
			continue;
		case TF_DROP_C2:
			if (b == 0x9c) {	/* U+009C: ST */
				f->state = TF_TEXT;
				i++;
				continue;
			}
			f->state = TF_DROP;	/* b again, still dropped */
			continue;
		}
	}
	return o;
}

/* At the end of the stream: the held bytes (an unfinished start) go out;
 * returns how many were written to out (room for TTYFILTER_HOLD). */
size_t
ttyfilter_flush(struct ttyfilter *f, unsigned char *out)
{
	size_t n = f->state == TF_DROP || f->state == TF_DROP_ESC ||
	    f->state == TF_DROP_C2 ? 0 : ttyfilter_release(f, out);

	ttyfilter_init(f);
	return n;
}
