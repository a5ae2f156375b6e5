/* container-standin.c: a container's hidden areas served by stand-ins
 * (standin.c) instead of a seccomp notification per read-only open.
 *
 * sboxd decides once at start (container_standin_init): stand-ins are
 * used when SBOX_READS_BY=standins asks for them (opt-in for now); they
 * need /dev/fuse, overlayfs, and, as a user, a user namespace of the
 * launcher's own to mount them in: asked for and impossible, sboxd does
 * not start. Otherwise the seccomp reporter is used (reads are refused by
 * the mounts either way, only how a refusal is seen differs, and `sandbox
 * status` says which).
 *
 * Per container: render-bwrap.c names each hidden area's stand-in under a
 * stage folder; container_standin_start serves the areas (a FUSE
 * connection sboxd reads from its loop); the process that becomes bwrap
 * (container-launch.c) mounts the stage in a mount namespace of its own
 * (container_standin_mount): the stand-ins' file system, and for the home,
 * /run and each hidden folder an overlay of a tmpfs upper layer (sized as
 * the tmpfs it replaces) on its stand-in. bwrap then binds them like any
 * other folder. The FUSE connection's pid namespace is the launcher's (the
 * host's), so sboxd sees the host thread id of each reader.
 *
 * A refused read: the stand-ins hold the open's answer, sboxd tells
 * sbox-init fs_read {pid (as the sandbox numbers it), path, errno, token};
 * sbox-init reports it as any refusal of that process's command (refused,
 * told) and says fs_done {token} once the reader has been told; the open is
 * answered then (or after STANDIN_HOLD_MS). */
#include "daemon/container/container-standin.h"
#include "daemon/container/container-internal.h"
#include "daemon/container/container-bind.h"
#include "daemon/container/standin.h"
#include "daemon/container/userns.h"
#include "daemon/log.h"
#include "protocol/ctl.h"
#include "protocol/fdpass.h"
#include "policy/path.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CONTAINER_STANDIN_ROOT_STAGE "/tmp/s"  /* in root's staged /tmp */

static int  container_standin_on;
static char container_standin_user_stage[4096];
static char container_standin_why[256] = "not decided yet";

/* Become root of a new user namespace (uid and gid mapped to themselves)
 * with a mount namespace of its own; -1 with errno. */
static int
container_standin_userns(void)
{
	char map[64];
	uid_t u = getuid();
	gid_t g = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return -1;
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)u, (unsigned)u);
	if (userns_write("/proc/self/setgroups", "deny") < 0 ||
	    userns_write("/proc/self/uid_map", map) < 0)
		return -1;
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)g, (unsigned)g);
	return userns_write("/proc/self/gid_map", map);
}

/* Does overlayfs exist here (built in, or a module loaded)? */
static int
container_standin_have_overlay(void)
{
	char line[256];
	FILE *f = fopen("/proc/filesystems", "re");
	int found = 0;

	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof line, f) != NULL)
		found = strstr(line, "\toverlay\n") != NULL;
	fclose(f);
	return found;
}

/* In a child: can a launcher make its namespaces and mount a tmpfs on the
 * stage (the user's case)? Its exit status: 0, or the errno. */
static int
container_standin_probe(const char *stage)
{
	int st, e;
	pid_t pid = fork();

	if (pid == 0) {
		e = 0;
		if (getuid() != 0 && container_standin_userns() < 0)
			e = errno;
		else if (getuid() == 0 && unshare(CLONE_NEWNS) < 0)
			e = errno;
		else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV,
		    "size=64k,mode=0755") < 0)
			e = errno;
		_exit(e > 0 && e < 256 ? e : e ? 255 : 0);
	}
	if (pid < 0)
		return errno;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
}

/* Decide at start whether reads are reported through stand-ins: only
 * when SBOX_READS_BY=standins asks for them (opt-in for now: with them a
 * folder of the host's home shows inside as an empty folder, where the
 * seccomp reporter's home shows no host name); asked and impossible, sboxd
 * does not start. */
int
container_standin_init(const char *state_dir, sbox_error *err)
{
	const char *mode = getenv("SBOX_READS_BY"), *why;
	int e;

	container_standin_on = 0;
	if (mode == NULL || strcmp(mode, "standins") != 0) {
		snprintf(container_standin_why, sizeof container_standin_why,
		    "stand-ins are opt-in: SBOX_READS_BY=standins in sboxd's "
		    "environment");
		return 0;
	}
	snprintf(container_standin_user_stage,
	    sizeof container_standin_user_stage, "%s/stage", state_dir);
	if (mkdir(container_standin_user_stage, 0700) < 0 && errno != EEXIST)
		why = "the stage folder cannot be made";
	else if ((why = standin_available()) != NULL)
		;
	else if (!container_standin_have_overlay())
		why = "the kernel has no overlay file system";
	else if ((e = container_standin_probe(container_standin_user_stage)) != 0)
		why = e == EPERM || e == EACCES ? "a launcher may not make a user "
		    "namespace of its own here (restricted user namespaces)" :
		    strerror(e);
	if (why != NULL)
		return error_set(err, E_SANDBOX_UNAVAILABLE, "read reports by "
		    "stand-ins were asked for (SBOX_READS_BY=standins) and "
		    "cannot be: %s", why);
	container_standin_on = 1;
	container_standin_why[0] = '\0';
	return 0;
}

/* The stage folder, or NULL when stand-ins are off. */
const char *
container_standin_stage_dir(int drop_ids)
{
	if (!container_standin_on)
		return NULL;
	return drop_ids ? CONTAINER_STANDIN_ROOT_STAGE :
	    container_standin_user_stage;
}

/* Is src under a stage folder? */
int
container_standin_is_stage(const char *src)
{
	return container_standin_on && src != NULL &&
	    (path_is_under(src, CONTAINER_STANDIN_ROOT_STAGE) ||
	    path_is_under(src, container_standin_user_stage));
}

/* How reads are reported. */
const char *
container_standin_mechanism(const char **why)
{
	*why = container_standin_on ? NULL : container_standin_why;
	return container_standin_on ? "stand-ins" : "seccomp";
}

/* A refused read seen by c's stand-ins: sbox-init reports and tells it. */
static void
container_standin_on_read(void *arg, pid_t tid, const char *path, int err,
    uint64_t token)
{
	struct container *c = arg;
	sbox_error e = { 0 };
	json_t *m;

	m = ctl_msg("fs_read", "{s:i,s:s,s:i,s:I}", "pid", (int)tid, "path",
	    path, "errno", err, "token", (json_int_t)token);
	if (m == NULL || c->state != CS_READY ||
	    container_ctl_send(c, m, NULL, 0, &e) < 0)
		standin_release(c->standin, token);
	json_decref(m);
}

/* The launcher sent the device it opened (or went away). */
static void
container_standin_on_sock(evutil_socket_t fd, short what, void *arg)
{
	struct container *c = arg;
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec v = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1,
	    .msg_control = cbuf, .msg_controllen = sizeof cbuf };
	struct cmsghdr *cm;
	int dev = -1;

	(void)what;
	if (recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT) > 0 &&
	    (cm = CMSG_FIRSTHDR(&mh)) != NULL && cm->cmsg_level == SOL_SOCKET &&
	    cm->cmsg_type == SCM_RIGHTS && cm->cmsg_len == CMSG_LEN(sizeof dev))
		memcpy(&dev, CMSG_DATA(cm), sizeof dev);
	if (dev >= 0 && standin_attach(c->standin, dev) < 0)
		log_warn("the stand-ins' device came twice");
	event_free(c->ev_standin);
	c->ev_standin = NULL;
	close(c->standin_sock);
	c->standin_sock = -1;
}

/* After the launcher's fork: sboxd's copy of its end goes. */
void
container_standin_spawned(struct container *c)
{
	if (c->standin_stage != NULL && c->standin_stage->fd_sock >= 0) {
		close(c->standin_stage->fd_sock);
		c->standin_stage->fd_sock = -1;
	}
}

/* Serve c's stand-ins and fill b->si. */
int
container_standin_start(struct container *c,
    const struct render_bwrap_result *rr, int drop_ids, uid_t uid, gid_t gid,
    struct container_binds *b, sbox_error *err)
{
	struct standin_area *a;
	struct container_standin_stage *st;
	const char *dir = container_standin_stage_dir(drop_ids);
	size_t i;
	int fd, userns;

	if (rr->n_standins == 0 || dir == NULL)
		return 0;
	if ((a = calloc(rr->n_standins, sizeof *a)) == NULL ||
	    (st = calloc(1, sizeof *st)) == NULL) {
		free(a);
		return error_nomem(err);
	}
	for (i = 0; i < rr->n_standins; i++) {
		a[i].path = rr->standins[i].path;
		a[i].is_dir = rr->standins[i].is_dir;
		a[i].report_root = rr->standins[i].report_root;
		a[i].open_err = rr->standins[i].open_err;
	}
	userns = !drop_ids && getuid() != 0;
	fd = -1;
	c->standin = standin_new(c->base, a, rr->n_standins, uid, gid,
	    container_standin_on_read, c, userns ? NULL : &fd, err);
	free(a);
	if (c->standin == NULL) {
		free(st);
		return error_context(err, "the hidden areas' stand-ins");
	}
	/* the launcher reads the list before its exec: keep a copy */
	if ((c->standin_si = calloc(rr->n_standins, sizeof *c->standin_si)) ==
	    NULL) {
		free(st);
		return error_nomem(err);
	}
	memcpy(c->standin_si, rr->standins, rr->n_standins *
	    sizeof *c->standin_si);
	for (i = 0; i < rr->n_standins; i++)
		c->standin_si[i].path = NULL; /* not needed there */
	st->fuse_fd = fd;
	st->fd_sock = -1;
	if (userns) {
		/* the launcher's user namespace mounts only a device opened
		 * there: it sends it back */
		int sp[2];

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
			free(st);
			return error_set_errno(err, E_SANDBOX_SETUP, errno,
			    "socketpair");
		}
		c->standin_sock = sp[0];
		st->fd_sock = sp[1];
		c->ev_standin = event_new(c->base, sp[0], EV_READ | EV_PERSIST,
		    container_standin_on_sock, c);
		if (c->ev_standin == NULL || event_add(c->ev_standin, NULL) < 0) {
			free(st);
			return error_nomem(err);
		}
	}
	snprintf(st->dir, sizeof st->dir, "%s", dir);
	st->userns = userns;
	st->uid = uid;
	st->gid = gid;
	st->n = rr->n_standins;
	st->si = c->standin_si;
	c->standin_stage = st;
	b->si = st;
	return 0;
}

/* mkdir path with mode (chmod'ed: no umask) owned by uid:gid; -1. */
static int
container_standin_mkdir(const char *path, unsigned mode, uid_t uid, gid_t gid)
{
	if ((mkdir(path, mode) < 0 && errno != EEXIST) || chmod(path, mode) < 0)
		return -1;
	if (getuid() == 0 && chown(path, uid, gid) < 0)
		return -1;
	return 0;
}

/* In the process that becomes bwrap: mount the stage. */
int
container_standin_mount(const struct container_standin_stage *st,
    const char **what)
{
	char p[4200], q[4200], opts[13000];
	size_t i;
	int fd;

	*what = "a user namespace of its own";
	if (st->userns && container_standin_userns() < 0)
		return -1;
	if (!st->userns && getuid() == 0 &&
	    strcmp(st->dir, CONTAINER_STANDIN_ROOT_STAGE) != 0) {
		*what = "a mount namespace of its own";
		if (unshare(CLONE_NEWNS) < 0)
			return -1;
	}
	*what = "a private mount tree";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	*what = "the stage";
	if ((strcmp(st->dir, CONTAINER_STANDIN_ROOT_STAGE) == 0 &&
	    mkdir(st->dir, 0755) < 0 && errno != EEXIST) ||
	    mount("tmpfs", st->dir, "tmpfs", MS_NOSUID | MS_NODEV,
	    "size=64k,mode=0755") < 0)
		return -1;
	fd = st->fuse_fd;
	*what = "/dev/fuse";
	if (fd < 0 && (fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) < 0)
		return -1;
	snprintf(p, sizeof p, "%s/f", st->dir);
	snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=%u,"
	    "group_id=%u,allow_other,default_permissions", fd,
	    (unsigned)st->uid, (unsigned)st->gid);
	*what = "the stand-ins' file system";
	if (mkdir(p, 0755) < 0 || mount("sbox", p, "fuse.sbox", MS_NOSUID |
	    MS_NODEV | MS_NOEXEC | MS_RDONLY, opts) < 0)
		return -1;
	if (st->fd_sock >= 0) {
		char byte = 0, cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec v = { &byte, 1 };
		struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1 };

		*what = "the stand-ins' device sent to sboxd";
		if (fdpass_put(&mh, cbuf, sizeof cbuf, &fd, 1) < 0 ||
		    sendmsg(st->fd_sock, &mh, MSG_NOSIGNAL) < 0)
			return -1;
		close(st->fd_sock);
		close(fd);
	}
	for (i = 0; i < st->n; i++) {
		const struct render_bwrap_standin *s = &st->si[i];

		if (!s->overlay)
			continue;
		*what = "an upper layer";
		snprintf(p, sizeof p, "%s/u%zu", st->dir, i);
		snprintf(opts, sizeof opts, "size=%llu,mode=0755",
		    s->size_bytes ? s->size_bytes : 1048576ULL);
		if (mkdir(p, 0755) < 0 || mount("tmpfs", p, "tmpfs", MS_NOSUID |
		    MS_NODEV, opts) < 0)
			return -1;
		snprintf(q, sizeof q, "%s/u%zu/up", st->dir, i);
		if (container_standin_mkdir(q, s->mode, st->uid, st->gid) < 0)
			return -1;
		snprintf(q, sizeof q, "%s/u%zu/wk", st->dir, i);
		if (container_standin_mkdir(q, 0700, st->uid, st->gid) < 0)
			return -1;
		snprintf(q, sizeof q, "%s/o%zu", st->dir, i);
		if (mkdir(q, 0755) < 0)
			return -1;
		*what = "an overlay on a stand-in";
		snprintf(opts, sizeof opts, "lowerdir=%s/f/a%zu,upperdir=%s/up,"
		    "workdir=%s/wk,metacopy=off%s", st->dir, i, p, p, st->userns ?
		    ",userxattr" : "");
		if (mount("overlay", q, "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
			return -1;
	}
	return 0;
}

/* sbox-init told the refusal: answer the held open. */
void
container_standin_done(struct container *c, json_t *m)
{
	json_t *t = json_object_get(m, "token");

	if (c->standin != NULL && json_is_integer(t) &&
	    json_integer_value(t) > 0)
		standin_release(c->standin, (uint64_t)json_integer_value(t));
}

/* Release c's stand-ins. */
void
container_standin_free(struct container *c)
{
	if (c->ev_standin != NULL) {
		event_free(c->ev_standin);
		c->ev_standin = NULL;
	}
	if (c->standin_sock >= 0)
		close(c->standin_sock);
	c->standin_sock = -1;
	container_standin_spawned(c);
	standin_free(c->standin);
	c->standin = NULL;
	free(c->standin_si);
	c->standin_si = NULL;
	free(c->standin_stage);
	c->standin_stage = NULL;
}

/* c's stand-ins for status. */
json_t *
container_standin_describe(const struct container *c)
{
	uint64_t req, reads;

	if (c->standin == NULL)
		return NULL;
	standin_counts(c->standin, &req, &reads);
	return json_pack("{s:s,s:I,s:I}", "reads_by", "stand-ins", "requests",
	    (json_int_t)req, "reads_seen", (json_int_t)reads);
}
