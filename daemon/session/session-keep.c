/* session-keep.c: a provider's kept home files (policy/keepfile.h): the
 * allowed keys of the host's file are written into the sandbox's private
 * home before the session is ready, and read back after each command of
 * the session; what changed inside since it was last seen there is merged
 * into the host's file, which keeps everything else it holds (and what
 * the host's CLI changed meanwhile: a stale copy inside never undoes it). A file inside that is not a plain file of at most
 * KEEPFILE_MAX_BYTES of valid JSON is left alone (and said in the log);
 * the host's file is replaced atomically and only when a kept key
 * changed. */
#include "daemon/session/session-keep.h"
#include "daemon/session/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/container/container.h"
#include "daemon/log.h"
#include "policy/keepfile.h"
#include "policy/profile.h"
#include "policy/strv.h"

/* The seeding of one session: how many files are still to be written. */
struct session_keep_seed {
	char   sid[17];
	int    left;
	void (*done)(struct session *);
};

/* One kept file on its way in or out. */
struct session_keep_op {
	char                      sid[17];
	char                     *path;
	char                     *data;  /* seed: what to write */
	struct session_keep_seed *seed;  /* NULL: a sync */
};

/* Read a plain file of at most KEEPFILE_MAX_BYTES from fd as JSON; NULL
 * (why says it) when it is something else. */
static json_t *
session_keep_read(int fd, const char **why)
{
	struct stat st;
	json_error_t je;
	char *buf;
	ssize_t n;
	size_t got = 0;
	json_t *doc;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*why = "not a plain file";
		return NULL;
	}
	if ((size_t)st.st_size > KEEPFILE_MAX_BYTES) {
		*why = "larger than 4 MiB";
		return NULL;
	}
	if ((buf = malloc(KEEPFILE_MAX_BYTES + 1)) == NULL) {
		*why = "out of memory";
		return NULL;
	}
	while (got <= KEEPFILE_MAX_BYTES && (n = read(fd, buf + got,
	    KEEPFILE_MAX_BYTES + 1 - got)) > 0)
		got += (size_t)n;
	if (got > KEEPFILE_MAX_BYTES) {
		free(buf);
		*why = "larger than 4 MiB";
		return NULL;
	}
	doc = json_loadb(buf, got, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (doc == NULL || !json_is_object(doc)) {
		json_decref(doc);
		*why = "not a JSON object";
		return NULL;
	}
	return doc;
}

/* The host's file at path as JSON: an empty object when it does not
 * exist, NULL (why) when it cannot be read as one. */
static json_t *
session_keep_host(const char *path, const char **why)
{
	json_t *doc;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			return json_object();
		*why = strerror(errno);
		return NULL;
	}
	doc = session_keep_read(fd, why);
	close(fd);
	return doc;
}

/* Replace the host's file at path with doc (a temporary file beside it,
 * then a rename; mode 0600 or the file's own); 0 or -1 (why). */
static int
session_keep_write_host(const char *path, const json_t *doc, const char **why)
{
	char tmp[4200];
	struct stat st;
	char *text = json_dumps(doc, JSON_INDENT(2));
	mode_t mode = 0600;
	size_t len, off = 0;
	ssize_t n;
	int fd;

	if (text == NULL) {
		*why = "out of memory";
		return -1;
	}
	if (lstat(path, &st) == 0)
		mode = st.st_mode & 0777;
	snprintf(tmp, sizeof tmp, "%s.sbox-%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, mode);
	if (fd < 0) {
		free(text);
		*why = strerror(errno);
		return -1;
	}
	len = strlen(text);
	while (off < len && (n = write(fd, text + off, len - off)) > 0)
		off += (size_t)n;
	free(text);
	if (off < len || fsync(fd) < 0 || close(fd) < 0) {
		*why = strerror(errno ? errno : EIO);
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		*why = strerror(errno);
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The files named in account_keep ("FILE\t" entries). */
static char **
session_keep_files(const struct profile *p)
{
	char **out = NULL, *tab, *f;
	size_t i;

	for (i = 0; p->account_keep != NULL && p->account_keep[i] != NULL;
	    i++) {
		if ((tab = strchr(p->account_keep[i], '\t')) == NULL ||
		    tab[1] != '\0')
			continue;
		if ((f = strndup(p->account_keep[i], (size_t)(tab -
		    p->account_keep[i]))) == NULL || strv_push(&out, f) == -1)
			break;
	}
	return out;
}

/* Free an op. */
static void
session_keep_op_free(struct session_keep_op *op)
{
	free(op->path);
	free(op->data);
	free(op);
}

/* One seeded file is written (or could not be): the last one readies the
 * session. */
static void
session_keep_seeded(struct session_keep_seed *seed)
{
	struct session *s;

	if (--seed->left > 0)
		return;
	if ((s = session_find(seed->sid, NULL)) != NULL && s->state ==
	    SESSION_STARTING)
		seed->done(s);
	free(seed);
}

/* The seed file inside is open: write it. */
static void
session_keep_seed_cb(struct container *c, int fd, int errnum,
    const sbox_error *err, void *arg)
{
	struct session_keep_op *op = arg;
	size_t len = strlen(op->data), off = 0;
	ssize_t n;

	(void)c;
	(void)errnum;
	if (fd < 0)
		log_info("session %s: %s not made in the sandbox's home: %s",
		    op->sid, op->path, err ? err->message : "?");
	else {
		while (off < len && (n = write(fd, op->data + off, len - off)) >
		    0)
			off += (size_t)n;
		close(fd);
	}
	session_keep_seeded(op->seed);
	session_keep_op_free(op);
}

/* Remember kept as what s's sandbox holds of file now (taken). */
static void
session_keep_saw(struct session *s, const char *file, json_t *kept)
{
	if (s->keep_seen == NULL)
		s->keep_seen = json_object();
	if (s->keep_seen == NULL || json_object_set_new(s->keep_seen, file,
	    kept) == -1)
		json_decref(kept);
}

/* Write the kept part of each kept file into the sandbox's home. */
void
session_keep_seed(struct session *s, void (*done)(struct session *))
{
	struct session_keep_seed *seed;
	struct session_keep_op *op;
	char **files = s->ct != NULL ? session_keep_files(s->profile) : NULL;
	char **pats;
	const char *why = NULL;
	json_t *host, *kept;
	sbox_error err;
	size_t i;
	int ok;

	if (files == NULL || (seed = calloc(1, sizeof *seed)) == NULL) {
		strv_free(files);
		done(s);
		return;
	}
	memcpy(seed->sid, s->id, sizeof seed->sid);
	seed->done = done;
	seed->left = 1;	/* this function's own, dropped at its end */
	for (i = 0; files[i] != NULL; i++) {
		ok = 1;
		pats = keepfile_patterns(s->profile->account_keep, files[i], &ok);
		if ((host = session_keep_host(files[i], &why)) == NULL) {
			log_warn("session %s: %s is not read into the sandbox: "
			    "%s", s->id, files[i], why);
			strv_free(pats);
			continue;
		}
		kept = keepfile_filter(host, pats);
		json_decref(host);
		strv_free(pats);
		if (kept == NULL || json_object_size(kept) == 0 ||
		    (op = calloc(1, sizeof *op)) == NULL) {
			if (kept != NULL)	/* nothing yet: all of it is new */
				session_keep_saw(s, files[i], json_object());
			json_decref(kept);
			continue;
		}
		memcpy(op->sid, s->id, sizeof op->sid);
		op->path = strdup(files[i]);
		op->data = json_dumps(kept, JSON_INDENT(2));
		op->seed = seed;
		session_keep_saw(s, files[i], kept);
		error_clear(&err);
		if (op->path == NULL || op->data == NULL ||
		    container_open(s->ct, op->path, CONTAINER_O_WRITE |
		    CONTAINER_O_CREATE | CONTAINER_O_EXCL | CONTAINER_O_NOFOLLOW,
		    0600, session_keep_seed_cb, op, &err) == -1) {
			session_keep_op_free(op);
			continue;
		}
		seed->left++;
	}
	strv_free(files);
	if (--seed->left > 0)
		return;	/* the last write readies it */
	free(seed);
	done(s);
}

/* The kept file inside is open: merge its kept part into the host's. */
static void
session_keep_sync_cb(struct container *c, int fd, int errnum,
    const sbox_error *err, void *arg)
{
	struct session_keep_op *op = arg;
	struct session *s = session_find(op->sid, NULL);
	const char *why = NULL;
	json_t *inside, *kept, *host, *changed;
	char **pats;
	int ok = 1, rc;

	(void)c;
	(void)err;
	if (fd < 0 || s == NULL) {
		if (fd >= 0)
			close(fd);
		else if (errnum != ENOENT && s != NULL)
			log_info("session %s: %s in the sandbox is not read: %s",
			    op->sid, op->path, strerror(errnum));
		session_keep_op_free(op);
		return;
	}
	inside = session_keep_read(fd, &why);
	close(fd);
	if (inside == NULL) {
		log_warn("session %s: %s in the sandbox is not kept: %s",
		    op->sid, op->path, why);
		session_keep_op_free(op);
		return;
	}
	pats = keepfile_patterns(s->profile->account_keep, op->path, &ok);
	kept = keepfile_filter(inside, pats);
	json_decref(inside);
	strv_free(pats);
	/* only what changed inside since it was last seen there */
	changed = kept != NULL ? keepfile_changed(kept, s->keep_seen != NULL ?
	    json_object_get(s->keep_seen, op->path) : NULL) : NULL;
	host = changed != NULL && json_object_size(changed) > 0 ?
	    session_keep_host(op->path, &why) : NULL;
	if (changed != NULL && json_object_size(changed) > 0 && host == NULL)
		log_warn("session %s: the host's %s is not updated: %s",
		    op->sid, op->path, why);
	if (host != NULL && (rc = keepfile_merge(host, changed)) == 1 &&
	    session_keep_write_host(op->path, host, &why) == -1)
		log_warn("session %s: the host's %s is not updated: %s",
		    op->sid, op->path, why);
	if (kept != NULL)
		session_keep_saw(s, op->path, kept);
	json_decref(host);
	json_decref(changed);
	session_keep_op_free(op);
}

/* Copy the kept part of each kept file back into the host's file. */
void
session_keep_sync(struct session *s)
{
	struct session_keep_op *op;
	char **files;
	sbox_error err;
	size_t i;

	if (s == NULL || s->ct == NULL || s->state != SESSION_READY ||
	    s->profile->account_keep == NULL)
		return;
	files = session_keep_files(s->profile);
	for (i = 0; files != NULL && files[i] != NULL; i++) {
		if ((op = calloc(1, sizeof *op)) == NULL)
			break;
		memcpy(op->sid, s->id, sizeof op->sid);
		if ((op->path = strdup(files[i])) == NULL) {
			session_keep_op_free(op);
			break;
		}
		error_clear(&err);
		if (container_open(s->ct, op->path, CONTAINER_O_READ |
		    CONTAINER_O_NOFOLLOW, 0, session_keep_sync_cb, op, &err) ==
		    -1)
			session_keep_op_free(op);
	}
	strv_free(files);
}
