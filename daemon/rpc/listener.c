/* listener.c: the daemon's Unix socket: a private folder, peer checks,
 * connection limits, systemd socket activation. */
#include "daemon/rpc/listener.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "daemon/rpc/conn.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "protocol/envelope.h"

#define LISTENER_PAUSE_MS 100   /* after an accept error (EMFILE, ENFILE) */

static struct evconnlistener *listener_ev;
static struct event *listener_resume_ev;
static char *listener_path;   /* set when we created the socket file */

/* Check (or create) a private folder owned by us with mode 0700. */
int
listener_private_dir(const char *dir, sbox_error *err)
{
	char *copy, *p;
	struct stat st;

	if (lstat(dir, &st) == -1) {
		if (errno != ENOENT)
			return error_set_errno(err, E_IO, errno, "%s", dir);
		if ((copy = strdup(dir)) == NULL)
			return error_nomem(err);
		for (p = copy + 1; *p; p++) {
			if (*p != '/')
				continue;
			*p = '\0';
			if (mkdir(copy, 0700) == -1 && errno != EEXIST) {
				error_set_errno(err, E_IO, errno,
				    "cannot create %s", copy);
				free(copy);
				return -1;
			}
			*p = '/';
		}
		free(copy);
		if (mkdir(dir, 0700) == -1 && errno != EEXIST)
			return error_set_errno(err, E_IO, errno,
			    "cannot create %s", dir);
		if (lstat(dir, &st) == -1)
			return error_set_errno(err, E_IO, errno, "%s", dir);
	}
	if (!S_ISDIR(st.st_mode))
		return error_set(err, E_PERMISSION, "%s is not a folder", dir);
	if (st.st_uid != geteuid())
		return error_set(err, E_PERMISSION,
		    "%s belongs to uid %u, not to you (uid %u); refusing to use it",
		    dir, (unsigned)st.st_uid, (unsigned)geteuid());
	if ((st.st_mode & 077) != 0)
		return error_set(err, E_PERMISSION,
		    "%s is not private (mode %04o); run: chmod 700 %s", dir,
		    (unsigned)(st.st_mode & 07777), dir);
	return 0;
}

/* Refuse a client with one error line, best effort, and close it. */
static void
listener_refuse(int fd, const char *name, const char *msg)
{
	sbox_error err;
	json_t *reply;
	char *s;
	size_t n;

	error_set(&err, name, "%s", msg);
	reply = envelope_error(NULL, &err);
	if ((s = envelope_dump(reply, &n)) != NULL) {
		if (write(fd, s, n) < 0) {
			/* nothing more to do for a refused client */
		}
		free(s);
	}
	json_decref(reply);
	close(fd);
}

/* Accept one client: check its uid and the limits, then hand it over. */
static void
listener_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct ucred cred;
	socklen_t len = sizeof cred;

	(void)l; (void)sa; (void)salen; (void)arg;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1) {
		close(fd);
		return;
	}
	if (cred.uid != geteuid() && cred.uid != 0) {
		log_warn("refused a client of uid %u (pid %d): not this daemon's "
		    "user", (unsigned)cred.uid, (int)cred.pid);
		listener_refuse(fd, E_PERMISSION, "this sboxd serves another user");
		return;
	}
	if (sboxd.stopping) {
		listener_refuse(fd, E_SHUTTING_DOWN, "sboxd is shutting down");
		return;
	}
	/* at a cap, the longest-idle connection makes room for the new
	 * client: idle ones cannot lock a user out */
	if (sboxd.connections >= sboxd.lim.max_conns &&
	    conn_evict_idle(cred.uid, 0) == -1 &&
	    conn_evict_idle(cred.uid, 1) == -1) {
		listener_refuse(fd, E_LIMIT, "too many connections to sboxd");
		return;
	}
	if (conn_count_uid(cred.uid) >= sboxd.lim.max_conns_per_uid &&
	    conn_evict_idle(cred.uid, 0) == -1) {
		listener_refuse(fd, E_LIMIT, "too many connections from this "
		    "user, none of them idle");
		return;
	}
	if (conn_new(fd, cred.uid, cred.gid, cred.pid, NULL) == NULL)
		close(fd);
}

/* Accept again after a pause. */
static void
listener_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd; (void)what; (void)arg;
	if (listener_ev != NULL)
		evconnlistener_enable(listener_ev);
}

/* accept() failed (out of descriptors, EMFILE/ENFILE): pause the listener
 * for a moment instead of spinning on the pending connection. */
static void
listener_error_cb(struct evconnlistener *l, void *arg)
{
	struct timeval tv = { 0, LISTENER_PAUSE_MS * 1000 };
	int e = EVUTIL_SOCKET_ERROR();

	(void)arg;
	log_warn("accept failed, pausing the listener for %d ms: %s",
	    LISTENER_PAUSE_MS, strerror(e));
	evconnlistener_disable(l);
	if (listener_resume_ev != NULL)
		evtimer_add(listener_resume_ev, &tv);
}

/* Take the socket systemd passed (LISTEN_FDS), or -1 when there is none. */
static int
listener_activated(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int fd = 3;

	if (pid == NULL || fds == NULL || atol(pid) != (long)getpid() ||
	    atoi(fds) < 1)
		return -1;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* Bind our own socket at path in its private folder. */
static int
listener_bind(const char *path, sbox_error *err)
{
	struct sockaddr_un sun;
	char *dir, *slash;
	int fd, probe;

	if (strlen(path) >= sizeof sun.sun_path)
		return error_set(err, E_INVALID_PARAMS, "socket path too long: %s",
		    path);
	if ((dir = strdup(path)) == NULL)
		return error_nomem(err);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (listener_private_dir(dir, err) == -1) {
			free(dir);
			return error_context(err, "socket folder");
		}
	}
	free(dir);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path));
	/* A socket file is there: is a daemon behind it? */
	if ((probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0) {
		if (connect(probe, (struct sockaddr *)&sun, sizeof sun) == 0) {
			close(probe);
			return error_set(err, E_IO,
			    "another sboxd is already listening on %s", path);
		}
		close(probe);
	}
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1)
		return error_set_errno(err, E_IO, errno, "socket");
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) == -1 ||
	    chmod(path, 0600) == -1 || listen(fd, SOMAXCONN) == -1) {
		error_set_errno(err, E_IO, errno, "cannot listen on %s", path);
		close(fd);
		return -1;
	}
	listener_path = strdup(path);
	return fd;
}

/* Listen on path (or take systemd's socket). */
int
listener_open(const char *path, sbox_error *err)
{
	int fd;

	if ((fd = listener_activated()) >= 0)
		log_info("using the socket passed by systemd (fd %d)", fd);
	else if ((fd = listener_bind(path, err)) == -1)
		return -1;
	evutil_make_socket_nonblocking(fd);
	listener_ev = evconnlistener_new(sboxd.base, listener_accept_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, fd);
	if (listener_ev == NULL) {
		close(fd);
		return error_set(err, E_INTERNAL, "cannot watch the socket");
	}
	evconnlistener_set_error_cb(listener_ev, listener_error_cb);
	listener_resume_ev = evtimer_new(sboxd.base, listener_resume_cb, NULL);
	if (listener_resume_ev == NULL) {
		listener_close();
		return error_set(err, E_INTERNAL, "cannot watch the socket");
	}
	return 0;
}

/* Stop accepting; remove the socket file if sboxd created it. */
void
listener_close(void)
{
	if (listener_resume_ev != NULL) {
		event_free(listener_resume_ev);
		listener_resume_ev = NULL;
	}
	if (listener_ev != NULL) {
		evconnlistener_free(listener_ev);
		listener_ev = NULL;
	}
	if (listener_path != NULL) {
		unlink(listener_path);
		free(listener_path);
		listener_path = NULL;
	}
}
