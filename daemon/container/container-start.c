/* container-start.c: starting a session's container (the plan rendered
 * into the memfds bwrap reads, every bind held as a descriptor, bwrap
 * spawned with an empty environment in the container's cgroups) and
 * following it from the event loop until bwrap ends: sbox-init's messages
 * (container-req.c), bwrap's stderr, the start timeout, and the end, when
 * whoever waits is told. See container.h for the life cycle and the
 * callbacks' contract. */
#include "daemon/container/container.h"
#include "daemon/container/container-internal.h"
#include "daemon/container/container-standin.h"
#include "daemon/container/container-bind.h"
#include "daemon/container/container-launch.h"
#include "daemon/container/child.h"
#include "daemon/log.h"
#include "protocol/ctl.h"
#include "policy/render-bwrap.h"
#include "policy/guard.h"
#include "policy/render-seccomp.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void container_start_finish(struct container *c);

/* The bwrap binary: the configured one, else "bwrap" in PATH. */
static char *
container_start_find_bwrap(const char *configured, sbox_error *err)
{
	const char *path, *p, *colon;
	char buf[4096];
	size_t n;

	if (configured != NULL && configured[0] != '\0') {
		if (access(configured, X_OK) == 0)
			return strdup(configured);
		if (errno == ENOENT)
			error_set(err, E_SANDBOX_UNAVAILABLE, "bwrap is not "
			    "installed at %s: apt install bubblewrap (or set the "
			    "path to bwrap)", configured);
		else
			error_set_errno(err, E_SANDBOX_UNAVAILABLE, errno,
			    "cannot run bwrap at %s (give the path of an "
			    "executable bwrap)", configured);
		return NULL;
	}
	path = getenv("PATH");
	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		n = colon ? (size_t)(colon - p) : strlen(p);
		if (n > 0 && n + 7 < sizeof buf && p[0] == '/') {
			memcpy(buf, p, n);
			memcpy(buf + n, "/bwrap", 7);
			if (access(buf, X_OK) == 0)
				return strdup(buf);
		}
		if (colon == NULL)
			break;
	}
	error_set(err, E_SANDBOX_UNAVAILABLE,
	    "bwrap is not installed: apt install bubblewrap");
	return NULL;
}

/* As root, bwrap starts in a mount namespace of its own whose /tmp is an
 * empty tmpfs (container_launch_stage): a bwrap that lies under /tmp is
 * not there to exec. Refuse it before the spawn, saying why (the exec's
 * "No such file or directory" names a file that exists). 0, or -1 with err. */
static int
container_start_check_staged_bwrap(const char *bwrap, sbox_error *err)
{
	char real[PATH_MAX];
	const char *p = realpath(bwrap, real) != NULL ? real : bwrap;

	if (strcmp(p, "/tmp") != 0 && strncmp(p, "/tmp/", 5) != 0)
		return 0;
	error_set(err, E_SANDBOX_UNAVAILABLE, "bwrap at %s lies under /tmp, "
	    "which sboxd replaces with an empty tmpfs while it sets up a "
	    "sandbox as root, so it cannot run from there: install bwrap "
	    "elsewhere (apt install bubblewrap puts it in /usr/bin) or set "
	    "the path to a bwrap outside /tmp (sboxd --bwrap PATH)", p);
	return -1;
}

/* stderr pipe readable. */
static void
container_start_on_err(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	container_read_err(arg);
}

/* Control socket readable. */
static void
container_start_on_ctl(evutil_socket_t fd, short what, void *arg)
{
	struct container *c = arg;
	sbox_error err = { 0 };
	int fds[CTL_FDS_MAX], nfds, rc, i;
	json_t *m;

	(void)fd;
	(void)what;
	for (i = 0; i < 64 && c->ev_ctl != NULL; i++) {
		rc = ctl_recv(c->ctl, &m, fds, &nfds, 3, &err);
		if (rc == CTL_AGAIN)
			return;
		if (rc == CTL_MSG) {
			rc = container_req_msg(c, m, fds, nfds, &err);
			ctl_close_fds(fds, nfds);
			json_decref(m);
			if (rc == 0)
				continue;
			/* the one reason the channel gave, logged once */
			log_warn("session sandbox: %s", err.message);
			error_set(&err, E_SANDBOX_SETUP, "sbox-init sent an "
			    "unexpected message");
		} else if (rc == CTL_EOF)
			error_set(&err, E_SANDBOX_SETUP,
			    "the sandbox's init process ended");
		/* EOF, error or violation: the container must end. */
		event_free(c->ev_ctl);
		c->ev_ctl = NULL;
		if (c->state == CS_STARTING && rc == CTL_EOF) {
			/* bwrap's stderr will say why: let it exit. */
			if (c->pid > 0 && !c->reaped)
				kill(c->pid, SIGKILL);
		} else
			container_abort(c, err.name, err.message);
		return;
	}
}

/* bwrap exited (reaped by child.c). */
static void
container_start_on_exit(pid_t pid, int status, void *arg)
{
	struct container *c = arg;

	(void)pid;
	c->reaped = 1;
	c->status = status;
	container_read_err(c);
	container_start_finish(c);
}

/* Start timeout (kill) or close timeout (SIGKILL). */
static void
container_start_on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct container *c = arg;
	char msg[128];

	(void)fd;
	(void)what;
	if (c->state == CS_STARTING) {
		snprintf(msg, sizeof msg, "the sandbox was not ready within "
		    "%d ms", c->timeout_ms);
		container_abort(c, E_SANDBOX_SETUP, msg);
	} else if (c->pid > 0 && !c->reaped)
		kill(c->pid, SIGKILL);
}

/* bwrap is gone: clean up and tell whoever waits. */
static void
container_start_finish(struct container *c)
{
	enum container_state was = c->state;
	sbox_error err = { 0 };

	c->state = CS_DEAD;
	container_teardown(c);
	if (was == CS_STARTING) {
		/* bwrap's own words first; else why we ended it. */
		if (c->errlen > 0 || !c->have_why)
			container_explain(c->errbuf, c->status, &err);
		else
			err = c->why;
	} else if (c->have_why)
		err = c->why;
	else
		error_set(&err, E_SANDBOX_SETUP, "the sandbox ended (status "
		    "%d)", c->status);
	container_req_fail_all(c);
	if (was == CS_STARTING && c->on_ready)
		c->on_ready(c, &err, c->arg);
	else if (was == CS_READY && c->on_dead)
		c->on_dead(c, &err, c->arg);
	else if (was == CS_CLOSING) {
		if (c->on_closed)
			c->on_closed(c, c->closed_arg);
		event_base_once(c->base, -1, EV_TIMEOUT, container_free, c,
		    &(struct timeval){ 0, 0 });
	}
}

/* A memfd holding data, positioned at 0; -1 with err. */
static int
container_start_memfd(const char *name, const char *data, size_t len,
    sbox_error *err)
{
	size_t off = 0;
	ssize_t n;
	int fd;

	if ((fd = memfd_create(name, MFD_CLOEXEC)) < 0)
		return error_set_errno(err, E_INTERNAL, errno, "memfd_create");
	while (off < len) {
		n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return error_set_errno(err, E_INTERNAL, errno,
			    "writing bwrap's arguments");
		}
		off += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return error_set_errno(err, E_INTERNAL, errno, "lseek");
	}
	return fd;
}

/* Start bwrap: fds 0,1 = /dev/null, 2 = errw, 3 = ctl, 4 = args,
 * 5 = seccomp, the held binds; nothing else; in the container's cgroups
 * (c->cg): through the spare when one is given (its process, already in
 * them, execs bwrap), else a fork that joins them first and fails when it
 * cannot; with no cgroup and nothing staged, posix_spawn (no fork of
 * sboxd). The pid, or -1 with err. */
static pid_t
container_start_spawn_bwrap(struct container *c, const char *bwrap,
    char *const *cmd, const int fds[4], const struct container_binds *b,
    struct container_spare *spare, sbox_error *err)
{
	char *argv[16] = { "bwrap", "--args", "4", "--" };
	int src[6], i;
	const char *which = NULL;
	pid_t pid;

	for (i = 0; cmd[i] != NULL && i + 5 < 16; i++)
		argv[4 + i] = cmd[i];
	argv[4 + i] = NULL;
	if ((src[0] = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		error_set_errno(err, E_INTERNAL, errno, "/dev/null");
		return -1;
	}
	src[1] = src[0];
	for (i = 0; i < 4; i++)
		src[2 + i] = fds[i];
	if (spare != NULL) {
		pid = container_spare_go(spare, bwrap, argv, src, b, err) < 0 ?
		    -1 : spare->pid;
		close(src[0]);
		return pid;
	}
	if (c->cg.n == 0 && !b->staged && b->si == NULL) {	/* nothing to
		do before exec */
		pid = container_launch_spawn(bwrap, argv, src, b, err);
		close(src[0]);
		return pid;
	}
	pid = fork();
	if (pid == 0) {
		if (container_cgroup_join(&c->cg, &which) < 0) {
			dprintf(src[2], "sboxd: cannot put the sandbox in its "
			    "cgroup %s: %s\n", which, strerror(errno));
			_exit(126);
		}
		container_launch_exec(bwrap, argv, src, b, 0);
	}
	if (pid < 0)
		error_set_errno(err, E_INTERNAL, errno, "cannot start bwrap");
	close(src[0]);
	return pid;
}

/* Free a NULL-terminated vector. */
static void
container_start_free_strv(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Hold every bind of the rendered arguments as a descriptor, as the uid
 * the sandbox runs as (container-bind.c). */
static int
container_start_hold(struct container *c, const struct plan *p,
    const struct container_opts *o, struct render_bwrap_result *rr,
    struct container_binds *b, sbox_error *err)
{
	struct container_ids ids;
	struct stat st;
	int rc;

	(void)c;
	memset(&ids, 0, sizeof ids);
	ids.run_uid = o->drop_ids ? o->run_uid : (uid_t)-1;
	ids.run_gid = o->drop_ids ? o->run_gid : (gid_t)-1;
	ids.held_path = o->held_path;
	ids.held_fd = o->held_path != NULL ? o->held_fd : -1;
	ids.fd_base = CFD_BINDS;
	ids.owner = getuid();
	ids.gowner = getgid();
	if ((ids.held_fd >= 0 && fstat(ids.held_fd, &st) == 0) ||
	    (p->project != NULL && stat(p->project, &st) == 0)) {
		ids.owner = st.st_uid;
		ids.gowner = st.st_gid;
	}
	if (container_bind_roots(p, &ids, err) < 0)
		return -1;
	rc = container_bind_hold(&rr->argv, &rr->argc, &ids, b, err);
	container_bind_roots_free(&ids);
	return rc;
}

/* Render the plan into the memfds bwrap reads; *cmd gets sbox-init's. */
static int
container_start_render(struct container *c, const struct plan *p,
    const struct container_opts *o, int *args_fd, int *seccomp_fd,
    char ***cmd, struct container_binds *binds, sbox_error *err)
{
	struct render_bwrap_opts ro = { 0 };
	struct render_bwrap_result rr = { 0 };
	char *blob = NULL;
	size_t len;
	int rc = -1;

	*args_fd = *seccomp_fd = -1;
	ro.init_path = o->init_path;
	ro.ctl_fd = CFD_CTL;
	ro.seccomp_fd = CFD_SECCOMP;
	ro.proxy_port = c->proxy_port;
	ro.hide_file_src = o->hide_file_src;
	ro.standin_stage = p->guard != NULL && p->guard->n_rules != 0 ?
	    container_standin_stage_dir(o->drop_ids) : NULL;
	if (render_bwrap(p, &ro, &rr, err) < 0)
		return error_context(err, "rendering the sandbox");
	if (container_start_hold(c, p, o, &rr, binds, err) < 0)
		goto out;
	if (container_standin_start(c, &rr, o->drop_ids, o->drop_ids ?
	    o->run_uid : getuid(), o->drop_ids ? o->run_gid : getgid(), binds,
	    err) < 0)
		goto out;
	if (render_bwrap_blob(&rr, &blob, &len, err) < 0)
		goto out;
	if (render_seccomp(p->syscalls, seccomp_fd, err) < 0)
		goto out;
	if ((*args_fd = container_start_memfd("sbox-bwrap-args", blob, len,
	    err)) < 0)
		goto out;
	*cmd = rr.cmd;
	rr.cmd = NULL;
	rr.cmdc = 0;
	rc = 0;
out:
	if (rc < 0) {
		if (*args_fd >= 0)
			close(*args_fd);
		if (*seccomp_fd >= 0)
			close(*seccomp_fd);
		*args_fd = *seccomp_fd = -1;
	}
	free(blob);
	render_bwrap_free(&rr);
	return rc;
}

/* Start a container for plan p. */
struct container *
container_start(const struct plan *p, const struct container_opts *o,
    sbox_error *err)
{
	struct container *c;
	int sp[2] = { -1, -1 }, ep[2] = { -1, -1 }, args = -1, sec = -1, fds[4];
	struct container_spare spare;
	char *bwrap = NULL, **cmd = NULL;
	struct container_binds binds = { 0 };
	const char *why;
	char msg[256];

	if (o->base == NULL || o->init_path == NULL) {
		error_set(err, E_INTERNAL, "container: no event base or init");
		return NULL;
	}
	if (child_init(o->base, err) < 0)
		return NULL;
	if ((bwrap = container_start_find_bwrap(o->bwrap_path, err)) == NULL)
		return NULL;
	if (access(o->init_path, X_OK) != 0) {
		error_set_errno(err, E_SANDBOX_UNAVAILABLE, errno,
		    "sbox-init is not installed at %s", o->init_path);
		free(bwrap);
		return NULL;
	}
	if ((c = calloc(1, sizeof *c)) == NULL) {
		free(bwrap);
		error_nomem(err);
		return NULL;
	}
	c->base = o->base;
	c->ctl = c->errfd = c->standin_sock = -1;
	c->proxy_fds[0] = c->proxy_fds[1] = -1;
	c->proxy_port = o->proxy_port > 0 && o->proxy_port < 65536 ?
	    o->proxy_port : RENDER_BWRAP_PROXY_PORT;
	c->timeout_ms = o->start_timeout_ms > 0 ? o->start_timeout_ms : 10000;
	c->on_ready = o->on_ready;
	c->on_dead = o->on_dead;
	c->arg = o->arg;
	c->limits = p->limits;
	c->on_refused = o->on_refused;
	c->on_exclude = o->on_exclude;
	c->t_start = container_now_ms();
	c->cwd = strdup(p->cwd && p->cwd[0] == '/' ? p->cwd : "/");
	if (c->cwd == NULL) {
		error_nomem(err);
		goto fail;
	}
	if (container_start_render(c, p, o, &args, &sec, &cmd, &binds, err) < 0)
		goto fail;
	if (binds.staged && container_start_check_staged_bwrap(bwrap, err) < 0)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0 ||
	    pipe2(ep, O_CLOEXEC) < 0) {
		error_set_errno(err, E_INTERNAL, errno, "socketpair/pipe");
		goto fail;
	}
	c->pid = -1;
	fds[0] = ep[1];
	fds[1] = sp[1];
	fds[2] = args;
	fds[3] = sec;
	/* a spare made ahead for these limits, already in its cgroups */
	if ((binds.si == NULL || (binds.si->fuse_fd >= 0 && !binds.si->userns)) &&
	    container_spare_take(&p->limits, binds.staged, bwrap, &spare) == 0) {
		c->cg = spare.cg;
		c->pid = container_start_spawn_bwrap(c, bwrap, cmd, fds, &binds,
		    &spare, err);
		if (c->pid < 0) {	/* it is gone: start as without one */
			log_warn("the spare launcher failed (%s); starting bwrap "
			    "without it", err->message);
			error_clear(err);
			spare.cg = c->cg;
			container_spare_drop(&spare);
			memset(&c->cg, 0, sizeof c->cg);
		}
	}
	if (c->pid < 0) {
		if (container_cgroup_setup(&p->limits, &c->cg, err) < 0)
			goto fail;
		c->pid = container_start_spawn_bwrap(c, bwrap, cmd, fds, &binds,
		    NULL, err);
	}
	container_standin_spawned(c);
	/* the next create's spare, made while this bwrap starts */
	if (c->pid > 0 && c->cg.n > 0)
		container_spare_later(c->base, &p->limits, bwrap);
	container_bind_free(&binds);
	container_start_free_strv(cmd);
	cmd = NULL;
	if (c->pid < 0)
		goto fail;
	if (child_watch(c->pid, container_start_on_exit, c, err) < 0) {
		kill(c->pid, SIGKILL);
		child_reap_now(c->pid, 0);
		goto fail;
	}
	close(sp[1]);
	close(ep[1]);
	close(args);
	close(sec);
	c->ctl = sp[0];
	c->errfd = ep[0];
	fcntl(c->ctl, F_SETFL, O_NONBLOCK);
	fcntl(c->errfd, F_SETFL, O_NONBLOCK);
	c->ev_ctl = event_new(c->base, c->ctl, EV_READ | EV_PERSIST,
	    container_start_on_ctl, c);
	c->ev_err = event_new(c->base, c->errfd, EV_READ | EV_PERSIST,
	    container_start_on_err, c);
	c->ev_timer = evtimer_new(c->base, container_start_on_timer, c);
	c->ev_ctl_out = event_new(c->base, c->ctl, EV_WRITE,
	    container_on_ctl_out, c);
	c->ctlq = ctl_queue_new();
	if (c->ev_ctl == NULL || c->ev_err == NULL || c->ev_timer == NULL ||
	    c->ev_ctl_out == NULL || c->ctlq == NULL) {
		/* Cannot watch it: end it now (on_exit will not run). */
		child_reap_now(c->pid, 0);
		c->reaped = 1;
		error_nomem(err);
		container_teardown(c);
		container_free(-1, 0, c);
		free(bwrap);
		return NULL;
	}
	event_add(c->ev_ctl, NULL);
	event_add(c->ev_err, NULL);
	event_add(c->ev_timer, &(struct timeval){ c->timeout_ms / 1000,
	    (c->timeout_ms % 1000) * 1000 });
	/* the file guard's spec is made and goes now, while bwrap starts:
	 * sbox-init reads it once it has said ready, and no command runs
	 * before guarded (a failure here ends bwrap: the start fails); a plan
	 * without a guard (tests) still gets one: no roots */
	if ((c->guard = container_guard_spec(p->guard, c->standin != NULL,
	    &why)) == NULL) {
		snprintf(msg, sizeof msg, "the file guard cannot be set up: %s",
		    why);
		container_abort(c, E_SANDBOX_SETUP, msg);
	} else
		container_guard_send(c);
	free(bwrap);
	return c;
fail:
	if (sp[0] >= 0) {
		close(sp[0]);
		close(sp[1]);
	}
	if (ep[0] >= 0) {
		close(ep[0]);
		close(ep[1]);
	}
	if (args >= 0)
		close(args);
	if (sec >= 0)
		close(sec);
	container_cgroup_cleanup(&c->cg);
	container_bind_free(&binds);
	container_start_free_strv(cmd);
	json_decref(c->guard);
	free(c->cwd);
	free(c);
	free(bwrap);
	return NULL;
}

/* Milliseconds from container_start() to ready (0 before). */
long long
container_start_ms(const struct container *c)
{
	return c->t_ready ? c->t_ready - c->t_start : 0;
}

/* Stop making containers' spares and cgroups (sboxd's shutdown): the
 * waiting spare ends with its cgroups, then removals stop being retried. */
void
container_start_shutdown(void)
{
	container_spare_stop();
	container_cgroup_stop();
}
