/* ttyfilter.c: what a sandbox writes to the person's terminal (the -t
 * relay, exec-tty.c, and the pipes of exec-relay.c), with the sequences
 * that act on the person's machine rather than the screen taken out. On by
 * default; --keep-osc or "terminal": {"drop_osc": false} passes them.
 *
 * OSCs (ESC ] or U+009D as UTF-8 C2 9D, up to BEL, ESC \ or U+009C, cut
 * short by CAN, SUB or another ESC) are an allow list: only those that
 * act on the screen pass (4, 5, 10-19, 104-106, 110-119: colours; 8:
 * hyperlinks, shown, need a click; 22: the pointer's shape; 133: prompt
 * marks); every other number is dropped, a terminal's new ones too. Among
 * them, each for its reason:
 *   0, 1, 2  icon and window title: spoofs what the person reads outside
 *            the screen, and CSI 21t would type it back into a shell
 *   3        xterm: sets a property on the person's X server
 *   7        the current folder: new tabs open there on the host
 *   9        iTerm2/ConEmu notification (and ConEmu's commands)
 *   20       rxvt: loads a picture from a path on the person's machine
 *   46       xterm: changes the log file, a file written on the host
 *   50       xterm font (710-713 rxvt's): a query answers into the input
 *   51       Emacs vterm: runs Emacs commands
 *   52       the clipboard: what the person pastes next into a host shell
 *   99       kitty notification
 *   633      VS Code shell integration: host folders, commands to re-run
 *   777      rxvt/VTE notification (rxvt's perl extensions)
 *   1337     iTerm2: file download to the host, clipboard, host name
 *   5113     kitty file transfer
 *   5522     kitty clipboard
 * an OSC without a number (read as 0, a title; but for the Linux
 * console's palette, ESC ] P and ESC ] R), an OSC number of more than 6
 * digits (no terminal has one; a number that wraps could read as 52), and
 * screen's title (ESC k ... ST).
 * Dropped CSI (ESC [ or U+009B) window operations, ... t: 1-10 and 24 up
 * (move, resize, iconify, raise, full screen: the person's desktop), 13
 * (where the window is on the desktop), 20 and 21 (the icon and window
 * title typed back into the input: an injection), 0; what a program asks
 * of the screen passes (11, 14, 15, 16, 18, 19: state and sizes; 22, 23:
 * the title stack). A CSI longer than the hold, or with a byte above
 * 0x7f inside, is dropped whole (no program writes one).
 * Everything else passes: colours (SGR and the OSCs above), cursor
 * moves, DCS
 * (sixel, XTGETTCAP, DECRQSS: the screen, fixed-form answers; what a
 * tmux passthrough holds is filtered as it goes) and APC (kitty graphics:
 * the screen).
 * The filter is a state machine that keeps a sequence's start across
 * reads, so a sequence split anywhere is seen; it never ends a write with
 * a lone ESC or C2 that another stream's bytes could complete. */
#include "client/ttyfilter.h"

#include <string.h>

enum {
	TF_TEXT,	/* ordinary bytes */
	TF_ESC,		/* ESC held */
	TF_C2,		/* C2 held (maybe U+009D, OSC, or U+009B, CSI) */
	TF_NUM,		/* an OSC's number being read (held) */
	TF_PASS,	/* inside an OSC we pass */
	TF_DROP,	/* inside a sequence we drop */
	TF_DROP_ESC,	/* ESC inside a dropped sequence */
	TF_DROP_C2,	/* C2 inside a dropped sequence (maybe U+009C, ST) */
	TF_CSI,		/* a CSI being read (held) */
	TF_CSI_DROP,	/* inside a CSI we drop, up to its final byte */
};

#define TF_MAX_DIGITS 6
#define TF_CSI_MORE   0x1	/* a second parameter began */
#define TF_CSI_ODD    0x2	/* a private marker or an intermediate byte */

/* Start in ordinary text. */
void
ttyfilter_init(struct ttyfilter *f)
{
	memset(f, 0, sizeof *f);
	f->state = TF_TEXT;
}

/* Is the OSC whose number was read one we drop (any but the screen's)? */
static int
ttyfilter_osc_drops(const struct ttyfilter *f)
{
	static const unsigned long pass[] = { 4, 5, 8, 22, 104, 105, 106, 133 };
	size_t i;

	if (f->ndigits > TF_MAX_DIGITS)
		return 1;
	if ((f->num >= 10 && f->num <= 19) || (f->num >= 110 && f->num <= 119))
		return 0;	/* dynamic colours, and their resets */
	for (i = 0; i < sizeof pass / sizeof pass[0]; i++)
		if (f->num == pass[i])
			return 0;
	return 1;
}

/* Is the CSI read so far, ending in final, one we drop (a window
 * operation on the person's desktop, or a title report)? */
static int
ttyfilter_csi_drops(const struct ttyfilter *f, unsigned char final)
{
	static const unsigned long pass[] = { 11, 14, 15, 16, 18, 19, 22, 23 };
	size_t i;

	if (final != 't' || (f->flags & TF_CSI_ODD))
		return 0;
	if (f->ndigits > TF_MAX_DIGITS)
		return 1;
	for (i = 0; i < sizeof pass / sizeof pass[0]; i++)
		if (f->num == pass[i])
			return 0;
	return 1;
}

/* Add digit b to the number being read (leading zeros not counted). */
static void
ttyfilter_digit(struct ttyfilter *f, unsigned char b)
{
	if (f->ndigits == 0 && b == '0')
		return;
	if (++f->ndigits <= TF_MAX_DIGITS)
		f->num = f->num * 10 + (unsigned long)(b - '0');
}

/* Hold b; 0, or -1 when the hold is full. */
static int
ttyfilter_keep(struct ttyfilter *f, unsigned char b)
{
	if (f->nhold >= TTYFILTER_HOLD)
		return -1;
	f->hold[f->nhold++] = b;
	return 0;
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

/* Begin a sequence's number (OSC) or parameters (CSI) in state. */
static void
ttyfilter_begin(struct ttyfilter *f, unsigned char b, int state)
{
	ttyfilter_keep(f, b);
	f->num = 0;
	f->ndigits = 0;
	f->flags = 0;
	f->state = state;
}

/* Is b a C0 control a terminal acts on in place inside a sequence (all
 * but BEL, CAN, SUB and ESC, which end it)? */
static int
ttyfilter_inner_c0(unsigned char b)
{
	return (b < 0x20 || b == 0x7f) && b != 0x07 && b != 0x18 && b != 0x1a &&
	    b != 0x1b;
}

/* One byte b of a CSI being read; returns 1 when b was used (0: look at
 * it again in the new state); out/o as in ttyfilter_run. */
static int
ttyfilter_csi(struct ttyfilter *f, unsigned char b, unsigned char *out,
    size_t *o)
{
	if (b >= 0x40 && b <= 0x7e) {		/* the final byte */
		if (ttyfilter_csi_drops(f, b))
			f->nhold = 0;
		else {
			*o += ttyfilter_release(f, out + *o);
			out[(*o)++] = b;
		}
		f->state = TF_TEXT;
		return 1;
	}
	if (b == 0x1b) {		/* cut short: the ESC starts anew */
		*o += ttyfilter_release(f, out + *o);
		f->state = TF_TEXT;
		return 0;
	}
	if (b == 0x18 || b == 0x1a) {	/* cancelled */
		*o += ttyfilter_release(f, out + *o);
		out[(*o)++] = b;
		f->state = TF_TEXT;
		return 1;
	}
	if (b >= 0x80 || ttyfilter_keep(f, b) == -1) {
		f->nhold = 0;		/* not a CSI any program writes */
		f->state = TF_CSI_DROP;
		return 1;
	}
	if (b >= '0' && b <= '9' && !(f->flags & (TF_CSI_MORE | TF_CSI_ODD)))
		ttyfilter_digit(f, b);
	else if (b == ';' || b == ':')
		f->flags |= TF_CSI_MORE;
	else if ((b >= 0x3c && b <= 0x3f) || (b >= 0x20 && b <= 0x2f))
		f->flags |= TF_CSI_ODD;
	return 1;
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
				ttyfilter_keep(f, b);
				f->state = b == 0x1b ? TF_ESC : TF_C2;
			} else
				out[o++] = b;
			i++;
			continue;
		case TF_ESC:
			if (b == ']') {
				ttyfilter_begin(f, b, TF_NUM);
				i++;
			} else if (b == '[') {
				ttyfilter_begin(f, b, TF_CSI);
				i++;
			} else if (b == 'k') {	/* screen's title: dropped */
				f->nhold = 0;
				f->state = TF_DROP;
				i++;
			} else if (b == 0x1b || b == 0xc2) {
				/* the first ESC does nothing: dropped, never
				 * left alone at the end of a write */
				f->nhold = 0;
				f->state = TF_TEXT;
			} else {
				/* not ours (ST, DCS, ...): released with b */
				o += ttyfilter_release(f, out + o);
				out[o++] = b;
				f->state = TF_TEXT;
				i++;
			}
			continue;
		case TF_C2:
			if (b == 0x9d || b == 0x9b) {	/* U+009D OSC, 9B CSI */
				ttyfilter_begin(f, b, b == 0x9d ? TF_NUM :
				    TF_CSI);
				i++;
				continue;
			}
			if (b == 0x1b || b == 0xc2)	/* not UTF-8: dropped */
				f->nhold = 0;
			else {
				o += ttyfilter_release(f, out + o);
				out[o++] = b;
				i++;
			}
			f->state = TF_TEXT;
			continue;
		case TF_NUM:
			if ((b >= '0' && b <= '9') || ttyfilter_inner_c0(b)) {
				/* a control inside is acted on and skipped by a
				 * terminal: the number goes on */
				if (ttyfilter_keep(f, b) == -1) {
					f->nhold = 0;
					f->state = TF_DROP;
				} else if (b >= '0' && b <= '9')
					ttyfilter_digit(f, b);
				i++;
				continue;
			}
			/* the number is known (none: 0, as a terminal reads it;
			 * but the Linux console's palette, ESC ] P and ESC ] R,
			 * has no end to wait for) */
			if (ttyfilter_osc_drops(f) && !(f->nhold == 2 &&
			    (b == 'P' || b == 'R'))) {
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
				ttyfilter_keep(f, b);
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
			ttyfilter_keep(f, 0x1b);
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
		case TF_CSI:
			if (ttyfilter_csi(f, b, out, &o))
				i++;
			continue;
		case TF_CSI_DROP:
			if (b == 0x1b) {
				ttyfilter_keep(f, b);
				f->state = TF_ESC;
			} else if ((b >= 0x40 && b <= 0x7e) || b == 0x18 ||
			    b == 0x1a)
				f->state = TF_TEXT;
			i++;
			continue;
		}
	}
	return o;
}

/* At the end of the stream: an unfinished sequence still held is dropped,
 * since what is written next (sbox's own lines, the shell's prompt) would
 * finish it; nothing is written to out, 0 returned. */
size_t
ttyfilter_flush(struct ttyfilter *f, unsigned char *out)
{
	(void)out;
	ttyfilter_init(f);
	return 0;
}
