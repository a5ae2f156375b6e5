// sources: protocol/framer.c protocol/error.c
/* fuzz-framer.c: arbitrary byte streams into the line framer, fed in
 * pseudo-random pieces and drained after every piece (as conn.c does).
 * Checks: a line never holds an LF and never exceeds max; the buffer stays
 * bounded; every stream byte is accounted for (consumed + pending == fed);
 * and the lines and errors are exactly those of a reference model, whatever
 * the split points. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/framer.h"

#define FUZZ_MAX_EVENTS 70000

/* One result of the framer: a line (ptr/len into a copy) or an error. */
struct fuzz_event {
	int         is_err;
	const char *p;
	size_t      n;
};

struct fuzz_log {
	struct fuzz_event ev[FUZZ_MAX_EVENTS];
	int               n;
	char             *store;  /* line bytes, appended */
	size_t            used;
};

static struct fuzz_log fuzz_a, fuzz_b;

/* Stop with a message: libFuzzer reports the input. */
static void
fuzz_framer_fail(const char *what)
{
	fprintf(stderr, "fuzz-framer: invariant broken: %s\n", what);
	abort();
}

/* A small deterministic PRNG for split points. */
static uint32_t
fuzz_framer_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Record one event in a log. */
static void
fuzz_framer_add(struct fuzz_log *l, int is_err, const char *p, size_t n)
{
	if (l->n >= FUZZ_MAX_EVENTS)
		fuzz_framer_fail("too many events");
	l->ev[l->n].is_err = is_err;
	l->ev[l->n].p = NULL;
	l->ev[l->n].n = n;
	if (!is_err) {
		memcpy(l->store + l->used, p, n);
		l->ev[l->n].p = l->store + l->used;
		l->used += n;
	}
	l->n++;
}

/* The reference model: split on LF, over-long lines (raw length, CR
 * included) are one error each, a CR before the LF is dropped; a trailing
 * unterminated piece over max is one error. */
static void
fuzz_framer_model(const uint8_t *d, size_t n, size_t max, struct fuzz_log *l)
{
	size_t i = 0, j, len;

	while (i < n) {
		const uint8_t *lf = memchr(d + i, '\n', n - i);
		if (lf == NULL) {
			if (n - i > max)
				fuzz_framer_add(l, 1, NULL, 0);
			return;
		}
		j = (size_t)(lf - d);
		len = j - i;
		if (len > max)
			fuzz_framer_add(l, 1, NULL, 0);
		else {
			if (len > 0 && d[j - 1] == '\r')
				len--;
			fuzz_framer_add(l, 0, (const char *)d + i, len);
		}
		i = j + 1;
	}
}

/* Take every complete line out of the framer, checking each. */
static void
fuzz_framer_drain(struct framer *f, size_t max, struct fuzz_log *l)
{
	sbox_error err;
	char *line;
	size_t len;
	int rc;

	for (;;) {
		error_clear(&err);
		rc = framer_next(f, &line, &len, &err);
		if (rc == 0)
			return;
		if (rc == -1) {
			if (strcmp(err.name, E_TOO_LARGE) != 0)
				fuzz_framer_fail("error other than RequestTooLarge");
			fuzz_framer_add(l, 1, NULL, 0);
			continue;
		}
		if (rc != 1)
			fuzz_framer_fail("framer_next returned something odd");
		if (len > max)
			fuzz_framer_fail("line longer than max");
		if (memchr(line, '\n', len) != NULL)
			fuzz_framer_fail("line contains LF");
		if (line[len] != '\0')
			fuzz_framer_fail("line not NUL-terminated");
		fuzz_framer_add(l, 0, line, len);
	}
}

/* Feed data in pieces chosen by seed (0 = one piece), draining after each. */
static void
fuzz_framer_run(const uint8_t *d, size_t n, size_t max, uint32_t seed,
    size_t maxpiece, struct fuzz_log *l)
{
	struct framer f;
	sbox_error err;
	size_t off = 0, piece, bound, biggest = 0;
	int was_empty;

	framer_init(&f, max);
	while (off < n) {
		piece = n - off;
		if (seed != 0) {
			piece = 1 + fuzz_framer_rand(&seed) % maxpiece;
			if (piece > n - off)
				piece = n - off;
		}
		was_empty = framer_pending(&f) == 0;
		if (framer_feed(&f, d + off, piece, &err) == -1)
			fuzz_framer_fail("framer_feed failed");
		off += piece;
		if (piece > biggest)
			biggest = piece;
		/* What the framer may hold: one max-long partial line plus the
		 * biggest piece fed, rounded up by the doubling allocator; once
		 * all was taken, it keeps at most 64 KiB. */
		bound = 2 * (max + 2 + biggest);
		if (bound < 4096)
			bound = 4096;
		if (f.cap > bound)
			fuzz_framer_fail("buffer grew past its bound");
		if (was_empty && f.cap > 64 * 1024 &&
		    f.cap > 2 * (max + 2 + piece))
			fuzz_framer_fail("buffer not given back between lines");
		fuzz_framer_drain(&f, max, l);
		if (framer_pending(&f) > max)
			fuzz_framer_fail("more than max bytes pending after drain");
		if (f.consumed + framer_pending(&f) != off)
			fuzz_framer_fail("consumed + pending != bytes fed");
	}
	framer_free(&f);
}

/* Do two logs hold the same events? */
static int
fuzz_framer_same(const struct fuzz_log *a, const struct fuzz_log *b)
{
	int i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		if (a->ev[i].is_err != b->ev[i].is_err || a->ev[i].n != b->ev[i].n)
			return 0;
		if (!a->ev[i].is_err && memcmp(a->ev[i].p, b->ev[i].p,
		    a->ev[i].n) != 0)
			return 0;
	}
	return 1;
}

/* Input: byte 0 picks max, bytes 1-3 the split seed, the rest is the stream. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char store_a[1 << 17], store_b[1 << 17];
	size_t max, maxpiece;
	uint32_t seed;

	if (size < 4 || size > 65536)
		return 0;
	max = (data[0] & 0x80) ? 256 + (data[0] & 0x7f) * 8 : 1 + (data[0] & 0x3f);
	seed = (uint32_t)data[1] | (uint32_t)data[2] << 8 | 1u << 24;
	maxpiece = 1 + (data[3] % 4 == 0 ? 4 * max : max / 2 + 3);
	data += 4;
	size -= 4;

	fuzz_a.n = 0;
	fuzz_a.used = 0;
	fuzz_a.store = store_a;
	fuzz_framer_model(data, size, max, &fuzz_a);

	fuzz_b.n = 0;
	fuzz_b.used = 0;
	fuzz_b.store = store_b;
	fuzz_framer_run(data, size, max, seed, maxpiece, &fuzz_b);
	if (!fuzz_framer_same(&fuzz_a, &fuzz_b))
		fuzz_framer_fail("split feed differs from the model");

	fuzz_b.n = 0;
	fuzz_b.used = 0;
	fuzz_b.store = store_b;
	fuzz_framer_run(data, size, max, 0, 0, &fuzz_b);
	if (!fuzz_framer_same(&fuzz_a, &fuzz_b))
		fuzz_framer_fail("one-piece feed differs from the model");
	return 0;
}
