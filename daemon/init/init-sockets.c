/* init-sockets.c: the file guard's bind and connect. A Unix socket's path
 * name is a name like any other: bind makes it (decided as a creation:
 * a socket named `refs` next to HEAD and objects would make a repository
 * host git discovers), connect reaches the program behind it (a host's
 * tmux, X11, ssh-agent or D-Bus socket drives a host program). Both are
 * PERFORMED here on a copy of the caller's socket (pidfd_getfd), with the
 * address as read once, so a thread that rewrites it after the check
 * changes nothing. A connect to a Unix path reaches only a socket that a
 * bind through this guard made (its device and inode are remembered);
 * every other one is refused and reported. Other families (the proxy's
 * loopback port) and abstract names (the sandbox's own network namespace)
 * are performed as asked. A datagram to a Unix path (sendto, sendmsg,
 * sendmmsg) reaches a program as a connect does: init-dgram.c decides it
 * with the same rule (init_sockets_reach) and performs it the same way;
 * a blocking call goes on in a helper (init_sockets_helper). */
#include "protocol/ctl.h"
#include "daemon/init/init-decide.h"
#include "daemon/init/init-msg.h"
#include "daemon/init/init-sockets.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"
#include "policy/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define INIT_SOCK_MADE_MAX 4096 /* sockets remembered (the oldest go) */
#define INIT_SOCK_HELPERS  256  /* helpers for blocking connects at once */

static struct {
	dev_t dev;
	ino_t ino;
} init_sock_made[INIT_SOCK_MADE_MAX];
static size_t init_sock_n, init_sock_next;

/* Remember a socket file a bind made. */
static void
init_sockets_remember(const struct stat *st)
{
	init_sock_made[init_sock_next].dev = st->st_dev;
	init_sock_made[init_sock_next].ino = st->st_ino;
	init_sock_next = (init_sock_next + 1) % INIT_SOCK_MADE_MAX;
	if (init_sock_n < INIT_SOCK_MADE_MAX)
		init_sock_n++;
}

/* Did a bind through the guard make this socket file? */
static int
init_sockets_ours(const struct stat *st)
{
	size_t i;

	for (i = 0; i < init_sock_n; i++)
		if (init_sock_made[i].dev == st->st_dev &&
		    init_sock_made[i].ino == st->st_ino)
			return 1;
	return 0;
}

/* A copy of the caller's fd (ours to use), or -errno. */
int
init_sockets_getfd(struct init_walk_caller *t, int fd)
{
	int pfd, dup, e;

	if (init_walk_status(t) != 0)
		return -ESRCH;
	if ((pfd = (int)syscall(SYS_pidfd_open, t->tgid, 0)) < 0)
		return -errno;
	dup = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	e = errno;
	close(pfd);
	return dup < 0 ? -e : dup;
}

/* Read len bytes of the caller's memory at addr; 0 or EFAULT. */
int
init_sockets_read(struct init_walk_caller *t, uint64_t addr, void *buf,
    size_t len)
{
	char p[32];

	if (t->mem < 0) {
		snprintf(p, sizeof p, "/proc/%d/mem", (int)t->tid);
		if ((t->mem = open(p, O_RDONLY | O_CLOEXEC)) < 0)
			return EFAULT;
	}
	return pread(t->mem, buf, len, (off_t)addr) == (ssize_t)len ? 0 :
	    EFAULT;
}

/* The live helpers: each one's pidfd and the call it answers. */
static struct {
	int      pidfd;
	int      lfd;
	uint64_t id;
} init_sock_helper[INIT_SOCK_HELPERS];
static int init_sock_nhelpers;

/* Forget the helpers that have ended (their pidfd reads as ready; who
 * reaps them -- init_spawn_reap -- does not matter), and end those whose
 * caller is gone (killed while its call blocked: the helper would hold a
 * copy of its socket for nobody). */
static void
init_sockets_helpers_prune(void)
{
	struct pollfd p;
	uint64_t id;
	int i;

	for (i = init_sock_nhelpers - 1; i >= 0; i--) {
		p.fd = init_sock_helper[i].pidfd;
		p.events = POLLIN;
		p.revents = 0;
		if (poll(&p, 1, 0) == 0) {
			id = init_sock_helper[i].id;
			if (ioctl(init_sock_helper[i].lfd,
			    SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0)
				syscall(SYS_pidfd_send_signal, p.fd, SIGKILL,
				    NULL, 0);
			continue;
		}
		close(init_sock_helper[i].pidfd);
		init_sock_helper[i] = init_sock_helper[--init_sock_nhelpers];
	}
}

/* A helper process for a call that blocks: 0 in the helper, its pid here,
 * -1 when none can start. */
pid_t
init_sockets_helper(const struct init_sv_call *call)
{
	int pfd;
	pid_t pid;

	init_sockets_helpers_prune();
	if (init_sock_nhelpers >= INIT_SOCK_HELPERS || (pid = fork()) < 0)
		return -1;
	if (pid > 0) {
		/* the child is not reaped before this returns: its pidfd
		 * names it (/dev/null, when none: forgotten at the next
		 * prune) */
		pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		init_sock_helper[init_sock_nhelpers].pidfd = pfd >= 0 ? pfd :
		    open("/dev/null", O_RDONLY | O_CLOEXEC);
		init_sock_helper[init_sock_nhelpers].lfd = call->lfd;
		init_sock_helper[init_sock_nhelpers].id = call->notif_id;
		init_sock_nhelpers++;
	}
	return pid;
}

/* A blocking socket's connect tried without blocking: 0 or an errno when
 * it is over (a loopback handshake, the proxy's port, is over before
 * connect returns: a second connect then says so), -1 when it still has
 * to wait. The flag is the caller's open file's, set for these two calls
 * and put back: another thread's call on a socket that is connecting
 * fails with or without it. */
static int
init_sockets_try_connect(int sock, int fl, const struct sockaddr *sa,
    socklen_t len)
{
	int e;

	if (fcntl(sock, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	e = connect(sock, sa, len) < 0 ? errno : 0;
	if (e == EINPROGRESS)
		e = connect(sock, sa, len) < 0 ? errno : 0;
	if (fcntl(sock, F_SETFL, fl) < 0)
		return e == 0 ? 0 : EIO;  /* cannot happen on our own copy */
	/* still connecting, or a Unix listener's full queue: the blocking
	 * connect below waits for it */
	return e == EALREADY || e == EINPROGRESS || e == EAGAIN ? -1 : e;
}

/* Connect sock to addr for the caller: at once when the socket does not
 * block or the connect is over at once, else in a helper process that
 * waits and answers the call itself (at most INIT_SOCK_HELPERS at once;
 * then EAGAIN). */
static int
init_sockets_connect(struct init_walk_caller *t, int sock,
    const struct sockaddr *sa, socklen_t len)
{
	struct seccomp_notif_resp r;
	int fl = fcntl(sock, F_GETFL), e;
	pid_t pid;

	if (fl >= 0 && (fl & O_NONBLOCK))
		return connect(sock, sa, len) < 0 ? errno : 0;
	if (fl >= 0 && (e = init_sockets_try_connect(sock, fl, sa, len)) >= 0)
		return e;
	if ((pid = init_sockets_helper(t->call)) < 0)
		return EAGAIN;
	if (pid > 0)
		return SV_ANSWERED;
	/* a TCP connect begun above is waited for (EALREADY only when the
	 * caller's own send timeout ends the wait, when a connect of its own
	 * would have said EINPROGRESS) */
	e = connect(sock, sa, len) < 0 ? errno : 0;
	if (e == EALREADY)
		e = EINPROGRESS;
	memset(&r, 0, sizeof r);
	r.id = t->call->notif_id;
	r.error = -e;
	ioctl(t->call->lfd, SECCOMP_IOCTL_NOTIF_SEND, &r);
	_exit(0);
}

/* No socket in a package cache: refused and reported. */
static int
init_sockets_decide_bind(struct init_walk_caller *t,
    const struct init_walk_loc *l)
{
	struct guard_verdict v;
	char full[PATH_MAX + NAME_MAX + 2];

	if (guard_decide_bind(init_state_spec(), l->dir, &v) == 0)
		return 0;
	snprintf(full, sizeof full, "%s/%s", strcmp(l->dir, "/") ? l->dir :
	    "", l->name);
	if (t->call != NULL)
		init_state_report(t->call->id, t->tid, "create", full, v.err,
		    v.rule, v.reason);
	return v.err;
}

/* bind to a Unix path: decided as a creation, made in the held folder. */
static int
init_sockets_bind_path(struct init_walk_caller *t, int sock,
    const char *path)
{
	struct init_walk_loc l = { .fd = -1 };
	struct sockaddr_un sun;
	char p[40], here[PATH_MAX];
	struct stat st;
	int hops = 0, e, cwd = -1, dfd = -1;
	mode_t old;

	if ((e = init_walk_resolve(t, AT_FDCWD, path, &l, &hops)) != 0)
		goto out;
	if (fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		e = EADDRINUSE;
		goto out;
	}
	if ((e = init_decide(t, GUARD_OP_CREATE, l.fd, l.dir, l.name,
	    NULL, 0)) != 0 || (e = init_sockets_decide_bind(t, &l)) != 0)
		goto out;
	if ((e = init_walk_status(t)) != 0)
		goto out;
	if (!init_walk_valid(t)) {
		e = ENOENT;
		goto out;
	}
	/* The kernel keeps the address bind was given (getsockname, and
	 * Python's multiprocessing, hand it on): bind with the caller's own
	 * text, from the caller's working folder. It resolves to where the
	 * walk did: notifications are handled one at a time and every
	 * rename, link and symlink of the sandbox is one, so no folder on
	 * the way can change meanwhile. A /proc path (its "self" would be
	 * sbox-init) binds the name alone in the held folder. */
	if ((cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		e = init_state_undecided(l.dir, "cannot keep sbox-init's "
		    "folder");
		goto out;
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(p, sizeof p, "/proc/%d/cwd", (int)t->tid);
	if (strncmp(path, "/proc", 5) != 0 && strlen(path) <
	    sizeof sun.sun_path && (path[0] == '/' ||
	    ((dfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
	    init_walk_fd_path(dfd, here, sizeof here) == 0 &&
	    strncmp(here, "/proc", 5) != 0 && fchdir(dfd) == 0))) {
		memcpy(sun.sun_path, path, strlen(path));
	} else if (strlen(l.name) < sizeof sun.sun_path && fchdir(l.fd) == 0)
		memcpy(sun.sun_path, l.name, strlen(l.name));
	else {
		e = strlen(l.name) < sizeof sun.sun_path ?
		    init_state_undecided(l.dir, "cannot enter the folder "
		    "of a socket") : ENAMETOOLONG;
		goto out;
	}
	old = umask(t->umask);
	e = bind(sock, (struct sockaddr *)&sun, (socklen_t)(offsetof(struct
	    sockaddr_un, sun_path) + strlen(sun.sun_path) + 1)) < 0 ? errno : 0;
	umask(old);
	if (e == 0 && fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISSOCK(st.st_mode))
		init_sockets_remember(&st);
out:
	if (cwd >= 0) {
		if (fchdir(cwd) < 0)
			init_msg_exit(1); /* broken invariant: sbox-init lost its
			                 folder */
		close(cwd);
	}
	if (dfd >= 0)
		close(dfd);
	init_walk_loc_close(&l);
	return e;
}

/* May the caller reach the Unix socket at path? Only one a bind through
 * the guard made: 0 with an O_PATH descriptor of it in *pfd. */
int
init_sockets_reach(struct init_walk_caller *t, const char *path,
    const char *what, int *pfd)
{
	struct init_walk_loc l = { .fd = -1 };
	char full[PATH_MAX + NAME_MAX + 2], reason[128];
	struct stat st;
	int hops = 0, followed = 0, e, fd = -1;

	if ((e = init_walk_resolve(t, AT_FDCWD, path, &l, &hops)) != 0)
		goto out;
	e = init_walk_follow(t, &l, &hops, &followed);
	if (e == INIT_WALK_MAGIC)
		e = init_state_undecided(NULL, "a Unix socket reached "
		    "through a /proc link");
	if (e != 0)
		goto out;
	if ((fd = openat(l.fd, l.name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		e = errno == ELOOP ? ECONNREFUSED : errno;
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		e = ECONNREFUSED; /* the kernel's answer for a non-socket */
		goto out;
	}
	snprintf(full, sizeof full, "%s/%s", strcmp(l.dir, "/") ? l.dir : "",
	    l.name);
	if (!init_sockets_ours(&st)) {
		snprintf(reason, sizeof reason, "%s a Unix socket the sandbox "
		    "did not make (a host program's) is refused", what);
		init_state_report(t->call->id, t->tid, "connect", full,
		    EACCES, PLAN_RULE_SOCKETS, reason);
		e = EACCES;
		goto out;
	}
	if (!init_walk_valid(t)) {
		e = ENOENT;
		goto out;
	}
	*pfd = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	init_walk_loc_close(&l);
	return e;
}

/* connect to a Unix path: only a socket a bind through the guard made. */
static int
init_sockets_connect_path(struct init_walk_caller *t, int sock,
    const char *path)
{
	struct sockaddr_un sun;
	int e, pfd = -1;

	if ((e = init_sockets_reach(t, path, "connect to", &pfd)) != 0)
		return e;
	/* the very socket file checked, through our descriptor */
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "/proc/self/fd/%d", pfd);
	e = init_sockets_connect(t, sock, (struct sockaddr *)&sun,
	    (socklen_t)sizeof sun);
	close(pfd);
	return e;
}

/* bind or connect for the caller. */
int
init_sockets_call(struct init_sv_call *call, struct init_walk_caller *t)
{
	const __u64 *a = call->data->args;
	struct sockaddr_storage ss;
	struct sockaddr_un *sun = (struct sockaddr_un *)&ss;
	char path[sizeof sun->sun_path + 1];
	socklen_t len = (socklen_t)(uint32_t)a[2];
	size_t off = offsetof(struct sockaddr_un, sun_path), n;
	int sock, e;

	if (len > sizeof ss)
		return EINVAL;
	memset(&ss, 0, sizeof ss);
	if (len > 0 && init_sockets_read(t, a[1], &ss, len) != 0)
		return EFAULT;
	if ((sock = init_sockets_getfd(t, (int)(uint32_t)a[0])) < 0)
		return sock == -EBADF ? EBADF : init_state_undecided(NULL,
		    "cannot reach the caller's socket");
	if (len > off && ss.ss_family == AF_UNIX && sun->sun_path[0] != '\0') {
		if (len > sizeof *sun) {
			/* the kernel's answer (unix_validate_addr); the path
			 * would not fit */
			close(sock);
			return EINVAL;
		}
		n = strnlen(sun->sun_path, len - off);
		memcpy(path, sun->sun_path, n);
		path[n] = '\0';
		e = call->sc == SV_BIND ? init_sockets_bind_path(t, sock, path) :
		    init_sockets_connect_path(t, sock, path);
	} else if (call->sc == SV_BIND)
		e = bind(sock, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
	else
		e = init_sockets_connect(t, sock, (struct sockaddr *)&ss, len);
	close(sock);
	return e;
}
