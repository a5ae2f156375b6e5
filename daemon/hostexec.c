/* hostexec.c: running a command on the host for unsandboxed sessions and
 * approved runs outside the sandbox. */
#include "daemon/hostexec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/child.h"

extern char **environ;

struct hostexec_watch {
	pid_t                  pid;
	hostexec_exit_cb       cb;
	void                  *arg;
	struct hostexec_watch *next;
};

static struct hostexec_watch *hostexec_watches;

/* child.c callback: turn a wait status into code/signal for the owner. */
static void
hostexec_reaped(pid_t pid, int status, void *arg)
{
	struct hostexec_watch **pp, *w;

	(void)arg;
	for (pp = &hostexec_watches; (w = *pp) != NULL; pp = &w->next) {
		if (w->pid != pid)
			continue;
		*pp = w->next;
		if (w->cb != NULL) {
			if (WIFSIGNALED(status))
				w->cb(pid, -1, WTERMSIG(status), w->arg);
			else
				w->cb(pid, WEXITSTATUS(status), 0, w->arg);
		}
		free(w);
		return;
	}
}

/* In the child: set up stdio, folder and signals, then exec. */
static void
hostexec_child(char *const *argv, char *const *env, const char *cwd,
    const int fds[3], int errpipe)
{
	sigset_t none;
	int i, fd, e;

	setsid();
	for (i = 0; i < 3; i++) {
		fd = fds[i] >= 0 ? fds[i] : open("/dev/null", i == 0 ? O_RDONLY :
		    O_WRONLY);
		if (fd < 0 || dup2(fd, i) == -1)
			goto fail;
	}
	for (i = 1; i < NSIG; i++)
		signal(i, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (cwd != NULL && chdir(cwd) == -1)
		goto fail;
	environ = (char **)env;
	execvp(argv[0], argv);
fail:
	e = errno;
	if (write(errpipe, &e, sizeof e) < 0)
		_exit(126);
	_exit(127);
}

/* Fork and exec argv on the host. */
int
hostexec_spawn(char *const *argv, char *const *env, const char *cwd,
    const int fds[3], hostexec_exit_cb cb, void *arg, pid_t *pid_out,
    sbox_error *err)
{
	struct hostexec_watch *w;
	int p[2], e = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return error_set_errno(err, E_IO, errno, "pipe");
	if ((w = calloc(1, sizeof *w)) == NULL) {
		close(p[0]);
		close(p[1]);
		return error_nomem(err);
	}
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		free(w);
		return error_set_errno(err, E_IO, errno, "fork");
	}
	if (pid == 0) {
		close(p[0]);
		hostexec_child(argv, env, cwd, fds, p[1]);
	}
	close(p[1]);
	w->pid = pid;
	w->cb = cb;
	w->arg = arg;
	w->next = hostexec_watches;
	hostexec_watches = w;
	if (child_watch(pid, hostexec_reaped, NULL, err) == -1) {
		kill(pid, SIGKILL);
		close(p[0]);
		return -1;
	}
	/* The pipe closes at exec (success) or carries errno (failure). */
	do
		n = read(p[0], &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == sizeof e) {
		hostexec_forget(pid);
		return error_set_errno(err, E_IO, e, "cannot run %s in %s",
		    argv[0], cwd ? cwd : ".");
	}
	*pid_out = pid;
	return 0;
}

/* Stop calling back for pid; it is still reaped. */
void
hostexec_forget(pid_t pid)
{
	struct hostexec_watch *w;

	for (w = hostexec_watches; w != NULL; w = w->next) {
		if (w->pid == pid)
			w->cb = NULL;
	}
}
