/* init-files.c: sbox-init's file operations (open, mkdir, stat) and
 * listening sockets. They run inside the sandbox with its uid, mounts and
 * seccomp filter, so sboxd's file tools obey exactly the sandbox's view. */
#include "protocol/ctl.h"
#include "daemon/init/init-dispatch.h"
#include "daemon/init/init-files.h"
#include "daemon/init/init-msg.h"
#include "daemon/init/init-ops.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* The open flags a message may name. */
static const struct {
	const char *name;
	int         flag;
} init_files_flags[] = {
	{ "create",   O_CREAT },
	{ "excl",     O_EXCL },
	{ "trunc",    O_TRUNC },
	{ "append",   O_APPEND },
	{ "dir",      O_DIRECTORY },
	{ "nofollow", O_NOFOLLOW },
	{ "path",     O_PATH },
};

/* The req member (any JSON scalar the daemon chose), or NULL. */
static json_t *
init_files_req(json_t *msg)
{
	json_t *r = json_object_get(msg, "req");

	return json_is_integer(r) || json_is_string(r) ? r : NULL;
}

/* The mode member (0..07777, default dflt), or -1 when invalid. */
static int
init_files_mode(json_t *msg, int dflt)
{
	json_t *m = json_object_get(msg, "mode");

	if (m == NULL)
		return dflt;
	if (!json_is_integer(m) || json_integer_value(m) < 0 ||
	    json_integer_value(m) > 07777)
		return -1;
	return (int)json_integer_value(m);
}

/* Turn the flags array into open(2) flags, or -1 when invalid. */
static int
init_files_oflags(json_t *a)
{
	int rd = 0, wr = 0, fl = 0;
	size_t i, k;
	json_t *v;
	const char *s;

	if (a == NULL)
		return O_RDONLY;
	if (!json_is_array(a) || json_array_size(a) > 16)
		return -1;
	json_array_foreach(a, i, v) {
		if ((s = json_string_value(v)) == NULL)
			return -1;
		if (strcmp(s, "read") == 0) {
			rd = 1;
			continue;
		}
		if (strcmp(s, "write") == 0) {
			wr = 1;
			continue;
		}
		for (k = 0; k < sizeof init_files_flags /
		    sizeof init_files_flags[0]; k++)
			if (strcmp(s, init_files_flags[k].name) == 0)
				break;
		if (k == sizeof init_files_flags / sizeof init_files_flags[0])
			return -1;
		fl |= init_files_flags[k].flag;
	}
	if (fl & O_PATH)
		return (rd || wr || (fl & ~(O_PATH | O_NOFOLLOW |
		    O_DIRECTORY))) ? -1 : fl;
	if ((fl & (O_CREAT | O_TRUNC | O_APPEND | O_EXCL)) && !wr)
		return -1;
	return fl | (rd && wr ? O_RDWR : wr ? O_WRONLY : O_RDONLY);
}

/* Handle open {req, path, flags, mode}: reply opened + fd, or error. */
void
init_files_open(json_t *msg)
{
	json_t *req = init_files_req(msg);
	const char *path = init_msg_get_path(msg, "path");
	char why[512];
	int fl, mode, fd;

	fl = init_files_oflags(json_object_get(msg, "flags"));
	mode = init_files_mode(msg, 0644);
	if (path == NULL || fl < 0 || mode < 0) {
		init_msg_send_error(req, EINVAL,
		    "open: bad path, flags or mode");
		return;
	}
	if ((fl & O_ACCMODE) != O_RDONLY || (fl & (O_CREAT | O_TRUNC))) {
		/* a write: walked and decided as a command's would be */
		fd = init_dispatch_file_open(path, fl | O_NOCTTY | O_CLOEXEC |
		    O_NONBLOCK, (mode_t)mode, why, sizeof why);
		if (fd < 0) {
			init_msg_send_error(req, -fd, "%s", why[0] ? why :
			    strerror(-fd));
			return;
		}
	} else if ((fd = open(path, fl | O_NOCTTY | O_CLOEXEC | O_NONBLOCK,
	    (mode_t)mode)) < 0) {
		init_msg_send_error(req, errno, "%s: %s", path,
		    strerror(errno));
		return;
	}
	init_msg_send(ctl_msg("opened", "{s:O?}", "req", req), &fd, 1);
	close(fd);
}

/* Handle mkdir {req, path, mode}: reply done or error. */
void
init_files_mkdir(json_t *msg)
{
	json_t *req = init_files_req(msg);
	const char *path = init_msg_get_path(msg, "path");
	int mode = init_files_mode(msg, 0755), rc;
	char why[512];

	if (path == NULL || mode < 0) {
		init_msg_send_error(req, EINVAL, "mkdir: bad path or mode");
		return;
	}
	if ((rc = init_dispatch_file_mkdir(path, (mode_t)mode, why,
	    sizeof why)) < 0) {
		init_msg_send_error(req, -rc, "%s",
		    why[0] ? why : strerror(-rc));
		return;
	}
	init_msg_send(ctl_msg("done", "{s:O?}", "req", req), NULL, 0);
}

/* The name of a file type. */
static const char *
init_files_type(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:  return "file";
	case S_IFDIR:  return "dir";
	case S_IFLNK:  return "symlink";
	case S_IFIFO:  return "fifo";
	case S_IFSOCK: return "socket";
	case S_IFCHR:  return "char";
	case S_IFBLK:  return "block";
	default:       return "unknown";
	}
}

/* Handle stat {req, path, nofollow}: reply done {req, stat} or error. */
void
init_files_stat(json_t *msg)
{
	json_t *req = init_files_req(msg);
	const char *path = init_msg_get_path(msg, "path");
	struct stat st;
	int rc;

	if (path == NULL) {
		init_msg_send_error(req, EINVAL, "stat: bad path");
		return;
	}
	rc = json_is_true(json_object_get(msg, "nofollow")) ?
	    lstat(path, &st) : stat(path, &st);
	if (rc < 0) {
		init_msg_send_error(req, errno, "%s: %s", path,
		    strerror(errno));
		return;
	}
	init_msg_send(ctl_msg("done", "{s:O?,s:{s:s,s:I,s:i,s:I,s:I,s:I,s:i,s:I,"
	    "s:I,s:I}}", "req", req, "stat", "type", init_files_type(st.st_mode),
	    "size", (json_int_t)st.st_size, "mode", (int)(st.st_mode & 07777),
	    "uid", (json_int_t)st.st_uid, "gid", (json_int_t)st.st_gid,
	    "mtime", (json_int_t)st.st_mtim.tv_sec,
	    "mtime_ns", (int)st.st_mtim.tv_nsec,
	    "nlink", (json_int_t)st.st_nlink, "ino", (json_int_t)st.st_ino,
	    "dev", (json_int_t)st.st_dev), NULL, 0);
}

/* One listening TCP socket on a loopback address; -1 with errno. */
static int
init_files_listen_one(int family, int port)
{
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;
	int fd, one = 1, e;

	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (family == AF_INET6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
		memset(&a6, 0, sizeof a6);
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((uint16_t)port);
		a6.sin6_addr = in6addr_loopback;
		if (bind(fd, (struct sockaddr *)&a6, sizeof a6) < 0)
			goto fail;
	} else {
		memset(&a4, 0, sizeof a4);
		a4.sin_family = AF_INET;
		a4.sin_port = htons((uint16_t)port);
		a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(fd, (struct sockaddr *)&a4, sizeof a4) < 0)
			goto fail;
	}
	if (listen(fd, 512) < 0)
		goto fail;
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* Listening sockets on 127.0.0.1:port and [::1]:port (the latter only when
 * IPv6 is there); returns how many (0 with errno set on failure). */
int
init_files_listeners(int port, int *fds, const char **families)
{
	int n = 0;

	if ((fds[0] = init_files_listen_one(AF_INET, port)) < 0)
		return 0;
	families[n++] = "inet";
	if ((fds[1] = init_files_listen_one(AF_INET6, port)) >= 0)
		families[n++] = "inet6";
	return n;
}

/* Handle listen_local {req, port}: reply opened {req, families} + fds. */
void
init_files_listen(json_t *msg)
{
	json_t *req = init_files_req(msg), *fam;
	json_t *p = json_object_get(msg, "port");
	const char *families[2];
	int fds[2], n, i;

	if (!json_is_integer(p) || json_integer_value(p) < 1 ||
	    json_integer_value(p) > 65535) {
		init_msg_send_error(req, EINVAL, "listen_local: bad port");
		return;
	}
	n = init_files_listeners((int)json_integer_value(p), fds, families);
	if (n == 0) {
		init_msg_send_error(req, errno, "listen on port %d: %s",
		    (int)json_integer_value(p), strerror(errno));
		return;
	}
	fam = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(fam, json_string(families[i]));
	init_msg_send(ctl_msg("opened", "{s:O?,s:o}", "req", req, "families",
	    fam), fds, n);
	ctl_close_fds(fds, n);
}
