/* init-spawn.c: sbox-init's commands: spawn, exec status, reaping, kill,
 * timeouts. A command runs in its own session and process group; its exec
 * result comes back through a close-on-exec pipe that the poll loop reads,
 * so sbox-init never waits on one child. */
#include "protocol/ctl.h"
#include "daemon/init/init-killtree.h"
#include "daemon/init/init-msg.h"
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

/* The signals whose disposition in sbox-init is not the default: what it
 * ignores (SIGPIPE; what it was started with ignored, which exec keeps).
 * sbox-init sets its dispositions before its loop and catches nothing
 * (SIGCHLD comes through a signalfd), so they are read once, before the
 * first child: a child then resets these, not all 64 (64 calls through
 * the session's filter in every spare). */
static sigset_t init_spawn_sigs_set;
static int init_spawn_sigs_read;

/* Why the child could not run its command (sent through the pipe). */
struct init_exec_failure {
	int stage; /* 0 stdio, 1 cwd, 2 limits, 3 exec, 4 file guard */
	int err;
};

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

/* Read which signals sbox-init does not leave at their default (once). */
static void
init_spawn_sigs_scan(void)
{
	struct sigaction sa;
	int i;

	if (init_spawn_sigs_read)
		return;
	sigemptyset(&init_spawn_sigs_set);
	for (i = 1; i < NSIG; i++)
		if (sigaction(i, NULL, &sa) == 0 &&
		    ((sa.sa_flags & SA_SIGINFO) || sa.sa_handler != SIG_DFL))
			sigaddset(&init_spawn_sigs_set, i);
	sigaddset(&init_spawn_sigs_set, SIGPIPE);
	init_spawn_sigs_read = 1;
}

/* In the child: every disposition back to the default, nothing blocked. */
static void
init_spawn_sigs_default(void)
{
	sigset_t none;
	int i;

	for (i = 1; i < NSIG; i++)
		if (!init_spawn_sigs_read ||
		    sigismember(&init_spawn_sigs_set, i) == 1)
			signal(i, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the child: report a failure through the pipe and exit. */
static void __attribute__((noreturn))
init_spawn_fail(int pipefd, int stage, int err)
{
	struct init_exec_failure f = { stage, err };
	ssize_t n __attribute__((unused));

	n = write(pipefd, &f, sizeof f);
	_exit(127);
}

/* In the child: the value of PATH in env (or a default). */
static const char *
init_spawn_path(char **env)
{
	size_t i;

	for (i = 0; env[i] != NULL; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			return env[i] + 5;
	return "/usr/local/bin:/usr/bin:/bin";
}

/* In the child: execve argv[0], searching PATH from env when it has no '/'.
 * Returns the most telling errno (EACCES over ENOENT, as execvp does). */
static int
init_spawn_exec(char **argv, char **env)
{
	const char *path, *p, *colon;
	char buf[CTL_PATH_MAX + 256];
	int best = ENOENT;
	size_t dl, fl;

	if (strchr(argv[0], '/') != NULL) {
		execve(argv[0], argv, env);
		return errno;
	}
	fl = strlen(argv[0]);
	path = init_spawn_path(env);
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		dl = colon ? (size_t)(colon - p) : strlen(p);
		if (dl == 0) {
			buf[0] = '.';
			dl = 1;
		} else if (dl < sizeof buf)
			memcpy(buf, p, dl);
		if (dl + fl + 2 <= sizeof buf) {
			buf[dl] = '/';
			memcpy(buf + dl + 1, argv[0], fl + 1);
			execve(buf, argv, env);
			if (errno == EACCES)
				best = EACCES;
			else if (errno != ENOENT && errno != ENOTDIR &&
			    best != EACCES)
				best = errno;
		}
		if (colon == NULL)
			break;
	}
	return best;
}

/* In the child: stdio and channel in place, every other descriptor closed
 * but the status pipe and the guard's socket (guardfd -1: none), cwd,
 * signals (unless sig_default: a spare set them when it was made, and
 * nothing of the sandbox can change them since; 64 calls each through the
 * guard's filter), limits. Returns the status pipe's descriptor. */
static int
init_spawn_child_setup(struct init_spawnreq *r, const int *fds, int pipefd,
    int *guardp, int slave, int sig_default)
{
	struct rlimit rl;
	int i, fd, p[2], guardfd = *guardp, noguard = guardfd < 0;

	/* the guard's socket and the status pipe sit above stdio + channel */
	if (noguard)
		guardfd = pipefd;
	else if (guardfd < 8 && (guardfd = fcntl(guardfd, F_DUPFD_CLOEXEC,
	    8)) < 0)
		init_spawn_fail(pipefd, 4, errno);
	if (pipefd < 8 && (pipefd = fcntl(pipefd, F_DUPFD_CLOEXEC, 8)) < 0)
		init_spawn_fail(guardfd, 4, errno);
	if (noguard)
		guardfd = pipefd;
	if (r->tty) {
		if ((i = init_tty_child(slave)) != 0)
			init_spawn_fail(pipefd, 0, i);
	} else if (r->use_fds) {
		for (i = 0; i < 3; i++)
			if (dup2(fds[i], i) < 0)
				init_spawn_fail(pipefd, 0, errno);
	} else {
		fd = open("/dev/null", O_RDWR);
		if (fd < 0 && pipe(p) == 0) {
			/* No /dev: an empty pipe for input, a closed one out. */
			dup2(p[0], 0);
			close(p[1]);
			fd = p[0];
		} else if (fd >= 0)
			dup2(fd, 0);
		for (i = 1; i < 3; i++)
			if (dup2(fd, i) < 0)
				init_spawn_fail(pipefd, 0, errno);
	}
	/* The sbox channel, if any, becomes fd 3. */
	if (r->channel && dup2(fds[r->use_fds ? 3 : 0], 3) < 0)
		init_spawn_fail(pipefd, 0, errno);
	/* Keep only stdio (and the channel), the status pipe and the guard's
	 * socket (both close-on-exec). */
	if (guardfd < pipefd) {
		i = guardfd;
		guardfd = pipefd;
		pipefd = i;
		i = 1; /* swapped: put them back below */
	} else
		i = 0;
	syscall(SYS_close_range, 3u + (unsigned)r->channel,
	    (unsigned)pipefd - 1, 0u);
	if (guardfd > pipefd + 1)
		syscall(SYS_close_range, (unsigned)pipefd + 1,
		    (unsigned)guardfd - 1, 0u);
	if (syscall(SYS_close_range, (unsigned)guardfd + 1, ~0u, 0u) < 0)
		for (fd = 3; fd < 1024; fd++)
			if (fd != pipefd && fd != guardfd &&
			    !(r->channel && fd == 3))
				close(fd);
	if (i) {
		i = guardfd;
		guardfd = pipefd;
		pipefd = i;
	}
	if (chdir(r->cwd) < 0)
		init_spawn_fail(pipefd, 1, errno);
	if (!sig_default)
		init_spawn_sigs_default();
	for (i = 0; i < r->nlimits; i++) {
		rl.rlim_cur = rl.rlim_max = r->lim_val[i];
		if (setrlimit(r->lim_res[i], &rl) < 0)
			init_spawn_fail(pipefd, 2, errno);
	}
	*guardp = noguard ? -1 : guardfd;
	return pipefd;
}

/* In the child: stdio, session, cwd, signals, limits, then exec. */
static void __attribute__((noreturn))
init_spawn_child(struct init_spawnreq *r, const int *fds, int pipefd,
    int guardfd, int slave)
{
	int e;

	setsid();
	pipefd = init_spawn_child_setup(r, fds, pipefd, &guardfd, slave, 0);
	/* Fail closed: without its file guard the command does not run. */
	if ((e = init_supervise_child(guardfd)) != 0)
		init_spawn_fail(pipefd, 4, e);
	close(guardfd);
	init_spawn_fail(pipefd, 3, init_spawn_exec(r->argv, r->env));
}

/* In a spare: its own session, nothing of sbox-init's but its three
 * descriptors, default signals, then the file guard; then it waits for the
 * one request it is for (the spawn message and its descriptors, checked
 * again here) and runs it as init_spawn_child does. */
static void __attribute__((noreturn))
init_spawn_spare_child(int pipefd, int guardfd, int reqfd)
{
	int fds[CTL_FDS_MAX], nfds, e, keep[3], i, fd;
	struct init_spawnreq r;
	sbox_error err = { 0 };
	json_t *msg;

	setsid();
	init_children = NULL;	/* the parent's, not this process's */
	keep[0] = pipefd = fcntl(pipefd, F_DUPFD_CLOEXEC, 8);
	keep[1] = guardfd = fcntl(guardfd, F_DUPFD_CLOEXEC, 8);
	keep[2] = reqfd = fcntl(reqfd, F_DUPFD_CLOEXEC, 8);
	if (pipefd < 0 || guardfd < 0 || reqfd < 0)
		_exit(127);
	/* sbox-init's descriptors (its channel to sboxd, the other commands'
	 * listeners) are not the spare's */
	for (i = 0; i < 2; i++)	/* sorted: close what lies around them */
		if (keep[i] > keep[i + 1]) {
			fd = keep[i];
			keep[i] = keep[i + 1];
			keep[i + 1] = fd;
			i = -1;
		}
	for (i = 0, fd = 0; i < 3; fd = keep[i++] + 1)
		if (keep[i] > fd)
			syscall(SYS_close_range, (unsigned)fd,
			    (unsigned)keep[i] - 1, 0u);
	syscall(SYS_close_range, (unsigned)keep[2] + 1, ~0u, 0u);
	init_spawn_sigs_default();
	/* Fail closed: without its file guard no command runs here. */
	if ((e = init_supervise_child(guardfd)) != 0)
		init_spawn_fail(pipefd, 4, e);
	close(guardfd);
	do
		e = ctl_recv(reqfd, &msg, fds, &nfds, CTL_FDS_MAX, &err);
	while (e == CTL_AGAIN);
	if (e != CTL_MSG)
		_exit(127);	/* not used: sbox-init dropped it */
	close(reqfd);
	/* they came in at the lowest free numbers (0...), close-on-exec: move
	 * them out of stdio's way, or dup2 onto themselves keeps the flag */
	for (i = 0; i < nfds; i++)
		if (fds[i] < 4) {
			if ((fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 4)) < 0)
				init_spawn_fail(pipefd, 0, errno);
			close(fds[i]);
			fds[i] = fd;
		}
	if (init_spawnreq_parse(msg, nfds, &r) != NULL || r.tty)
		init_spawn_fail(pipefd, 0, EINVAL);
	guardfd = -1;
	pipefd = init_spawn_child_setup(&r, fds, pipefd, &guardfd, -1, 1);
	init_spawn_fail(pipefd, 3, init_spawn_exec(r.argv, r.env));
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
	init_spawn_sigs_scan();
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
	if ((pid = fork()) == 0)
		init_spawn_spare_child(p[1], g[1], q[1]);
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
	init_spawn_sigs_scan();
	pid = fork();
	if (pid == 0) {
		close(g[0]);
		init_spawn_child(&r, fds, p[1], g[1], slave);
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
