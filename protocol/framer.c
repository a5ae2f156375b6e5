/* framer.c: bounded LF line framing for the JSON-RPC stream. */
#include "framer.h"

#include <stdlib.h>
#include <string.h>

#define FRAMER_KEEP (64 * 1024)  /* buffer kept between lines */

/* Set up an empty framer that accepts lines of at most max bytes. */
void
framer_init(struct framer *f, size_t max)
{
	memset(f, 0, sizeof *f);
	f->max = max;
}

/* Release the framer's memory. */
void
framer_free(struct framer *f)
{
	free(f->buf);
	memset(f, 0, sizeof *f);
}

/* Bytes buffered and not yet returned as lines. */
size_t
framer_pending(const struct framer *f)
{
	return f->len - f->start;
}

/* Make room for n more bytes, compacting first. */
static int
framer_reserve(struct framer *f, size_t n, sbox_error *err)
{
	size_t want;
	char *nb;

	if (f->start > 0) {
		memmove(f->buf, f->buf + f->start, f->len - f->start);
		f->len -= f->start;
		f->start = 0;
	}
	if (f->len + n <= f->cap)
		return 0;
	want = f->cap ? f->cap : 4096;
	while (want < f->len + n)
		want *= 2;
	nb = realloc(f->buf, want);
	if (nb == NULL)
		return error_set(err, E_INTERNAL, "out of memory framing a line");
	f->buf = nb;
	f->cap = want;
	return 0;
}

/* Append received bytes; memory stays bounded by max. */
int
framer_feed(struct framer *f, const void *data, size_t n, sbox_error *err)
{
	const char *p = data, *lf;

	/* Everything was taken: give back a buffer that a long line grew. */
	if (framer_pending(f) == 0 && f->cap > FRAMER_KEEP) {
		free(f->buf);
		f->buf = NULL;
		f->start = f->len = f->cap = 0;
	}
	while (n > 0) {
		if (f->discarding) {
			lf = memchr(p, '\n', n);
			if (lf == NULL) {
				f->consumed += n;
				return 0;
			}
			n -= (size_t)(lf + 1 - p);
			f->consumed += (unsigned long long)(lf + 1 - p);
			p = lf + 1;
			f->discarding = 0;
			continue;
		}
		/* Never hold more than one over-long line's worth of bytes. */
		size_t room = f->max + 2 > framer_pending(f) ?
		    f->max + 2 - framer_pending(f) : 0;
		size_t take = n < room ? n : room;
		if (take > 0) {
			if (framer_reserve(f, take, err) == -1)
				return -1;
			memcpy(f->buf + f->len, p, take);
			f->len += take;
			p += take;
			n -= take;
		}
		if (n == 0)
			break;
		/* Buffer full: if it holds no LF, the current line is too long. */
		if (memchr(f->buf + f->start, '\n', framer_pending(f)) != NULL)
			return framer_reserve(f, n, err) == -1 ? -1 :
			    (memcpy(f->buf + f->len, p, n), f->len += n, 0);
		f->consumed += framer_pending(f);
		f->start = f->len = 0;
		f->discarding = 1;
		f->overflowed++;
	}
	return 0;
}

/* Take the next complete line, or report one over-long line. */
int
framer_next(struct framer *f, char **line, size_t *len, sbox_error *err)
{
	char *s, *lf;
	size_t n;

	if (f->overflowed > 0) {
		f->overflowed--;
		return error_set(err, E_TOO_LARGE,
		    "request line longer than %zu bytes", f->max);
	}
	s = f->buf + f->start;
	lf = framer_pending(f) ? memchr(s, '\n', framer_pending(f)) : NULL;
	if (lf == NULL || (size_t)(lf - s) > f->max) {
		if (lf != NULL) { /* a complete line, but too long */
			f->start += (size_t)(lf + 1 - s);
			f->consumed += (unsigned long long)(lf + 1 - s);
			return error_set(err, E_TOO_LARGE,
			    "request line longer than %zu bytes", f->max);
		}
		if (framer_pending(f) > f->max) {
			f->consumed += framer_pending(f);
			f->start = f->len = 0;
			f->discarding = 1;
			return error_set(err, E_TOO_LARGE,
			    "request line longer than %zu bytes", f->max);
		}
		return 0;
	}
	n = (size_t)(lf - s);
	f->start += n + 1;
	f->consumed += n + 1;
	if (n > 0 && s[n - 1] == '\r')
		n--;
	s[n] = '\0';
	*line = s;
	*len = n;
	return 1;
}
