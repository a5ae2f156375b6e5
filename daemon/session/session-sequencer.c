/* session-sequencer.c: git's sequencer state inside a session. The file
 * guard lets a session write rebase-merge/, rebase-apply/ and sequencer/
 * in its roots' own .git (policy/guard.c), so that rebase, am, cherry-pick
 * and revert of several commits work inside. What host git would obey in
 * them later (`git rebase --continue` on the host) is checked here, on the
 * host side, when each command ends and again once the session's
 * processes have all ended at its close: every file must be one the allow
 * list knows, of its form (policy/gitseq.c). A state that is not is moved
 * aside in the same .git under a name git never reads
 * (sbox-quarantine-SESSION-TIME-NAME, which the guard keeps read-only for
 * every session), so host git sees no operation in progress, and the
 * refusal is told like any other. Everything is read through descriptors
 * from the .git folder down, never following a symlink, and only renamed:
 * a symlink or hard link planted there makes nothing act on what it
 * names. */
#include "daemon/session/session-sequencer.h"
#include "daemon/session/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/container/rmtree.h"
#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "policy/gitseq.h"
#include "policy/guard.h"
#include "policy/plan-types.h"
#include "policy/strv.h"

struct session_sequencer_close {
	char   id[17];
	char **roots;
	int    late;   /* the check once every process has ended */
};

/* Who is told of a refusal: the session when it is live (its command's
 * blocked files), its id only at close. late: the check after every
 * process of the session has ended, which the host's own git may be
 * working on by then (a `git rebase --continue` run right after the
 * close): a folder without its first files (git is making or removing it)
 * is no refusal then -- nothing in it runs. */
struct session_sequencer_tell {
	struct session *s;
	uint64_t        ct_id;
	const char     *id;
	int             late;
};

/* Read the whole of name in dfd (listed as a regular file) into a new
 * buffer: what is decided is what this descriptor reads (a plain file of
 * one link: the file may have been replaced since it was listed, by host
 * git renaming its lock onto it). NULL with errno (ENOENT: gone, EINVAL:
 * not a plain file of one link, EFBIG: too big). */
static char *
session_sequencer_read(int dfd, const char *name, size_t *n)
{
	struct stat fst;
	char *buf;
	ssize_t r;
	size_t got = 0;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode) ||
	    fst.st_nlink != 1 || fst.st_size < 0) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if (fst.st_size > GITSEQ_READ_MAX ||
	    (buf = malloc((size_t)fst.st_size + 1)) == NULL) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	while (got < (size_t)fst.st_size && (r = read(fd, buf + got,
	    (size_t)fst.st_size - got)) > 0)
		got += (size_t)r;
	close(fd);
	buf[got] = '\0';
	*n = got;
	return buf;
}

/* Is name the lock file of a name git writes in folder f? git makes
 * NAME.lock and renames it onto NAME; host git never reads another's
 * lock (it fails while one exists), so its content runs nothing. */
static int
session_sequencer_lock(enum gitseq_folder f, const char *name)
{
	char base[256];
	size_t n = strlen(name);

	if (n <= 5 || n - 5 >= sizeof base || strcmp(name + n - 5, ".lock") != 0)
		return 0;
	memcpy(base, name, n - 5);
	base[n - 5] = '\0';
	return gitseq_name(f, base) >= 0;
}

/* Decide one entry (name in dfd) of folder f: 0 safe (or gone since it
 * was listed), -1 with why. */
static int
session_sequencer_entry(int dfd, enum gitseq_folder f, const char *name,
    char *why, size_t whylen)
{
	char w[GITSEQ_WHY_MAX], *buf;
	struct stat st;
	int kind, rc;
	size_t n;

	if (session_sequencer_lock(f, name))
		return 0;
	if ((kind = gitseq_name(f, name)) < 0) {
		snprintf(why, whylen, "%.64s: a name git does not write there",
		    name);
		return -1;
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : (snprintf(why, whylen, "%.64s: "
		    "cannot be read", name), -1);
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%.64s: not a plain file (a symlink, a "
		    "folder or another kind)", name);
		return -1;
	}
	if (st.st_nlink != 1) {
		snprintf(why, whylen, "%.64s: a hard link", name);
		return -1;
	}
	if (kind == 0)
		return 0;
	if ((buf = session_sequencer_read(dfd, name, &n)) == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, whylen, "%.64s: %s", name, errno == EFBIG ?
		    "too big" : errno == EINVAL ? "not a plain file of one link "
		    "(a symlink, a hard link or another kind)" : "cannot be read");
		return -1;
	}
	rc = gitseq_file(f, name, buf, n, w, sizeof w);
	free(buf);
	if (rc != 0)
		snprintf(why, whylen, "%.64s: %s", name, w);
	return rc;
}

/* Decide one state folder (dfd, of kind f): 0 safe, -1 with why. */
static int
session_sequencer_folder(int dfd, enum gitseq_folder f, int late, char *why,
    size_t whylen)
{
	const char *const *req = gitseq_required(f);
	unsigned seen = 0;
	struct dirent *de;
	size_t count = 0, i;
	int dup, rc = 0;
	DIR *d;

	if ((dup = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) < 0 ||
	    (d = fdopendir(dup)) == NULL) {
		if (dup >= 0)
			close(dup);
		snprintf(why, whylen, "the folder cannot be read");
		return -1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++count > GITSEQ_ENTRIES_MAX) {
			snprintf(why, whylen, "more than %d names",
			    GITSEQ_ENTRIES_MAX);
			rc = -1;
			break;
		}
		rc = session_sequencer_entry(dfd, f, de->d_name, why, whylen);
		for (i = 0; rc == 0 && req[i] != NULL; i++)
			if (strcmp(req[i], de->d_name) == 0)
				seen |= 1u << i;
	}
	closedir(d);
	for (i = 0; rc == 0 && !late && req[i] != NULL; i++)
		if (!(seen & (1u << i))) {
			snprintf(why, whylen, "%s is missing: not a state git "
			    "itself leaves", req[i]);
			rc = -1;
		}
	return rc;
}

/* Tell a refused state: the command's blocked files (when it is live),
 * the log and the events. */
static void
session_sequencer_told(const struct session_sequencer_tell *t,
    const char *path, const char *moved, const char *why)
{
	char *msg;

	if (asprintf(&msg, "git's sequencer state %s refused: %s; %s", path,
	    why, moved) < 0)
		return;
	/* noted on the command (command/command-session.c) */
	if (t->s != NULL)
		events_tell("session.file_refused", t->id, json_pack("{s:I, s:s, "
		    "s:s, s:s, s:s, s:s, s:i, s:s}", "ct_id", (json_int_t)t->ct_id,
		    "path", path, "op", "write", "rule", PLAN_RULE_RUNS_LATER,
		    "message", msg, "reason", why, "pid", 0, "process", "git"));
	log_info("session %s: %s", t->id, msg);
	events_publish("file.refused", t->id, json_pack("{s:s, s:s, s:s, s:s, "
	    "s:s, s:i, s:s}", "path", path, "op", "write", "rule",
	    PLAN_RULE_RUNS_LATER, "reason", why, "message", msg, "pid", 0,
	    "process", "git"));
	free(msg);
}

/* Move name (in the git folder gfd, at path) out of git's sight: renamed
 * beside it (same folder: no permission of its own is needed), else
 * removed. The result for the message. */
static void
session_sequencer_quarantine(int gfd, const char *gitpath, const char *name,
    const char *id, char *moved, size_t movedlen)
{
	static unsigned serial;
	char aside[128], *path;

	snprintf(aside, sizeof aside, "sbox-quarantine-%s-%lld-%u-%s", id,
	    (long long)sboxd_now_ms(), serial++, name);
	if (renameat(gfd, name, gfd, aside) == 0) {
		snprintf(moved, movedlen, "moved to %s/%s, where git does not "
		    "read it: host git sees no operation in progress", gitpath,
		    aside);
		return;
	}
	if (errno == ENOENT) {
		snprintf(moved, movedlen, "gone before it could be moved");
		return;
	}
	if (asprintf(&path, "%s/%s", gitpath, name) >= 0) {
		rmtree(path);
		free(path);
	}
	snprintf(moved, movedlen, "removed (it could not be moved aside): "
	    "host git sees no operation in progress");
}

/* Check the state folders of one git folder (gfd, at gitpath). */
static void
session_sequencer_gitdir(int gfd, const char *gitpath,
    const struct session_sequencer_tell *t)
{
	char why[GITSEQ_WHY_MAX + 96], moved[512], *path;
	struct stat st;
	int dfd, f, bad;

	for (f = 0; f < GITSEQ_FOLDERS; f++) {
		const char *name = gitseq_folder_name((enum gitseq_folder)f);

		if (fstatat(gfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		bad = 0;
		dfd = -1;
		if (!S_ISDIR(st.st_mode)) {
			snprintf(why, sizeof why, "not a folder (a symlink or "
			    "a file)");
			bad = 1;
		} else if ((dfd = openat(gfd, name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0) {
			if (errno == ENOENT)
				continue;	/* (removed since) */
			snprintf(why, sizeof why, "the folder cannot be read");
			bad = 1;
		} else {
			bad = session_sequencer_folder(dfd,
			    (enum gitseq_folder)f, t->late, why, sizeof why)
			    != 0;
			close(dfd);
		}
		if (!bad)
			continue;
		session_sequencer_quarantine(gfd, gitpath, name, t->id, moved,
		    sizeof moved);
		if (asprintf(&path, "%s/%s", gitpath, name) >= 0) {
			session_sequencer_told(t, path, moved, why);
			free(path);
		}
	}
}

/* Check the git folders of one root where the guard lets the sequencer
 * write (policy/guard.c, guard_seq_gitdir): its own .git, and the root
 * itself when it is a linked worktree's git folder (it holds commondir). */
static void
session_sequencer_root(const char *root, const struct session_sequencer_tell
    *t)
{
	struct stat st;
	char *gitpath;
	int rfd, gfd;

	if ((rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if (fstatat(rfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0)
		session_sequencer_gitdir(rfd, root, t);
	gfd = openat(rfd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	close(rfd);
	if (gfd < 0)
		return;	/* none, a gitfile or a symlink: the guard allows
			   nothing of the sequencer there */
	if (asprintf(&gitpath, "%s/.git", strcmp(root, "/") == 0 ? "" : root)
	    >= 0) {
		session_sequencer_gitdir(gfd, gitpath, t);
		free(gitpath);
	}
	close(gfd);
}

/* Check every root of a sandboxed plan. */
static void
session_sequencer_roots(char *const *roots,
    const struct session_sequencer_tell *t)
{
	size_t i;

	for (i = 0; roots != NULL && roots[i] != NULL; i++)
		session_sequencer_root(roots[i], t);
}

/* After a command of s ended: check its roots' .git folders. */
void
session_sequencer_check(struct session *s, uint64_t ct_id)
{
	struct session_sequencer_tell t = { s, ct_id, s->id, 0 };

	if (s->plan == NULL || !s->plan->sandboxed || s->plan->guard == NULL)
		return;
	session_sequencer_roots(s->plan->guard->roots, &t);
}

/* At close: the roots and the id, for now or (late) once the container
 * is gone. */
struct session_sequencer_close *
session_sequencer_prepare(const struct session *s, int late)
{
	struct session_sequencer_close *q;
	size_t i;

	if (s->plan == NULL || !s->plan->sandboxed || s->plan->guard == NULL ||
	    s->plan->guard->roots == NULL)
		return NULL;
	if ((q = calloc(1, sizeof *q)) == NULL)
		return NULL;
	snprintf(q->id, sizeof q->id, "%s", s->id);
	q->late = late;
	for (i = 0; s->plan->guard->roots[i] != NULL; i++)
		if (strv_append(&q->roots, s->plan->guard->roots[i]) < 0)
			break;
	return q;
}

/* Run the close check and free q. */
void
session_sequencer_closed(struct container *c, void *arg)
{
	struct session_sequencer_close *q = arg;
	struct session_sequencer_tell t = { NULL, 0, NULL, 0 };

	(void)c;
	if (q == NULL)
		return;
	t.id = q->id;
	t.late = q->late;
	session_sequencer_roots(q->roots, &t);
	strv_free(q->roots);
	free(q);
}
