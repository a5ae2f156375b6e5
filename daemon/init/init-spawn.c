/* init-spawn.c: sbox-init's commands: spawn, exec status, reaping, kill,
 * timeouts. A command runs in its own session and process group; its exec
 * result comes back through a close-on-exec pipe that the poll loop reads,
 * so sbox-init never waits on one child. What the child does before its
 * exec, and a spare made ahead, is init-child.c. */
#include "protocol/ctl.h"
#include "daemon/init/init-killtree.h"
#include "daemon/init/init-msg.h"
#include "daemon/init/init-child.h"
#include "daemon/init/init-spawn.h"
#include "daemon/init/init-spawnreq.h"
#include "daemon/init/init-supervise.h"
#include "daemon/init/init-tty.h"
#include "protocol/ttysize.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define INIT_CHILDREN_MAX 1024
#define INIT_SPARE_WAIT_MS 200  /* for a spare's listener, then a fork */

/* A running command. */
struct init_child {
	json_int_t         id;
	pid_t              pid;
	int                pipe;      /* exec status, -1 once known */
	int                failed;    /* exec failed: no exit is reported */
	int                kill_group;/* kill the group when the leader exits */
	int                timed_out;
	long long          deadline;  /* monotonic ms, 0 = none */
	int                reaped;    /* exited before its exec status was read */
	int                status;
	int                master;    /* its terminal's master until sent */
	int                err_known; /* err_dev/err_ino: the stderr it got */
	dev_t              err_dev;
	ino_t              err_ino;
	struct init_child *next;
};

static struct init_child *init_children;
static int init_nchildren;

/* A child forked ahead of the next command, its file guard already in
 * place (installing a seccomp filter costs the kernel a JIT compile and a
 * pass over every syscall number: it is done while nothing waits). It
 * waits for its request on `req`; its listener waits on `guard` for
 * init_supervise_adopt; `pipe` is its exec status as for any command. */
static struct {
	pid_t pid;     /* 0: none */
	int   pipe;
	int   guard;
	int   req;
} init_spare = { 0, -1, -1, -1 };

/* The child with this id or pid (pid used when id < 0). */
static struct init_child *
init_spawn_find(json_int_t id, pid_t pid)
{
	struct init_child *c;

	for (c = init_children; c != NULL; c = c->next)
		if ((id >= 0 && c->id == id) || (id < 0 && c->pid == pid))
			return c;
	return NULL;
}

/* Forget the spare (killed when it is still there). */
static void
init_spawn_spare_drop(int kill_it)
{
	if (init_spare.pid > 0 && kill_it)
		kill(init_spare.pid, SIGKILL);
	if (init_spare.pipe >= 0)
		close(init_spare.pipe);
	if (init_spare.guard >= 0)
		close(init_spare.guard);
	if (init_spare.req >= 0)
		close(init_spare.req);
	init_spare.pid = 0;
	init_spare.pipe = init_spare.guard = init_spare.req = -1;
}

/* Fork a spare when there is none, the file guard is ready and no command
 * runs (so that its set-up takes no time from one). */
void
init_spawn_spare(void)
{
	int p[2], g[2], q[2];
	pid_t pid;

	if (init_spare.pid > 0 || init_nchildren > 0 ||
	    init_supervise_unready() != NULL)
		return;
	init_child_sigs_scan();
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, g) < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, q) < 0) {
		close(p[0]);
		close(p[1]);
		close(g[0]);
		close(g[1]);
		return;
	}
	if ((pid = fork()) == 0) {
		init_children = NULL;	/* the parent's, not the spare's */
		init_child_spare(p[1], g[1], q[1]);
	}
	close(p[1]);
	close(g[1]);
	close(q[1]);
	if (pid < 0) {
		close(p[0]);
		close(g[0]);
		close(q[0]);
		return;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	init_spare.pid = pid;
	init_spare.pipe = p[0];
	init_spare.guard = g[0];
	init_spare.req = q[0];
}

/* Hand a checked request to the spare: its listener adopted for the
 * command, the message and descriptors sent; its pid, or -1 (the spare is
 * gone then, and nothing of the command ran). */
static pid_t
init_spawn_use_spare(const struct init_spawnreq *r, json_t *msg,
    const char *text, size_t len, int *fds, int nfds, int *pipefd)
{
	sbox_error err = { 0 };
	pid_t pid = init_spare.pid;

	struct pollfd pf = { .fd = init_spare.guard, .events = POLLIN };
	int rc;

	if (pid <= 0 || r->tty)
		return -1;
	/* a process of the sandbox (same uid) may have stopped it */
	kill(pid, SIGCONT);
	/* a spare that is still setting up is not waited for long: the
	 * command gets a fork */
	do
		rc = poll(&pf, 1, INIT_SPARE_WAIT_MS);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0) {
		init_spawn_spare_drop(1);
		return -1;
	}
	/* the message as sboxd sent it (the spare parses and checks it
	 * again): not encoded a second time */
	if (init_supervise_adopt(init_spare.guard, pid, r->idv) < 0 ||
	    (text != NULL ? ctl_send_text(init_spare.req, text, len, fds, nfds,
	    &err) : ctl_send(init_spare.req, msg, fds, nfds, &err)) < 0) {
		init_spawn_spare_drop(1);
		return -1;
	}
	*pipefd = init_spare.pipe;
	init_spare.pipe = -1;
	init_spawn_spare_drop(0);
	return pid;
}

/* Handle spawn: validate, fork, remember the child (owns fds). */
void
init_spawn(json_t *msg, const char *text, size_t len, int *fds, int nfds)
{
	struct init_spawnreq r;
	struct init_child *c;
	struct stat st;
	const char *why;
	int p[2], g[2], master = -1, slave = -1, e;
	pid_t pid;

	why = init_spawnreq_parse(msg, nfds, &r);
	if (why == NULL && init_spawn_find(r.idv, 0) != NULL)
		why = "id is already in use";
	if (why == NULL && init_nchildren >= INIT_CHILDREN_MAX)
		why = "too many commands running";
	if (why == NULL)
		why = init_supervise_unready();
	if (why != NULL) {
		init_msg_send_error(json_is_integer(r.id) ? r.id : NULL, EINVAL,
		    "spawn: %s", why);
		goto out;
	}
	if (r.tty && (e = init_tty_open(r.size.rows, r.size.cols, &master,
	    &slave)) != 0) {
		init_msg_send_error(r.id, e, "spawn: cannot make a terminal in "
		    "the sandbox (/dev/pts): %s", strerror(e));
		goto out;
	}
	if ((c = calloc(1, sizeof *c)) == NULL) {
		init_msg_send_error(r.id, errno, "spawn: %s", strerror(errno));
		goto out;
	}
	if ((pid = init_spawn_use_spare(&r, msg, text, len, fds, nfds, &p[0])) > 0)
		goto adopted;
	if (pipe2(p, O_CLOEXEC) < 0) {
		free(c);
		init_msg_send_error(r.id, errno, "spawn: %s", strerror(errno));
		goto out;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, g) < 0) {
		init_msg_send_error(r.id, errno,
		    "spawn: the file guard's socket: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		free(c);
		goto out;
	}
	init_child_sigs_scan();
	pid = fork();
	if (pid == 0) {
		close(g[0]);
		init_child_run(&r, fds, p[1], g[1], slave);
	}
	close(p[1]);
	close(g[1]);
	if (slave >= 0)
		close(slave);
	slave = -1;
	if (pid < 0) {
		init_msg_send_error(r.id, errno, "spawn: fork: %s",
		    strerror(errno));
		close(p[0]);
		close(g[0]);
		free(c);
		goto out;
	}
	/* its listener; if none comes the child fails (or is killed) and
	 * its status pipe or exit says so */
	init_supervise_adopt(g[0], pid, r.idv);
	close(g[0]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
adopted:
	if (r.use_fds && !r.tty && nfds >= 3 && fstat(fds[2], &st) == 0) {
		c->err_known = 1;
		c->err_dev = st.st_dev;
		c->err_ino = st.st_ino;
	}
	c->id = r.idv;
	c->pid = pid;
	c->pipe = p[0];
	c->master = master;
	master = -1;
	c->kill_group = r.kill_group;
	c->deadline = r.timeout_ms ? init_msg_now_ms() + r.timeout_ms : 0;
	c->next = init_children;
	init_children = c;
	init_nchildren++;
out:
	if (master >= 0)
		close(master);
	if (slave >= 0)
		close(slave);
	ctl_close_fds(fds, nfds);
	free(r.argv);
	free(r.env);
}

/* Is (dev, ino) the stderr command id was started with (what sboxd relays
 * to its client, who is told of refusals there)? */
int
init_spawn_is_stderr(json_int_t id, dev_t dev, ino_t ino)
{
	struct init_child *c = init_spawn_find(id, 0);

	return c != NULL && c->err_known && c->err_dev == dev &&
	    c->err_ino == ino;
}

/* The session and parent of process tid (/proc/TID/stat); -1. */
static int
init_spawn_stat_of(pid_t tid, pid_t *ppid, pid_t *sid)
{
	char p[40], buf[1024], *s;
	int fd, pp, pg, se;
	ssize_t n;

	snprintf(p, sizeof p, "/proc/%d/stat", (int)tid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* the name may hold anything: the fields follow its last ')' */
	if ((s = strrchr(buf, ')')) == NULL ||
	    sscanf(s + 1, " %*c %d %d %d", &pp, &pg, &se) != 3)
		return -1;
	*ppid = pp;
	*sid = se;
	return 0;
}

/* The command process tid belongs to: the one whose session it is in (a
 * command is a session's leader), else the nearest ancestor that is a
 * command's process; 0 when none (a process that left both). */
json_int_t
init_spawn_owner(pid_t tid)
{
	struct init_child *c;
	pid_t p = tid, pp, sid;
	int depth;

	for (depth = 0; depth < 64 && p > 1; depth++) {
		if (init_spawn_stat_of(p, &pp, &sid) < 0)
			return 0;
		for (c = init_children; c != NULL; c = c->next)
			if (c->pid == p || (depth == 0 && c->pid == sid))
				return c->id;
		p = pp;
	}
	return 0;
}

/* Read a child's exec status: spawned {id, pid} or an error. */
static void
init_spawn_status(struct init_child *c)
{
	static const char *stage[] = { "set up stdio", "enter the working "
	    "folder", "apply limits", "run the command", "set up the file "
	    "guard" };
	struct init_exec_failure f;
	ssize_t n;

	n = read(c->pipe, &f, sizeof f);
	if (n < 0 && errno == EAGAIN && !c->reaped)
		return;
	close(c->pipe);
	c->pipe = -1;
	if (n == (ssize_t)sizeof f && f.stage >= 0 && f.stage < 5) {
		json_t *id = json_integer(c->id);
		c->failed = 1;
		init_msg_send_error(id, f.err, "cannot %s: %s", stage[f.stage],
		    strerror(f.err));
		json_decref(id);
		return;
	}
	/* a terminal's master goes with it (then it is sboxd's alone) */
	init_msg_send(ctl_msg("spawned", "{s:I,s:i}", "id", c->id, "pid",
	    (int)c->pid), c->master >= 0 ? &c->master : NULL,
	    c->master >= 0 ? 1 : 0);
	if (c->master >= 0)
		close(c->master);
	c->master = -1;
}

/* Unlink and free a child. */
static void
init_spawn_drop(struct init_child *c)
{
	struct init_child **pp;

	for (pp = &init_children; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (c->pipe >= 0)
		close(c->pipe);
	if (c->master >= 0)
		close(c->master);
	free(c);
	init_nchildren--;
}

/* Report a reaped child's exit and forget it. */
static void
init_spawn_exited(struct init_child *c)
{
	int code = -1, sig = 0;

	if (c->pipe >= 0)
		init_spawn_status(c);
	if (c->kill_group)
		kill(-c->pid, SIGKILL);
	if (!c->failed) {
		if (WIFEXITED(c->status))
			code = WEXITSTATUS(c->status);
		else if (WIFSIGNALED(c->status))
			sig = WTERMSIG(c->status);
		init_msg_send(ctl_msg("exit", "{s:I,s:i,s:i,s:b}", "id", c->id,
		    "code", code, "signal", sig, "timed_out", c->timed_out),
		    NULL, 0);
	}
	init_spawn_drop(c);
}

/* Reap every exited child (orphans too), report commands' exits. */
void
init_spawn_reap(void)
{
	struct init_child *c;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == init_spare.pid) {
			init_spawn_spare_drop(0);	/* a new one is made */
			continue;
		}
		if ((c = init_spawn_find(-1, pid)) == NULL)
			continue; /* an orphan re-parented to us */
		c->status = st;
		c->reaped = 1;
		init_spawn_exited(c);
	}
}

/* Fill pfd[] with exec-status pipes to watch; returns how many. */
int
init_spawn_pollfds(struct pollfd *pfd, int max)
{
	struct init_child *c;
	int n = 0;

	for (c = init_children; c != NULL && n < max; c = c->next)
		if (c->pipe >= 0) {
			pfd[n].fd = c->pipe;
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			n++;
		}
	return n;
}

/* Handle the exec-status pipes that poll reported. */
void
init_spawn_pipes(struct pollfd *pfd, int n)
{
	struct init_child *c;
	int i;

	for (i = 0; i < n; i++) {
		if (pfd[i].revents == 0)
			continue;
		for (c = init_children; c != NULL; c = c->next)
			if (c->pipe == pfd[i].fd) {
				init_spawn_status(c);
				break;
			}
	}
}

/* Milliseconds until the next command timeout (-1 = none); kills those due. */
int
init_spawn_timeouts(void)
{
	struct init_child *c;
	long long now = init_msg_now_ms(), next = -1, left;

	for (c = init_children; c != NULL; c = c->next) {
		if (c->deadline == 0 || c->timed_out)
			continue;
		left = c->deadline - now;
		if (left <= 0) {
			c->timed_out = 1;
			init_killtree(c->pid, SIGKILL);	/* all it started */
			continue;
		}
		if (next < 0 || left < next)
			next = left;
	}
	return next > INT32_MAX ? INT32_MAX : (int)next;
}

/* Handle kill {id, signal}: signal the command's whole process group. */
void
init_spawn_kill(json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	json_t *sig = json_object_get(msg, "signal");
	struct init_child *c;
	json_int_t s;

	if (!json_is_integer(id) || json_integer_value(id) < 0)
		return;
	s = json_is_integer(sig) ? json_integer_value(sig) : SIGKILL;
	if (s < 1 || s >= NSIG) {
		init_msg_send_error(id, EINVAL, "kill: bad signal");
		return;
	}
	c = init_spawn_find(json_integer_value(id), 0);
	if (c == NULL)
		return; /* already gone: its exit is on the way or sent */
	if (s == SIGKILL) {	/* a timeout or a kill: everything it started */
		init_killtree(c->pid, SIGKILL);
		return;
	}
	if (kill(-c->pid, (int)s) < 0)
		kill(c->pid, (int)s);
}
