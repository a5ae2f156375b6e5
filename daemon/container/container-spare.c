/* container-spare.c: the spare launcher, a process made ahead that becomes
 * the next container's bwrap.
 *
 * Joining a cgroup (a write to cgroup.procs) waits for an RCU grace period
 * in the kernel: 2 to 13 ms of every session's start when it is done at
 * create time. So once a container with cgroups has been spawned, sboxd
 * makes the next one's cgroups (container_cgroup_setup, with the same
 * limits) and forks a spare that joins them at once and then waits on a
 * socket. A create whose plan has the same pids and memory limits takes it
 * (container-start.c) and sends it what the fork at create would have had:
 * bwrap's path and arguments, its stdio, control, arguments and seccomp
 * descriptors and the held binds (SCM_RIGHTS); the spare then does exactly
 * what that fork does (container_launch_exec) and its pid is bwrap's. As
 * root it also makes bwrap's mount namespace ahead (container_launch_stage:
 * private, pruned, an empty /tmp for the held trees).
 *
 * The spare is sboxd's own binary started again (posix_spawn of
 * /proc/self/exe with SPARE_ENV, container_spare_child): a fork of sboxd
 * that waited shared every page of sboxd's with it until the next create,
 * so that each page sboxd wrote meanwhile, the next create's plan too, was
 * copied first (a tenth of sboxd's time at each create).
 *
 * Fail closed: a spare that could not join its cgroups says so and is
 * never used (ended, its cgroups removed; the create then forks as without
 * one, whose child does not exec bwrap when it cannot join either). A spare
 * holds none of sboxd's descriptors but its socket; it ends on its socket's
 * end (sboxd gone), is ended when limits change and at shutdown, and one
 * that dies while it waits is reaped and its cgroups removed. */
#include "daemon/container/container-internal.h"
#include "protocol/fdpass.h"
#include "daemon/container/container-bind.h"
#include "daemon/container/container-launch.h"
#include "daemon/container/container-standin.h"
#include "daemon/container/child.h"
#include "daemon/log.h"

#include <errno.h>
#include <limits.h>
#include <event2/event.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SPARE_MAGIC     0x73627370u  /* "sbsp" */
#define SPARE_CHUNK     200          /* held binds per message */
#define SPARE_BINDS_MAX 4096
#define SPARE_DATA_MAX  65536
#define SPARE_JOIN_MS   2000         /* the longest a take waits for a join */
#define SPARE_ENV       "SBOX_SPARE_LAUNCHER" /* staged:n:bwrap */
#define SPARE_SOCK_FD   3            /* then the cgroups' procs files: 4, 5 */

extern char **environ;

/* The go message's head; then n ints (is_dir), then argc strings (bwrap's
 * path, then its argv), each NUL-terminated. */
struct spare_head {
	uint32_t magic;
	uint32_t n;          /* held binds, sent SPARE_CHUNK a message after */
	int32_t  staged;
	uint32_t run_uid, run_gid;
	uint32_t argc;
	uint32_t n_si;       /* stand-ins: one more message after the binds */
};

/* The stand-ins' message (container-standin.c), with the FUSE device:
 * its head, then n_si records, then the stage folder (NUL-terminated). */
struct spare_si_head {
	uint32_t magic;
	uint32_t uid, gid;
};
struct spare_si_rec {
	int32_t            overlay;
	uint32_t           mode;
	unsigned long long size_bytes;
};

static struct container_spare spare_now;     /* pid 0: none waiting */
static struct plan_limits spare_want;
static char spare_want_bwrap[PATH_MAX];
static int spare_scheduled;

/* Send len bytes of data and nfds descriptors as one message. */
static int
spare_send(int sock, const void *data, size_t len, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * SPARE_CHUNK)];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { (void *)data, len };
	struct msghdr mh = { 0 };

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fdpass_put(&mh, cbuf.buf, sizeof cbuf.buf, fds, nfds) < 0)
		return -1;
	while (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static ssize_t spare_recv(int sock, void *buf, size_t size, int *fds,
    int want);

/* Send the stand-ins' stage (root's: sboxd's own FUSE device). */
static int
spare_send_si(int sock, const struct container_standin_stage *st)
{
	struct spare_si_head h = { SPARE_MAGIC, (uint32_t)st->uid,
	    (uint32_t)st->gid };
	char buf[sizeof h + 256 * sizeof(struct spare_si_rec) + 4096];
	struct spare_si_rec r;
	size_t len = sizeof h, i, l = strlen(st->dir) + 1;

	memcpy(buf, &h, sizeof h);
	for (i = 0; i < st->n; i++) {
		memset(&r, 0, sizeof r);
		r.overlay = st->si[i].overlay;
		r.mode = st->si[i].mode;
		r.size_bytes = st->si[i].size_bytes;
		memcpy(buf + len, &r, sizeof r);
		len += sizeof r;
	}
	memcpy(buf + len, st->dir, l);
	return spare_send(sock, buf, len + l, &st->fuse_fd, 1);
}

/* In the spare: receive the stand-ins' stage (n records) into *st and
 * *si (static: the spare execs soon). 0 or -1. */
static int
spare_recv_si(int sock, uint32_t n, struct container_standin_stage *st)
{
	static struct render_bwrap_standin si[256];
	static char buf[sizeof(struct spare_si_head) + 256 *
	    sizeof(struct spare_si_rec) + 4096];
	struct spare_si_head h;
	struct spare_si_rec r;
	ssize_t got;
	size_t at = sizeof h, i;
	int fd;

	if (n == 0 || n > 256 || (got = spare_recv(sock, buf, sizeof buf - 1,
	    &fd, 1)) < (ssize_t)(sizeof h + n * sizeof r + 2))
		return -1;
	buf[got] = '\0';
	memcpy(&h, buf, sizeof h);
	if (h.magic != SPARE_MAGIC || buf[got - 1] != '\0')
		return -1;
	memset(st, 0, sizeof *st);
	for (i = 0; i < n; i++, at += sizeof r) {
		memcpy(&r, buf + at, sizeof r);
		memset(&si[i], 0, sizeof si[i]);
		si[i].overlay = r.overlay != 0;
		si[i].is_dir = r.overlay != 0;
		si[i].mode = r.mode & 07777;
		si[i].size_bytes = r.size_bytes;
	}
	if (strlen(buf + at) + 1 > sizeof st->dir || buf[at] != '/')
		return -1;
	snprintf(st->dir, sizeof st->dir, "%s", buf + at);
	st->fuse_fd = fd;
	st->fd_sock = -1;
	st->uid = (uid_t)h.uid;
	st->gid = (gid_t)h.gid;
	st->n = n;
	st->si = si;
	return 0;
}

/* Receive one message into buf (at most size) with exactly want fds into
 * fds (close-on-exec); its length, or -1. */
static ssize_t
spare_recv(int sock, void *buf, size_t size, int *fds, int want)
{
	char cbuf[CMSG_SPACE(sizeof(int) * SPARE_CHUNK)];
	struct iovec iov = { buf, size };
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;
	ssize_t n;
	int got = 0;

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof cbuf;
	while ((n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0)
		if (errno != EINTR)
			return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			got = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			if (got == want)
				memcpy(fds, CMSG_DATA(cm), sizeof(int) * (size_t)got);
		}
	if (n == 0 || got != want || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return -1;
	return n;
}

/* The spare itself (sboxd's binary started again, its socket at fd 3 and
 * the cgroups' procs files at 4 and 5): join the cgroups, say whether it
 * could, wait for the go, become bwrap. Never returns. */
static void
spare_child(int n, const char *bwrap, int staged)
{
	struct container_binds b = { 0 };
	static struct container_standin_stage si;
	struct container_cg own;
	struct spare_head h;
	const char *which = NULL;
	char *data, *p, *end, **argv;
	int src[6], e = 0, i, sock = SPARE_SOCK_FD;
	ssize_t n_in;
	size_t k;

	memset(&own, 0, sizeof own);
	own.n = n;
	for (i = 0; i < n; i++) {
		own.dirs[i] = "";
		own.procs_fd[i] = SPARE_SOCK_FD + 1 + i;
	}
	if (container_cgroup_join(&own, &which) < 0)
		e = errno ? errno : EIO;
	for (i = 0; i < own.n; i++)
		close(own.procs_fd[i]);
	if (e == 0 && staged && container_launch_stage(bwrap) < 0)
		e = errno ? errno : EIO;
	if (send(sock, &e, sizeof e, MSG_NOSIGNAL) != (ssize_t)sizeof e)
		_exit(125);
	if (e != 0) {
		/* said: never used; it waits to be dropped (sboxd's next take
		 * ends it, or its socket's end), so that it is reaped and its
		 * cgroups removed there, not by a race with the take */
		for (;;) {
			ssize_t r = read(sock, &e, sizeof e);

			if (r == 0 || (r < 0 && errno != EINTR))
				_exit(125);
		}
	}
	if ((data = malloc(SPARE_DATA_MAX)) == NULL)
		_exit(127);
	if ((n_in = spare_recv(sock, data, SPARE_DATA_MAX, src, 6)) <
	    (ssize_t)sizeof h)
		_exit(0);	/* sboxd gone, or dropped us */
	memcpy(&h, data, sizeof h);
	if (h.magic != SPARE_MAGIC || h.n > SPARE_BINDS_MAX || h.argc < 2 ||
	    (h.staged != 0) != (staged != 0) ||
	    h.argc > 64 || sizeof h + h.n * sizeof(int) >= (size_t)n_in ||
	    data[n_in - 1] != '\0')
		_exit(127);
	b.n = h.n;
	b.staged = h.staged;
	b.run_uid = (uid_t)h.run_uid;
	b.run_gid = (gid_t)h.run_gid;
	b.base_fd = -1;
	if ((b.fds = calloc(h.n + 1, sizeof *b.fds)) == NULL ||
	    (b.is_dir = calloc(h.n + 1, sizeof *b.is_dir)) == NULL ||
	    (argv = calloc(h.argc + 1, sizeof *argv)) == NULL)
		_exit(127);
	memcpy(b.is_dir, data + sizeof h, h.n * sizeof(int));
	p = data + sizeof h + h.n * sizeof(int);
	end = data + n_in;
	for (k = 0; k < h.argc; k++) {
		if (p >= end)
			_exit(127);
		argv[k] = p;
		p += strlen(p) + 1;
	}
	for (k = 0; k < h.n; k += SPARE_CHUNK) {
		int want = h.n - k < SPARE_CHUNK ? (int)(h.n - k) : SPARE_CHUNK;
		uint32_t at;

		if (spare_recv(sock, &at, sizeof at, b.fds + k, want) !=
		    (ssize_t)sizeof at || at != k)
			_exit(127);
	}
	if (h.n_si > 0) {
		if (spare_recv_si(sock, h.n_si, &si) < 0)
			_exit(127);
		b.si = &si;
	}
	close(sock);
	container_launch_exec(argv[0], argv + 1, src, &b, staged);
}

/* In sboxd's main, first: become the spare launcher when started as one
 * (SPARE_ENV); returns otherwise. */
void
container_spare_child(void)
{
	const char *spec = getenv(SPARE_ENV);
	char bwrap[PATH_MAX];
	int staged, n, at = 0;

	if (spec == NULL)
		return;
	if (sscanf(spec, "%d:%d:%n", &staged, &n, &at) != 2 || at == 0 ||
	    (staged != 0 && staged != 1) || n < 0 || n > 2 ||
	    spec[at] != '/' || strlen(spec + at) >= sizeof bwrap ||
	    fcntl(SPARE_SOCK_FD, F_GETFD) < 0) {
		fprintf(stderr, "sboxd: spare launcher: bad %s\n", SPARE_ENV);
		_exit(127);
	}
	snprintf(bwrap, sizeof bwrap, "%s", spec + at);
	unsetenv(SPARE_ENV);
	spare_child(n, bwrap, staged);
}

/* Start the spare: sboxd's binary again (posix_spawn: sboxd's pages are
 * neither copied nor shared), sock as fd 3, the cgroups' procs files as 4
 * and 5, nothing else of sboxd's but stdio, default signals, nothing
 * blocked. Its pid, or -1. */
static pid_t
spare_spawn(int sock, const struct container_cg *cg, const char *bwrap,
    int staged)
{
	static const char *const keep[] = { "ASAN_OPTIONS=", "UBSAN_OPTIONS=",
	    "LSAN_OPTIONS=", NULL };
	char spec[PATH_MAX + 64], *argv[] = { "sboxd: spare", NULL }, *env[8];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int hi[3] = { -1, -1, -1 }, i, k, e, nenv = 0;
	pid_t pid = -1;

	snprintf(spec, sizeof spec, "%s=%d:%d:%s", SPARE_ENV, staged, cg->n,
	    bwrap);
	env[nenv++] = spec;
	for (i = 0; environ != NULL && environ[i] != NULL && nenv < 7; i++)
		for (k = 0; keep[k] != NULL; k++)
			if (strncmp(environ[i], keep[k], strlen(keep[k])) == 0) {
				env[nenv++] = environ[i];
				break;
			}
	env[nenv] = NULL;
	/* the sources above the targets first, so that no dup2 clobbers one */
	if ((hi[0] = fcntl(sock, F_DUPFD_CLOEXEC, 16)) < 0)
		goto out;
	for (i = 0; i < cg->n; i++)
		if ((hi[1 + i] = fcntl(cg->procs_fd[i], F_DUPFD_CLOEXEC, 16)) < 0)
			goto out;
	if (posix_spawn_file_actions_init(&fa) != 0)
		goto out;
	if (posix_spawnattr_init(&at) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		goto out;
	}
	e = posix_spawn_file_actions_adddup2(&fa, hi[0], SPARE_SOCK_FD);
	for (i = 0; e == 0 && i < cg->n; i++)
		e = posix_spawn_file_actions_adddup2(&fa, hi[1 + i],
		    SPARE_SOCK_FD + 1 + i);
	if (e == 0)
		e = posix_spawn_file_actions_addclosefrom_np(&fa,
		    SPARE_SOCK_FD + 1 + cg->n);
	if (e == 0)
		e = container_launch_sigattr(&at);
	if (e == 0 && posix_spawn(&pid, "/proc/self/exe", &fa, &at, argv,
	    env) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
out:
	for (i = 0; i < 3; i++)
		if (hi[i] >= 0)
			close(hi[i]);
	return pid;
}

/* The waiting spare died: reap done (child.c), remove its cgroups. */
static void
spare_on_exit(pid_t pid, int status, void *arg)
{
	(void)arg;
	(void)status;
	if (spare_now.pid != pid)
		return;
	log_debug("the spare launcher %d ended while it waited", (int)pid);
	close(spare_now.sock);
	container_cgroup_cleanup(&spare_now.cg);
	free(spare_now.bwrap);
	memset(&spare_now, 0, sizeof spare_now);
}

/* End a spare: kill, reap, remove its cgroups. */
void
container_spare_drop(struct container_spare *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		child_reap_now(s->pid, 0);
	}
	if (s->sock >= 0)
		close(s->sock);
	container_cgroup_cleanup(&s->cg);
	free(s->bwrap);
	memset(s, 0, sizeof *s);
	s->sock = -1;
}

/* End the waiting spare, if any. */
static void
spare_drop_waiting(void)
{
	if (spare_now.pid > 0)
		container_spare_drop(&spare_now);
	memset(&spare_now, 0, sizeof spare_now);
}

/* Same cgroups for both limits? (container_cgroup_setup uses these two.) */
static int
spare_fits(const struct plan_limits *a, const struct plan_limits *b)
{
	return a->pids == b->pids && a->memory_bytes == b->memory_bytes;
}

/* Was the waiting spare made for l, this bwrap and staged binds or not? */
static int
spare_fits_now(const struct plan_limits *l, int staged, const char *bwrap)
{
	return spare_fits(&spare_now.limits, l) && spare_now.staged == staged &&
	    spare_now.bwrap != NULL && strcmp(spare_now.bwrap, bwrap) == 0;
}

/* Make a spare for spare_want now (from the loop). */
static void
spare_make(evutil_socket_t fd, short what, void *arg)
{
	struct container_spare s = { 0 };
	sbox_error err = { 0 };
	int sv[2], staged;
	pid_t pid;

	(void)fd;
	(void)what;
	(void)arg;
	spare_scheduled = 0;
	if (!container_cgroup_started())
		return;
	staged = geteuid() == 0;	/* a root sboxd stages the binds */
	if (spare_now.pid > 0) {
		if (spare_fits_now(&spare_want, staged, spare_want_bwrap))
			return;
		spare_drop_waiting();
	}
	if (container_cgroup_setup(&spare_want, &s.cg, &err) < 0) {
		log_debug("no spare launcher: %s", err.message);
		return;
	}
	if (s.cg.n == 0)
		return;		/* no cgroup to join: nothing to win */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		container_cgroup_cleanup(&s.cg);
		return;
	}
	if ((s.bwrap = strdup(spare_want_bwrap)) == NULL) {
		close(sv[0]);
		close(sv[1]);
		container_cgroup_cleanup(&s.cg);
		return;
	}
	pid = spare_spawn(sv[1], &s.cg, s.bwrap, staged);
	close(sv[1]);
	if (pid < 0 || child_watch(pid, spare_on_exit, NULL, &err) < 0) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			child_reap_now(pid, 0);
		}
		close(sv[0]);
		container_cgroup_cleanup(&s.cg);
		free(s.bwrap);
		return;
	}
	s.pid = pid;
	s.staged = staged;
	s.sock = sv[0];
	s.limits = spare_want;
	spare_now = s;
	log_debug("spare launcher %d in %s", (int)pid, s.cg.dirs[0]);
}

/* Make a spare for l soon, from the loop. */
void
container_spare_later(struct event_base *base, const struct plan_limits *l,
    const char *bwrap)
{
	spare_want = *l;
	snprintf(spare_want_bwrap, sizeof spare_want_bwrap, "%s", bwrap);
	if (!container_cgroup_started() || spare_scheduled)
		return;
	if (event_base_once(base, -1, EV_TIMEOUT, spare_make, NULL,
	    &(struct timeval){ 0, 0 }) == 0)
		spare_scheduled = 1;
}

/* poll() one descriptor for at most ms, again after a signal with what
 * is left of ms: poll's result. */
static int
spare_wait(struct pollfd *pfd, int ms)
{
	struct timespec t0, t1;
	int rc, left = ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((rc = poll(pfd, 1, left)) < 0 && errno == EINTR) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = ms - (int)((t1.tv_sec - t0.tv_sec) * 1000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return 0;
	}
	return rc;
}

/* Hand over the waiting spare when it fits l and has joined. */
int
container_spare_take(const struct plan_limits *l, int staged,
    const char *bwrap, struct container_spare *out)
{
	struct pollfd pfd;
	int e = EIO;
	ssize_t n;

	memset(out, 0, sizeof *out);
	out->sock = -1;
	if (spare_now.pid <= 0)
		return -1;
	if (!spare_fits_now(l, staged, bwrap)) {
		spare_drop_waiting();
		return -1;
	}
	/* its word on the join (long said, unless the creates come fast); a
	 * signal to sboxd (a child's end) is no reason to drop it */
	pfd.fd = spare_now.sock;
	pfd.events = POLLIN;
	if ((n = spare_wait(&pfd, SPARE_JOIN_MS)) != 1) {
		log_warn("the spare launcher %d said nothing of its join in %d "
		    "ms%s%s: not used", (int)spare_now.pid, SPARE_JOIN_MS,
		    n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
		spare_drop_waiting();
		return -1;
	}
	if ((n = recv(spare_now.sock, &e, sizeof e, MSG_DONTWAIT)) !=
	    (ssize_t)sizeof e) {
		log_warn("the spare launcher %d ended before it said whether it "
		    "joined its cgroup: not used", (int)spare_now.pid);
		spare_drop_waiting();
		return -1;
	}
	if (e != 0) {
		log_warn("the spare launcher could not join its cgroup %s (or "
		    "stage bwrap's mounts): %s", spare_now.cg.n > 0 ?
		    spare_now.cg.dirs[0] : "", strerror(e));
		spare_drop_waiting();
		return -1;
	}
	child_unwatch(spare_now.pid);
	log_debug("bwrap is the spare launcher %d", (int)spare_now.pid);
	*out = spare_now;
	memset(&spare_now, 0, sizeof spare_now);
	return 0;
}

/* Send a taken spare what to exec. */
int
container_spare_go(struct container_spare *s, const char *bwrap,
    char *const *argv, const int src[6], const struct container_binds *b,
    sbox_error *err)
{
	struct spare_head h = { SPARE_MAGIC, 0, 0, 0, 0, 0, 0 };
	char *data;
	size_t len, i, l;
	uint32_t at;

	if (b->n > SPARE_BINDS_MAX)
		return error_set(err, E_LIMIT, "more than %d binds",
		    SPARE_BINDS_MAX);
	h.n = (uint32_t)b->n;
	h.staged = b->staged;
	h.run_uid = (uint32_t)b->run_uid;
	h.run_gid = (uint32_t)b->run_gid;
	if (b->si != NULL && (b->si->fuse_fd < 0 || b->si->userns ||
	    b->si->n > 256))
		return error_set(err, E_INTERNAL, "these stand-ins cannot go "
		    "through the spare launcher");
	h.n_si = b->si != NULL ? (uint32_t)b->si->n : 0;
	if ((data = malloc(SPARE_DATA_MAX)) == NULL)
		return error_nomem(err);
	memcpy(data, &h, sizeof h);
	len = sizeof h;
	if (b->n > 0)
		memcpy(data + len, b->is_dir, b->n * sizeof(int));
	len += b->n * sizeof(int);
	for (i = 0; i == 0 || argv[i - 1] != NULL; i++) {
		const char *str = i == 0 ? bwrap : argv[i - 1];

		l = strlen(str) + 1;
		if (len + l > SPARE_DATA_MAX || i >= 64) {
			free(data);
			return error_set(err, E_INTERNAL, "bwrap's arguments "
			    "are too long for the spare launcher");
		}
		memcpy(data + len, str, l);
		len += l;
		h.argc++;
	}
	memcpy(data, &h, sizeof h);
	if (spare_send(s->sock, data, len, src, 6) < 0) {
		free(data);
		return error_set_errno(err, E_SANDBOX_SETUP, errno, "the spare "
		    "launcher");
	}
	free(data);
	for (i = 0; i < b->n; i += SPARE_CHUNK) {
		at = (uint32_t)i;
		if (spare_send(s->sock, &at, sizeof at, b->fds + i,
		    b->n - i < SPARE_CHUNK ? (int)(b->n - i) : SPARE_CHUNK) < 0)
			return error_set_errno(err, E_SANDBOX_SETUP, errno,
			    "the spare launcher");
	}
	if (h.n_si > 0 && spare_send_si(s->sock, b->si) < 0)
		return error_set_errno(err, E_SANDBOX_SETUP, errno, "the spare "
		    "launcher (stand-ins)");
	close(s->sock);
	s->sock = -1;
	free(s->bwrap);		/* it is bwrap now: its pid and cgroups stay */
	s->bwrap = NULL;
	return 0;
}

/* End the waiting spare and make no more. */
void
container_spare_stop(void)
{
	spare_drop_waiting();
}

/* The waiting spare's pid and cgroups (tests). */
pid_t
container_spare_waiting(const struct container_cg **cg)
{
	if (cg != NULL)
		*cg = spare_now.pid > 0 ? &spare_now.cg : NULL;
	return spare_now.pid;
}
