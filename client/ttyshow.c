/* ttyshow.c: writing what a sandbox made (a command's kept output, a job's
 * output followed) to our stdout and stderr, through ttyfilter.c when that
 * is a terminal and the sequences that act on the person's machine are
 * dropped (the default; exec_tty_drops). */
#include "client/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Start showing: each of stdout (0) and stderr (1) is filtered when drop
 * and it is a terminal. */
void
ttyshow_init(struct ttyshow *t, int drop)
{
	int i;

	for (i = 0; i < 2; i++) {
		t->filtered[i] = drop && isatty(i + 1);
		ttyfilter_init(&t->f[i]);
	}
}

/* Write n bytes of p to stdout (i 0) or stderr (i 1), filtered when so. */
void
ttyshow_write(struct ttyshow *t, int i, const unsigned char *p, size_t n)
{
	FILE *fp = i ? stderr : stdout;
	unsigned char *out;

	if (!t->filtered[i]) {
		fwrite(p, 1, n, fp);
		fflush(fp);
		return;
	}
	if ((out = malloc(n + TTYFILTER_HOLD)) == NULL)
		return;		/* dropped rather than shown unfiltered */
	fwrite(out, 1, ttyfilter_run(&t->f[i], p, n, out), fp);
	fflush(fp);
	free(out);
}

/* The end of what is shown: an unfinished sequence held is dropped. */
void
ttyshow_end(struct ttyshow *t)
{
	unsigned char out[TTYFILTER_HOLD];
	int i;

	for (i = 0; i < 2; i++)
		ttyfilter_flush(&t->f[i], out);
}
