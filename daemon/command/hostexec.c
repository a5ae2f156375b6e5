/* hostexec.c: running a command on the host for unsandboxed sessions and
 * approved runs outside the sandbox. */
#include "daemon/command/hostexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/container/child.h"
#include "policy/strv.h"

/* The PATH of sboxd when it has none (as execvp's default, without "."). */
#define HOSTEXEC_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:" \
    "/usr/bin:/sbin:/bin"

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

/* How the child runs: by PATH search in a folder given by path, or a
 * fixed target. */
struct hostexec_how {
	char *const                  *argv;
	char *const                  *env;
	const char                   *cwd;     /* chdir, or NULL */
	const struct hostexec_target *target;  /* or NULL */
};

/* In the child: set up stdio, folder and signals, then exec. */
static void
hostexec_child(const struct hostexec_how *h, const int fds[3], int errpipe)
{
	const struct hostexec_target *t = h->target;
	sigset_t none;
	struct stat st;
	int i, fd, e;

	setsid();
	/* a kill -9 of sboxd takes what it runs on the host along (the next
	 * start cannot find it: it holds no note of host pids) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() == 1)
		goto fail;
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
	if (t != NULL) {
		/* The person's umask, not sboxd's. */
		umask(t->umask & 0777);
		/* The folder that was opened, never a path looked up again. */
		if (fchdir(t->dir_fd) == -1)
			goto fail;
		if (stat(t->program, &st) == -1)
			goto fail;
		if (st.st_dev != t->dev || st.st_ino != t->ino) {
			errno = ESTALE;
			goto fail;
		}
		execve(t->program, h->argv, h->env);
		goto fail;
	}
	if (h->cwd != NULL && chdir(h->cwd) == -1)
		goto fail;
	environ = (char **)h->env;
	execvp(h->argv[0], h->argv);
fail:
	e = errno;
	if (write(errpipe, &e, sizeof e) < 0)
		_exit(126);
	_exit(127);
}

/* Fork and run the child as h says; its exec error comes back. */
static int
hostexec_start(const struct hostexec_how *h, const int fds[3],
    hostexec_exit_cb cb, void *arg, pid_t *pid_out, sbox_error *err)
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
		hostexec_child(h, fds, p[1]);
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
		if (h->target != NULL && e == ESTALE)
			return error_set(err, E_IO, "cannot run %s: it is not the "
			    "file that was approved any more", h->target->program);
		if (h->target != NULL)
			return error_set_errno(err, E_IO, e, "cannot run %s in %s",
			    h->target->program, h->target->dir);
		return error_set_errno(err, E_IO, e, "cannot run %s in %s",
		    h->argv[0], h->cwd ? h->cwd : ".");
	}
	*pid_out = pid;
	return 0;
}

/* Fork and exec argv on the host. */
int
hostexec_spawn(char *const *argv, char *const *env, const char *cwd,
    const int fds[3], hostexec_exit_cb cb, void *arg, pid_t *pid_out,
    sbox_error *err)
{
	struct hostexec_how h = { argv, env, cwd, NULL };

	return hostexec_start(&h, fds, cb, arg, pid_out, err);
}

/* Fork and exec an approved target on the host. */
int
hostexec_spawn_target(const struct hostexec_target *t, char *const *argv,
    const int fds[3], hostexec_exit_cb cb, void *arg, pid_t *pid_out,
    sbox_error *err)
{
	struct hostexec_how h = { argv, t->env, NULL, t };

	if (t->program == NULL || t->program[0] != '/' || t->dir_fd < 0)
		return error_set(err, E_INTERNAL, "a run outside without a "
		    "resolved program and folder");
	return hostexec_start(&h, fds, cb, arg, pid_out, err);
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

int hostexec_force_walk;

/* The host's PATH: sboxd's own, or a default when it has none. */
const char *
hostexec_host_path(void)
{
	const char *p = getenv("PATH");

	return p != NULL && p[0] != '\0' ? p : HOSTEXEC_DEFAULT_PATH;
}

/* The path a descriptor refers to (from /proc), malloc'd, or NULL. */
static char *
hostexec_fd_path(int fd)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((n = readlink(link, buf, sizeof buf - 1)) <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* Open an absolute folder one component at a time, refusing symlinks
 * (O_NOFOLLOW) and anything that is not a folder. */
static int
hostexec_walk(const char *path)
{
	char *copy, *comp, *save = NULL;
	struct stat st;
	int fd, next;

	if ((copy = strdup(path)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (comp = strtok_r(copy, "/", &save); fd >= 0 && comp != NULL;
	    comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			close(fd);
			fd = -1;
			errno = EXDEV;
			break;
		}
		next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		if (fd >= 0 && fstat(fd, &st) == -1) {
			close(fd);
			fd = -1;
		} else if (fd >= 0 && !S_ISDIR(st.st_mode)) {
			close(fd);
			fd = -1;
			errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
		}
	}
	free(copy);
	return fd;
}

/* Open a folder without following symlinks; *shown is where it is. */
int
hostexec_open_dir(const char *path, char **shown, sbox_error *err)
{
	struct open_how how;
	int fd;

	*shown = NULL;
	if (path == NULL || path[0] != '/')
		return error_set_field(err, E_INVALID_PARAMS, "cwd",
		    "the folder must be an absolute path");
	memset(&how, 0, sizeof how);
	how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	if (hostexec_force_walk) {
		fd = -1;
		errno = ENOSYS;
	} else
		fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	if (fd == -1 && (errno == ENOSYS || errno == EPERM || errno == E2BIG))
		fd = hostexec_walk(path);
	if (fd == -1) {
		if (errno == ELOOP)
			return error_set_field(err, E_INVALID_PARAMS, "cwd",
			    "the folder %s has a symbolic link in its path (or "
			    "was swapped for one while it was opened): refused",
			    path);
		error_set_errno(err, E_INVALID_PARAMS, errno, "cwd %s", path);
		snprintf(err->field, sizeof err->field, "cwd");
		return -1;
	}
	if ((*shown = hostexec_fd_path(fd)) == NULL &&
	    (*shown = strdup(path)) == NULL) {
		close(fd);
		return error_nomem(err);
	}
	return fd;
}

/* Open a candidate program (following symlinks: the result is shown
 * resolved); 0 with *out (absolute, resolved) when it is an executable
 * regular file, -1 with errno otherwise. */
static int
hostexec_candidate(int dir_fd, const char *name, struct stat *st, char **out)
{
	char link[64];
	int fd, e;

	*out = NULL;
	if ((fd = openat(dir_fd, name, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if (fstat(fd, st) == -1)
		goto fail;
	if (!S_ISREG(st->st_mode)) {
		errno = S_ISDIR(st->st_mode) ? EISDIR : EACCES;
		goto fail;
	}
	if (access(link, X_OK) == -1)
		goto fail;
	if ((*out = hostexec_fd_path(fd)) == NULL) {
		errno = ENOENT;
		goto fail;
	}
	close(fd);
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* Resolve a program name to an absolute executable path. */
char *
hostexec_resolve(const char *name, const char *path_env, int dir_fd,
    struct stat *st, sbox_error *err)
{
	char *copy, *dir, *save = NULL, *out = NULL, *cand;
	int saw_eacces = 0;

	if (name == NULL || name[0] == '\0') {
		error_set_field(err, E_INVALID_PARAMS, "argv",
		    "argv must name a program");
		return NULL;
	}
	if (strchr(name, '/') != NULL) {
		if (hostexec_candidate(name[0] == '/' ? AT_FDCWD : dir_fd, name,
		    st, &out) == -1) {
			error_set_errno(err, E_INVALID_PARAMS, errno,
			    "cannot run %s", name);
			snprintf(err->field, sizeof err->field, "argv");
			return NULL;
		}
		return out;
	}
	if ((copy = strdup(path_env != NULL ? path_env : "")) == NULL) {
		error_nomem(err);
		return NULL;
	}
	for (dir = strtok_r(copy, ":", &save); dir != NULL && out == NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] != '/')
			continue;   /* "" and relative entries: never */
		if (asprintf(&cand, "%s/%s", dir, name) == -1)
			break;
		if (hostexec_candidate(AT_FDCWD, cand, st, &out) == -1 &&
		    errno == EACCES)
			saw_eacces = 1;
		free(cand);
	}
	free(copy);
	if (out == NULL)
		error_set_field(err, E_INVALID_PARAMS, "argv", "%s: %s in the "
		    "host's PATH", name, saw_eacces ? "no executable file" :
		    "not found");
	return out;
}

/* Free what a target holds and clear it. */
void
hostexec_target_clear(struct hostexec_target *t)
{
	if (t->dir_fd >= 0)
		close(t->dir_fd);
	free(t->program);
	free(t->dir);
	strv_free(t->env);
	memset(t, 0, sizeof *t);
	t->dir_fd = -1;
}
