/* spill.c: the records a full queue cannot hold while the database cannot
 * write (locked, full disk, gone), appended as JSON lines to <store>-spill
 * beside the database (on the state disk, whose reserve sboxd frees when
 * space is short), up to STORE_SPILL_MAX bytes; written back, oldest first,
 * in store_flush's transaction, and the file emptied after its commit. A
 * record past the bound, or one the file refuses, is lost and counted per
 * kind. A spill left by a crash is written at the first flush. */
#include "store/spill.h"
#include "store/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

/* Open the spill file (made on first use), its size known. */
static int
store_spill_fd(struct store *st)
{
	struct stat sb;
	char path[4096];

	if (st->spill_fd >= 0)
		return st->spill_fd;
	if (snprintf(path, sizeof path, "%s-spill", st->path) >=
	    (int)sizeof path)
		return -1;
	st->spill_fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (st->spill_fd >= 0 && fstat(st->spill_fd, &sb) == 0)
		st->spill_bytes = (unsigned long long)sb.st_size;
	return st->spill_fd;
}

/* At open: a spill a crash left is written at the first flush. */
void
store_spill_open(struct store *st)
{
	char path[4096];
	struct stat sb;

	st->spill_fd = -1;
	if (snprintf(path, sizeof path, "%s-spill", st->path) <
	    (int)sizeof path && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    sb.st_size > 0 && store_spill_fd(st) >= 0)
		st->spilled = 1;	/* some: the count is not known */
}

/* At close. */
void
store_spill_close(struct store *st)
{
	if (st->spill_fd >= 0)
		close(st->spill_fd);
	st->spill_fd = -1;
}

/* Append one record (its strings stay the caller's); 0, or -1 when it
 * could not be kept (over the bound, or the write failed). */
int
store_spill_push(struct store *st, const struct store_batch_rec *r)
{
	json_t *o;
	char *line;
	size_t n;
	ssize_t w;
	int fd;

	if ((fd = store_spill_fd(st)) < 0)
		return -1;
	/* a NULL string leaves its key out (read back as absent) */
	o = json_pack("{s:i, s:I, s:s*, s:I, s:s*, s:i, s:s*, s:s*, s:s*, "
	    "s:s*, s:I}", "k", (int)r->kind, "at", (json_int_t)r->at, "s",
	    r->session, "c", (json_int_t)r->command_id, "h", r->host, "p",
	    r->port, "r", r->reason, "u", r->rule, "t", r->topic, "d", r->data,
	    "n", (json_int_t)r->count);
	line = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (line == NULL)
		return -1;
	n = strlen(line);
	line[n++] = '\n';	/* json_dumps leaves the NUL's byte: ours */
	if (st->spill_bytes + n > STORE_SPILL_MAX) {
		free(line);
		return -1;
	}
	w = write(fd, line, n);
	free(line);
	if (w != (ssize_t)n) {
		/* a part written: cut back to the last whole line */
		if (w > 0 && ftruncate(fd, (off_t)st->spill_bytes) == -1)
			return -1;
		return -1;
	}
	st->spill_bytes += n;
	st->spilled++;
	st->spilled_total++;
	return 0;
}

/* Parse one spilled line into r (strings allocated); -1 when it is not
 * one (skipped: a line cut by a crash). */
static int
store_spill_parse(const char *line, size_t len, struct store_batch_rec *r)
{
	const char *s = NULL, *h = NULL, *rs = NULL, *u = NULL, *t = NULL,
	    *d = NULL;
	json_int_t at = 0, c = 0, cnt = 0;
	json_t *o;
	int k = -1, p = 0, ok;

	if ((o = json_loadb(line, len, 0, NULL)) == NULL)
		return -1;
	ok = json_unpack(o, "{s:i, s:I, s?:s, s:I, s?:s, s:i, s?:s, s?:s, "
	    "s?:s, s?:s, s:I}", "k", &k, "at", &at, "s", &s, "c", &c, "h", &h,
	    "p", &p, "r", &rs, "u", &u, "t", &t, "d", &d, "n", &cnt) == 0 &&
	    (k == STORE_BATCH_REFUSAL ? s != NULL && h != NULL && rs != NULL :
	    k == STORE_BATCH_EVENT && t != NULL);
	memset(r, 0, sizeof *r);
	if (ok) {
		r->kind = (enum store_batch_kind)k;
		r->at = at;
		r->command_id = c;
		r->port = p;
		r->count = cnt;
		r->session = s ? strdup(s) : NULL;
		r->host = h ? strdup(h) : NULL;
		r->reason = rs ? strdup(rs) : NULL;
		r->rule = u ? strdup(u) : NULL;
		r->topic = t ? strdup(t) : NULL;
		r->data = d ? strdup(d) : NULL;
	}
	json_decref(o);
	return ok ? 0 : -1;
}

/* Insert every spilled record inside the caller's transaction (the file is
 * kept until store_spill_done after the commit). 0, or -1 with err. */
int
store_spill_write(struct store *st, sbox_error *err)
{
	struct store_batch_rec r;
	char *buf, *p, *nl;
	size_t len = 0;
	ssize_t n;
	int fd, rc = 0;

	if (st->spilled == 0 || (fd = store_spill_fd(st)) < 0)
		return 0;
	if (st->spill_bytes > STORE_SPILL_MAX + 1)
		st->spill_bytes = STORE_SPILL_MAX + 1;	/* read no more */
	if ((buf = malloc(st->spill_bytes + 1)) == NULL)
		return error_nomem(err);
	while (len < st->spill_bytes && (n = pread(fd, buf + len,
	    st->spill_bytes - len, (off_t)len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	for (p = buf; rc == 0 && p < buf + len; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(buf + len - p))) == NULL)
			break;	/* a line cut by a crash */
		if (store_spill_parse(p, (size_t)(nl - p), &r) < 0)
			continue;
		rc = store_batch_insert_one(st, &r, err);
		store_batch_rec_free(&r);
	}
	free(buf);
	return rc;
}

/* The spilled records are committed: empty the file. */
void
store_spill_done(struct store *st)
{
	if (st->spilled == 0 || st->spill_fd < 0)
		return;
	if (ftruncate(st->spill_fd, 0) == 0) {
		st->spill_bytes = 0;
		st->spilled = 0;
	}
}
