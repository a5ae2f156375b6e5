/* session-scratch.c: a session's scratch folder and the recovery note that
 * names it (the note first: a crash at any point leaves one), and the next
 * session's pair made ahead, from the loop once a create has started its
 * container, so that a create does not wait for two new inodes on its way
 * to bwrap. The one made ahead is checked when taken (a folder of the
 * right owner and mode, its note beside it) and removed at shutdown; after
 * a crash its note has the next start remove it, as any session's. */
#include "daemon/session/session-internal.h"
#include "daemon/session/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/container/container-bind.h"
#include "daemon/container/rmtree.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"

/* The pair made ahead: its id, when there is one. */
static char session_scratch_next[17];
static int session_scratch_scheduled, session_scratch_stopped;

/* The uid and gid a scratch folder belongs to: the sandbox's own (a root
 * sboxd's is not root). */
static void
session_scratch_ids(uid_t *u, gid_t *g)
{
	*u = getuid();
	*g = getgid();
	if (geteuid() == 0)
		container_bind_sandbox_ids(u, g);
}

/* Make the note and the scratch folder of id (folder: its path); 0, or -1
 * with err (nothing of it left). */
static int
session_scratch_new(const char *id, const char *folder, sbox_error *err)
{
	struct session n;
	char *base = session_path("scratch", NULL);
	uid_t u;
	gid_t g;

	if (base != NULL)
		mkdir(base, 0700);
	free(base);
	memset(&n, 0, sizeof n);
	snprintf(n.id, sizeof n.id, "%s", id);
	n.scratch = (char *)folder;
	if (session_write_note(&n) == -1)
		return error_set(err, E_IO, "cannot write the session's "
		    "recovery note in %s/sessions", sboxd.state_dir);
	if (mkdir(folder, 0700) == -1) {
		error_set_errno(err, E_IO, errno, "cannot create the scratch "
		    "folder %s", folder);
		session_drop_note(&n);
		return -1;
	}
	session_scratch_ids(&u, &g);
	if (geteuid() == 0 && chown(folder, u, g) == -1) {
		error_set_errno(err, E_IO, errno, "cannot give the scratch "
		    "folder %s to the sandbox", folder);
		rmtree(folder);
		session_drop_note(&n);
		return -1;
	}
	return 0;
}

/* Is the folder at fd empty? */
static int
session_scratch_empty(int fd)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n == 0;
}

/* Is the pair made ahead for id still as it was made: an empty folder of
 * the sandbox's uid, mode 0700, reached without a link, its note there? */
static int
session_scratch_intact(const char *id, const char *folder)
{
	char *note = session_path("notes", id);
	struct stat st;
	uid_t u;
	gid_t g;
	int ok, fd;

	session_scratch_ids(&u, &g);
	ok = note != NULL && access(note, F_OK) == 0 &&
	    (fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) >= 0;
	if (ok && (fstat(fd, &st) < 0 || (st.st_mode & 07777) != 0700 ||
	    st.st_uid != u || st.st_gid != g)) {
		close(fd);
		ok = 0;
	}
	if (ok)
		ok = session_scratch_empty(fd);
	free(note);
	return ok;
}

/* Remove the pair of id (folder and note). */
static void
session_scratch_remove(const char *id)
{
	struct session n;

	memset(&n, 0, sizeof n);
	snprintf(n.id, sizeof n.id, "%s", id);
	if ((n.scratch = session_path("scratch", id)) != NULL)
		rmtree(n.scratch);
	session_drop_note(&n);
	free(n.scratch);
}

/* Give s a note and a scratch folder: the pair made ahead when it is
 * intact (s's id becomes its id), else new ones for s's id. 0, or -1 with
 * err. */
int
session_scratch_make(struct session *s, sbox_error *err)
{
	char *folder;

	if (session_scratch_next[0] != '\0') {
		folder = session_path("scratch", session_scratch_next);
		if (folder != NULL && session_scratch_intact(session_scratch_next,
		    folder)) {
			memcpy(s->id, session_scratch_next, sizeof s->id);
			free(s->scratch);
			s->scratch = folder;
			session_scratch_next[0] = '\0';
			return 0;
		}
		free(folder);
		log_warn("the scratch folder made ahead (%s) changed: not used",
		    session_scratch_next);
		session_scratch_remove(session_scratch_next);
		session_scratch_next[0] = '\0';
	}
	return session_scratch_new(s->id, s->scratch, err);
}

/* From the loop: make the next session's pair. */
static void
session_scratch_ahead(evutil_socket_t fd, short what, void *arg)
{
	sbox_error err = { 0 };
	char id[17], *folder;

	(void)fd; (void)what; (void)arg;
	session_scratch_scheduled = 0;
	if (session_scratch_next[0] != '\0' || session_scratch_stopped)
		return;
	session_new_id(id);
	if ((folder = session_path("scratch", id)) == NULL)
		return;
	if (session_scratch_new(id, folder, &err) == 0)
		memcpy(session_scratch_next, id, sizeof id);
	else
		log_debug("no scratch folder made ahead: %s", err.message);
	free(folder);
}

/* Make the next session's pair soon, from the loop (once at a time). */
void
session_scratch_later(void)
{
	if (session_scratch_scheduled || session_scratch_next[0] != '\0' ||
	    session_scratch_stopped || sboxd.base == NULL)
		return;
	if (event_base_once(sboxd.base, -1, EV_TIMEOUT, session_scratch_ahead,
	    NULL, &(struct timeval){ 0, 0 }) == 0)
		session_scratch_scheduled = 1;
}

/* Remove the pair made ahead and make no more (daemon shutdown). */
void
session_scratch_drop(void)
{
	session_scratch_stopped = 1;
	if (session_scratch_next[0] == '\0')
		return;
	session_scratch_remove(session_scratch_next);
	session_scratch_next[0] = '\0';
}
