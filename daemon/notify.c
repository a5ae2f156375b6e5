/* notify.c: systemd's readiness notification (Type=notify) without
 * libsystemd: one datagram "READY=1\nMAINPID=N" to the Unix socket named in
 * $NOTIFY_SOCKET (a path, or an abstract name written with a leading '@'). */
#include "daemon/notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/log.h"

/* Send one datagram to the socket named by path; -1 with errno. */
static int
notify_send(const char *path, const char *msg)
{
	struct sockaddr_un sun;
	size_t len = strlen(path);
	socklen_t alen;
	int fd, rc;

	if (len < 2 || len >= sizeof sun.sun_path ||
	    (path[0] != '/' && path[0] != '@')) {
		errno = EINVAL;
		return -1;
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, len);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';	/* abstract namespace */
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
	    (path[0] == '/'));
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	rc = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
	    (struct sockaddr *)&sun, alen) == (ssize_t)strlen(msg) ? 0 : -1;
	close(fd);
	return rc;
}

/* Send "READY=1" to $NOTIFY_SOCKET when it is set, then unset it. */
int
notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	char msg[64];
	int rc;

	if (path == NULL || path[0] == '\0')
		return 0;
	snprintf(msg, sizeof msg, "READY=1\nMAINPID=%ld\n", (long)getpid());
	rc = notify_send(path, msg);
	if (rc == -1)
		log_warn("cannot tell the service manager we are ready "
		    "(NOTIFY_SOCKET %s): %s", path, strerror(errno));
	unsetenv("NOTIFY_SOCKET");
	return rc;
}
