/* init-child.c: what a command's process does between sbox-init's fork
 * and its exec: stdio and the channel in place, every other descriptor
 * closed, its own session, cwd, signals at their defaults, limits, the
 * file guard (failing closed: without it the command does not run), then
 * the exec, searching PATH. A spare (init-spawn.c) does the same ahead,
 * up to the guard, and waits for its request. A failure goes back through
 * the status pipe as a struct init_exec_failure. */
#include "protocol/ctl.h"
#include "daemon/init/init-killtree.h"
#include "daemon/init/init-msg.h"
#include "daemon/init/init-child.h"
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

/* The signals whose disposition in sbox-init is not the default: what it
 * ignores (SIGPIPE; what it was started with ignored, which exec keeps).
 * sbox-init sets its dispositions before its loop and catches nothing
 * (SIGCHLD comes through a signalfd), so they are read once, before the
 * first child: a child then resets these, not all 64 (64 calls through
 * the session's filter in every spare). */
static sigset_t init_child_sigs_set;
static int init_child_sigs_read;

/* Read which signals sbox-init does not leave at their default (once). */
void
init_child_sigs_scan(void)
{
	struct sigaction sa;
	int i;

	if (init_child_sigs_read)
		return;
	sigemptyset(&init_child_sigs_set);
	for (i = 1; i < NSIG; i++)
		if (sigaction(i, NULL, &sa) == 0 &&
		    ((sa.sa_flags & SA_SIGINFO) || sa.sa_handler != SIG_DFL))
			sigaddset(&init_child_sigs_set, i);
	sigaddset(&init_child_sigs_set, SIGPIPE);
	init_child_sigs_read = 1;
}

/* In the child: every disposition back to the default, nothing blocked. */
static void
init_child_sigs_default(void)
{
	sigset_t none;
	int i;

	for (i = 1; i < NSIG; i++)
		if (!init_child_sigs_read ||
		    sigismember(&init_child_sigs_set, i) == 1)
			signal(i, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the child: report a failure through the pipe and exit. */
static void __attribute__((noreturn))
init_child_fail(int pipefd, int stage, int err)
{
	struct init_exec_failure f = { stage, err };
	ssize_t n __attribute__((unused));

	n = write(pipefd, &f, sizeof f);
	_exit(127);
}

/* In the child: the value of PATH in env (or a default). */
static const char *
init_child_path(char **env)
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
init_child_exec(char **argv, char **env)
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
	path = init_child_path(env);
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
init_child_setup(struct init_spawnreq *r, const int *fds, int pipefd,
    int *guardp, int slave, int sig_default)
{
	struct rlimit rl;
	int i, fd, p[2], guardfd = *guardp, noguard = guardfd < 0;

	/* the guard's socket and the status pipe sit above stdio + channel */
	if (noguard)
		guardfd = pipefd;
	else if (guardfd < 8 && (guardfd = fcntl(guardfd, F_DUPFD_CLOEXEC,
	    8)) < 0)
		init_child_fail(pipefd, 4, errno);
	if (pipefd < 8 && (pipefd = fcntl(pipefd, F_DUPFD_CLOEXEC, 8)) < 0)
		init_child_fail(guardfd, 4, errno);
	if (noguard)
		guardfd = pipefd;
	if (r->tty) {
		if ((i = init_tty_child(slave)) != 0)
			init_child_fail(pipefd, 0, i);
	} else if (r->use_fds) {
		for (i = 0; i < 3; i++)
			if (dup2(fds[i], i) < 0)
				init_child_fail(pipefd, 0, errno);
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
				init_child_fail(pipefd, 0, errno);
	}
	/* The sbox channel, if any, becomes fd 3. */
	if (r->channel && dup2(fds[r->use_fds ? 3 : 0], 3) < 0)
		init_child_fail(pipefd, 0, errno);
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
		init_child_fail(pipefd, 1, errno);
	if (!sig_default)
		init_child_sigs_default();
	for (i = 0; i < r->nlimits; i++) {
		rl.rlim_cur = rl.rlim_max = r->lim_val[i];
		if (setrlimit(r->lim_res[i], &rl) < 0)
			init_child_fail(pipefd, 2, errno);
	}
	*guardp = noguard ? -1 : guardfd;
	return pipefd;
}

/* In the child: stdio, session, cwd, signals, limits, then exec. */
void
init_child_run(struct init_spawnreq *r, const int *fds, int pipefd,
    int guardfd, int slave)
{
	int e;

	setsid();
	pipefd = init_child_setup(r, fds, pipefd, &guardfd, slave, 0);
	/* Fail closed: without its file guard the command does not run. */
	if ((e = init_supervise_child(guardfd)) != 0)
		init_child_fail(pipefd, 4, e);
	close(guardfd);
	init_child_fail(pipefd, 3, init_child_exec(r->argv, r->env));
}

/* In a spare: its own session, nothing of sbox-init's but its three
 * descriptors, default signals, then the file guard; then it waits for the
 * one request it is for (the spawn message and its descriptors, checked
 * again here) and runs it as init_child_run does. */
void
init_child_spare(int pipefd, int guardfd, int reqfd)
{
	int fds[CTL_FDS_MAX], nfds, e, keep[3], i, fd;
	struct init_spawnreq r;
	sbox_error err = { 0 };
	json_t *msg;

	setsid();
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
	init_child_sigs_default();
	/* Fail closed: without its file guard no command runs here. */
	if ((e = init_supervise_child(guardfd)) != 0)
		init_child_fail(pipefd, 4, e);
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
				init_child_fail(pipefd, 0, errno);
			close(fds[i]);
			fds[i] = fd;
		}
	if (init_spawnreq_parse(msg, nfds, &r) != NULL || r.tty)
		init_child_fail(pipefd, 0, EINVAL);
	guardfd = -1;
	pipefd = init_child_setup(&r, fds, pipefd, &guardfd, -1, 1);
	init_child_fail(pipefd, 3, init_child_exec(r.argv, r.env));
}

