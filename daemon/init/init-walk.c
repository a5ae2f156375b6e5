/* init-walk.c: the file guard's path walking. A path is read once from
 * the caller's memory and walked here, one component at a time with
 * O_PATH|O_NOFOLLOW descriptors (or in one openat2(RESOLVE_NO_SYMLINKS)
 * call when it holds no dot component and no symlink): a symlink is read
 * and its text walked (bounded), "/proc/self" means the caller, a procfs
 * link (/proc/PID/fd/N) is followed by the kernel and the file it leads to
 * is named by its real path. The caller then acts on the held parent
 * descriptor with O_NOFOLLOW, so what was checked is what is changed. */
#include "protocol/ctl.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static dev_t init_walk_proc_dev;

/* Set up: remember procfs's device. */
const char *
init_walk_init(void)
{
	struct stat st;

	if (stat("/proc/self", &st) < 0)
		return "no /proc in the sandbox";
	init_walk_proc_dev = st.st_dev;
	return NULL;
}

/* Close a location's descriptor. */
void
init_walk_loc_close(struct init_walk_loc *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

/* Read a NUL-terminated string at addr of the caller into buf. */
int
init_walk_read_str(struct init_walk_caller *t, uint64_t addr, char *buf,
    size_t len)
{
	char p[32];
	size_t off = 0, chunk;
	ssize_t n;

	if (addr == 0)
		return EFAULT;
	if (t->mem < 0) {
		snprintf(p, sizeof p, "/proc/%d/mem", (int)t->tid);
		if ((t->mem = open(p, O_RDONLY | O_CLOEXEC)) < 0)
			return EPERM;
	}
	while (off < len) {
		/* never read across a page the caller may not have mapped */
		chunk = 4096 - ((addr + off) & 4095);
		/* most paths are short: a small first read copies less */
		if (off == 0 && chunk > 256)
			chunk = 256;
		if (chunk > len - off)
			chunk = len - off;
		n = pread(t->mem, buf + off, chunk, (off_t)(addr + off));
		if (n <= 0)
			return EFAULT;
		if (memchr(buf + off, '\0', (size_t)n) != NULL)
			return 0;
		off += (size_t)n;
	}
	return ENAMETOOLONG;
}

/* The /proc/TID/status descriptors kept by thread id. procfs binds an
 * open /proc/TID file to that task, not to the number: each read shows
 * the task as it is now (seq_file: a read at offset 0 is made afresh),
 * and fails with ESRCH once the task is gone -- then the number's current
 * thread is opened instead. So a kept descriptor that reads is the
 * caller's own (two live threads never share a number), exactly as a
 * fresh open would be; it only saves the open and the close. */
#define INIT_WALK_STATUS 64
static struct {
	pid_t tid;
	int   fd;
} init_walk_st[INIT_WALK_STATUS];

/* Read /proc/TID/status into buf (size len) through a kept descriptor;
 * the bytes read, or -1. */
static ssize_t
init_walk_status_read(pid_t tid, char *buf, size_t len)
{
	size_t k = (size_t)tid % INIT_WALK_STATUS;
	char p[32];
	ssize_t n;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		if (init_walk_st[k].fd <= 0 || init_walk_st[k].tid != tid) {
			if (init_walk_st[k].fd > 0)
				close(init_walk_st[k].fd);
			init_walk_st[k].fd = 0;
			snprintf(p, sizeof p, "/proc/%d/status", (int)tid);
			if ((init_walk_st[k].fd = open(p, O_RDONLY |
			    O_CLOEXEC)) < 0) {
				init_walk_st[k].fd = 0;
				return -1;
			}
			init_walk_st[k].tid = tid;
			tries = 1; /* a fresh one: no second try */
		}
		if ((n = pread(init_walk_st[k].fd, buf, len, 0)) > 0)
			return n;
		/* the task it was opened for is gone: the number's
		 * current thread, once */
		close(init_walk_st[k].fd);
		init_walk_st[k].fd = 0;
	}
	return -1;
}

/* The caller's thread group and umask from /proc/TID/status, read once
 * and only when needed (procfs paths, creations). */
int
init_walk_status(struct init_walk_caller *t)
{
	char buf[2048], *s;
	ssize_t n;

	if (t->status || t->tid == 0)
		return 0;
	t->status = 1;

	if ((n = init_walk_status_read(t->tid, buf, sizeof buf - 1)) <= 0)
		return ESRCH;
	buf[n] = '\0';
	t->umask = 022;
	if ((s = strstr(buf, "\nUmask:")) != NULL)
		t->umask = (mode_t)strtol(s + 7, NULL, 8) & 0777;
	if ((s = strstr(buf, "\nTgid:")) == NULL)
		return ESRCH;
	t->tgid = (pid_t)strtol(s + 6, NULL, 10);
	return t->tgid > 0 ? 0 : ESRCH;
}

/* Is the notification still the same live call? */
int
init_walk_valid(struct init_walk_caller *t)
{
	uint64_t id;

	if (t->call == NULL)
		return 1;
	id = t->call->notif_id;
	return ioctl(t->call->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* The absolute path a descriptor leads to (via /proc/self/fd), or -1.
 * The text is checked by looking it up again: it must lead to the same
 * file (a name renamed meanwhile, one that reads "... (deleted)", a path
 * over PATH_MAX: -1, never a guess). */
int
init_walk_fd_path(int fd, char *buf, size_t len)
{
	struct stat a, b;
	char p[40];
	ssize_t n;

	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	if ((n = readlink(p, buf, len - 1)) <= 0 || (size_t)n >= len - 1)
		return -1;
	buf[n] = '\0';
	if (buf[0] != '/' || fstat(fd, &a) < 0 ||
	    fstatat(AT_FDCWD, buf, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return -1;
	return 0;
}

/* Append a component to an absolute path ("/" + name). */
static int
init_walk_dir_push(char *dir, const char *name)
{
	size_t n = strlen(dir), m = strlen(name);

	if (n + m + 2 > PATH_MAX)
		return init_state_undecided(NULL, "a resolved path over "
		    "PATH_MAX");
	if (n > 1)
		dir[n++] = '/';
	memcpy(dir + n, name, m + 1);
	return 0;
}

/* Drop the last component of an absolute path. */
static void
init_walk_dir_pop(char *dir)
{
	char *s = strrchr(dir, '/');

	if (s == dir)
		dir[1] = '\0';
	else if (s != NULL)
		*s = '\0';
}

/* Put head + "/" in front of rest (room: PATH_MAX * 2). */
static int
init_walk_prepend(char *rest, const char *head)
{
	size_t h = strlen(head), r = strlen(rest);

	if (h + r + 2 > PATH_MAX * 2)
		return init_state_undecided(NULL, "a path with its "
		    "symlinks over PATH_MAX");
	memmove(rest + h + (r ? 1 : 0), rest, r + 1);
	memcpy(rest, head, h);
	if (r)
		rest[h] = '/';
	return 0;
}

/* One step into component c from (fd, dir); replaces fd. Symlinks: their
 * text is prepended to rest (rest has room for PATH_MAX * 2). */
static int
init_walk_step(struct init_walk_caller *t, int *fd, char *dir, char *c,
    char *rest, int *hops)
{
	char num[48], link[PATH_MAX];
	struct stat st;
	ssize_t n;
	int nfd, e;

	if (strcmp(c, ".") == 0)
		return 0;
	if (strcmp(c, "..") == 0) {
		if (strcmp(dir, "/") == 0)
			return 0;
		if ((nfd = openat(*fd, "..", O_PATH | O_DIRECTORY |
		    O_CLOEXEC)) < 0)
			return errno;
		close(*fd);
		*fd = nfd;
		init_walk_dir_pop(dir);
		return 0;
	}
	if (strcmp(dir, "/proc") == 0) {
		/* procfs: /proc/self is the caller, other processes are off
		 * limits (sbox-init's own above all) */
		if (t->tid == 0 || init_walk_status(t) != 0)
			return EACCES;
		if (strcmp(c, "self") == 0)
			snprintf(c, NAME_MAX + 1, "%d", (int)t->tgid);
		else if (strcmp(c, "thread-self") == 0) {
			snprintf(num, sizeof num, "%d/task/%d", (int)t->tgid,
			    (int)t->tid);
			return init_walk_prepend(rest, num);
		}
		if (c[0] >= '0' && c[0] <= '9' && atoi(c) != t->tgid &&
		    atoi(c) != t->tid)
			return EACCES;
	}
	if ((nfd = openat(*fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno;
	if (fstat(nfd, &st) < 0) {
		close(nfd);
		return errno;
	}
	if (S_ISLNK(st.st_mode)) {
		close(nfd);
		if (++*hops > INIT_WALK_HOPS)
			return ELOOP;
		if (st.st_dev == init_walk_proc_dev) {
			/* a procfs link (/proc/PID/cwd, fd/N): the kernel
			 * follows it; its real path is where we are */
			if (t->tid == 0)
				return EACCES;
			if ((nfd = openat(*fd, c, O_PATH | O_DIRECTORY |
			    O_CLOEXEC)) < 0)
				return errno;
			if (init_walk_fd_path(nfd, link, sizeof link) < 0) {
				close(nfd);
				return init_state_undecided(NULL, "a /proc "
				    "link whose path cannot be read back");
			}
			close(*fd);
			*fd = nfd;
			snprintf(dir, PATH_MAX, "%s", link);
			return 0;
		}
		if ((n = readlinkat(*fd, c, link, sizeof link - 1)) <= 0)
			return n == 0 ? ENOENT : errno;
		link[n] = '\0';
		if ((e = init_walk_prepend(rest, link)) != 0)
			return e;
		if (link[0] == '/') {
			if ((nfd = open("/",
			    O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
				return errno;
			close(*fd);
			*fd = nfd;
			strcpy(dir, "/");
		}
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(nfd);
		return ENOTDIR;
	}
	close(*fd);
	*fd = nfd;
	return init_walk_dir_push(dir, c);
}

/* Walk path from (fd, dir) (fd is taken) to its parent and final name. */
static int
init_walk_walk(struct init_walk_caller *t, int fd, const char *dir,
    const char *path,
    struct init_walk_loc *l, int *hops)
{
	static char rest[PATH_MAX * 2];
	char c[NAME_MAX + 1];
	size_t n;
	int e;

	l->fd = fd;
	snprintf(l->dir, sizeof l->dir, "%s", dir);
	if (path[0] == '\0')
		return ENOENT;
	if (strlen(path) >= PATH_MAX)
		return ENAMETOOLONG;
	if (path[0] == '/') {
		close(l->fd);
		if ((l->fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return errno;
		strcpy(l->dir, "/");
	}
	memcpy(rest, path, strlen(path) + 1);
	for (;;) {
		n = strspn(rest, "/");
		memmove(rest, rest + n, strlen(rest + n) + 1);
		n = strcspn(rest, "/");
		if (n == 0)
			strcpy(c, ".");	/* "/" alone or a trailing '/' */
		else if (n > NAME_MAX)
			return ENAMETOOLONG;
		else {
			memcpy(c, rest, n);
			c[n] = '\0';
		}
		memmove(rest, rest + n, strlen(rest + n) + 1);
		if (rest[strspn(rest, "/")] == '\0' && strcmp(c, ".") != 0 &&
		    strcmp(c, "..") != 0) {
			snprintf(l->name, sizeof l->name, "%s", c);
			return 0; /* the final name */
		}
		if ((e = init_walk_step(t, &l->fd, l->dir, c, rest, hops)) != 0)
			return e;
		if (rest[strspn(rest, "/")] == '\0') {
			/* ended on "." or "..": the folder itself, by name */
			const char *s = strrchr(l->dir, '/');
			int nfd;

			if (strcmp(l->dir, "/") == 0)
				return EBUSY;
			snprintf(l->name, sizeof l->name, "%s", s + 1);
			if ((nfd = openat(l->fd, "..", O_PATH | O_DIRECTORY |
			    O_CLOEXEC)) < 0)
				return errno;
			close(l->fd);
			l->fd = nfd;
			init_walk_dir_pop(l->dir);
			return 0;
		}
	}
}

/* The common case in one call: a path without ".", ".." or a symlink in
 * its folders is opened with openat2(RESOLVE_NO_SYMLINKS), which is what
 * the walk would do one component at a time. A bare name is in *base
 * itself: that descriptor becomes the location's (*base -1 then), with
 * no second open of the same folder. An absolute path needs no base
 * (*base may be AT_FDCWD: openat2 ignores it). -1 when it does not apply
 * (the walk then runs). */
static int
init_walk_fast(int *base, const char *basedir, const char *path,
    struct init_walk_loc *l)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	const char *slash = strrchr(path, '/'), *name, *c;
	char sub[PATH_MAX];
	size_t n;
	int fd;

	if (strstr(path, "//") != NULL || path[strlen(path) - 1] == '/')
		return -1;
	for (c = path; *c != '\0'; c += n + (c[n] == '/')) {
		n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' &&
		    c[1] == '.') || n > NAME_MAX)
			return -1;
	}
	name = slash ? slash + 1 : path;
	if (slash == path) {
		/* "/name" */
		basedir = "/";
		snprintf(sub, sizeof sub, "/");
	} else if (slash == NULL) {
		/* "name" in the base folder */
		snprintf(sub, sizeof sub, ".");
	} else {
		n = (size_t)(slash - path);
		if (n >= sizeof sub)
			return -1;
		memcpy(sub, path, n);
		sub[n] = '\0';
	}
	if (strcmp(basedir, "/proc") == 0 || strncmp(basedir, "/proc/",
	    6) == 0 ||
	    strcmp(sub, "proc") == 0 || strncmp(sub, "proc/", 5) == 0 ||
	    strcmp(sub, "/proc") == 0 || strncmp(sub, "/proc/", 6) == 0)
		return -1; /* procfs: /proc/self needs the walk */
	if (slash == NULL) {
		if (*base < 0)
			return -1;
		fd = *base; /* the base folder itself, already held */
		*base = -1;
	} else if ((fd = (int)syscall(SYS_openat2, *base, sub, &how,
	    sizeof how)) < 0)
		return -1;
	if (sub[0] == '/')
		snprintf(l->dir, sizeof l->dir, "%s", sub);
	else if (strcmp(sub, ".") == 0)
		snprintf(l->dir, sizeof l->dir, "%s", basedir);
	else {
		size_t bl = strlen(basedir), sl = strlen(sub);

		if (strcmp(basedir, "/") == 0)
			bl = 0;
		if (bl + sl + 2 > sizeof l->dir) {
			close(fd);
			return -1;
		}
		memcpy(l->dir, basedir, bl);
		l->dir[bl] = '/';
		memcpy(l->dir + bl + 1, sub, sl + 1);
	}
	snprintf(l->name, sizeof l->name, "%s", name);
	l->fd = fd;
	return 0;
}

/* Resolve (dirfd, path) as the caller sees them. */
int
init_walk_resolve(struct init_walk_caller *t, int dirfd, const char *path,
    struct init_walk_loc *l,
    int *hops)
{
	char p[48], dir[PATH_MAX];
	int fd;

	l->fd = -1;
	if (path[0] == '\0')
		return ENOENT;
	if (strlen(path) >= PATH_MAX)
		return ENAMETOOLONG;
	fd = AT_FDCWD;
	if (path[0] == '/' && init_walk_fast(&fd, "/", path, l) == 0)
		return 0; /* absolute: no base folder to open */
	if (path[0] == '/' || t->tid == 0)
		strcpy(p, "/");
	else if (dirfd == AT_FDCWD)
		snprintf(p, sizeof p, "/proc/%d/cwd", (int)t->tid);
	else if (dirfd >= 0)
		snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)t->tid, dirfd);
	else
		return EBADF;
	if ((fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? EBADF : errno;
	if (strcmp(p, "/") == 0)
		strcpy(dir, "/");
	else if (init_walk_fd_path(fd, dir, sizeof dir) < 0) {
		close(fd);
		return init_state_undecided(NULL, "the folder a path starts "
		    "from cannot be read back (renamed, deleted or too long)");
	}
	if (path[0] != '/' && init_walk_fast(&fd, dir, path, l) == 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	return init_walk_walk(t, fd, dir, path, l, hops);
}

/* If the final name is a symlink, follow it (regular ones by walking their
 * text, procfs links: INIT_WALK_MAGIC). 0 when it is not (or is absent). */
int
init_walk_follow(struct init_walk_caller *t, struct init_walk_loc *l,
    int *hops, int *followed)
{
	char link[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	while (fstatat(l->fd, l->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode)) {
		if (st.st_dev == init_walk_proc_dev)
			return t->tid == 0 ? EACCES : INIT_WALK_MAGIC;
		if (++*hops > INIT_WALK_HOPS)
			return ELOOP;
		if ((n = readlinkat(l->fd, l->name, link,
		    sizeof link - 1)) <= 0)
			return n == 0 ? ENOENT : errno;
		link[n] = '\0';
		snprintf(dir, sizeof dir, "%s", l->dir);
		fd = l->fd;
		l->fd = -1;
		if ((n = init_walk_walk(t, fd, dir, link, l, hops)) != 0)
			return (int)n;
		*followed = 1;
	}
	return 0;
}

/* Is path inside one of the guarded roots (string check)? */
int
init_walk_under_roots(const char *path)
{
	const struct guard_spec *s = init_state_spec();
	size_t i, n;

	for (i = 0; s != NULL && s->roots[i] != NULL; i++) {
		n = strlen(s->roots[i]);
		if (strncmp(path, s->roots[i], n) == 0 && (path[n] == '/' ||
		    path[n] == '\0' || n == 1))
			return 1;
	}
	return 0;
}

/* The folder and name of the file an O_PATH descriptor holds (l->fd stays
 * -1 when it has no name: a pipe, a socket, an unlinked or O_TMPFILE
 * file -- a name given to it later is decided then). The path its link
 * reads is checked as init_walk_fd_path does, but through the folder then
 * held: that folder's entry of the name must be the very file (one
 * readlink and one fstat, the folder opened once). A named file whose
 * path cannot be read back (renamed meanwhile, "(deleted)" with another
 * link left, too long) is SV_UNDECIDED: refused, never passed. */
int
init_walk_loc_of(int pfd, struct init_walk_loc *l)
{
	char real[PATH_MAX], p[40], *slash;
	struct stat st, b;
	ssize_t n;

	l->fd = -1;
	snprintf(p, sizeof p, "/proc/self/fd/%d", pfd);
	if (fstat(pfd, &st) < 0)
		return init_state_undecided(NULL, "an open file the guard "
		    "cannot look at");
	n = readlink(p, real, sizeof real);
	if (n > 0 && (size_t)n < sizeof real && real[0] != '/') {
		real[n] = '\0';
		return 0; /* pipe:[N], socket:[N], anon_inode:...: no name */
	}
	if (st.st_nlink == 0 && !S_ISDIR(st.st_mode))
		return 0; /* unlinked: no name until linkat gives one */
	if (n <= 0 || (size_t)n >= sizeof real - 1)
		return init_state_undecided(NULL, "the path of an open file "
		    "cannot be read back (renamed, deleted or too long)");
	real[n] = '\0';
	slash = strrchr(real, '/');
	if (slash[1] == '\0') {
		/* "/" itself: no name, but it must be the root */
		if (fstatat(AT_FDCWD, "/", &b, AT_SYMLINK_NOFOLLOW) < 0 ||
		    b.st_dev != st.st_dev || b.st_ino != st.st_ino)
			return init_state_undecided(real, "the path of an "
			    "open file cannot be read back (renamed, deleted "
			    "or too long)");
		return 0;
	}
	if (strlen(slash + 1) > NAME_MAX)
		return init_state_undecided(real, "the path of an open file "
		    "cannot be read back (renamed, deleted or too long)");
	snprintf(l->name, sizeof l->name, "%s", slash + 1);
	*slash = '\0';
	snprintf(l->dir, sizeof l->dir, "%s", real[0] ? real : "/");
	if ((l->fd = open(l->dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    fstatat(l->fd, l->name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
	    b.st_dev != st.st_dev || b.st_ino != st.st_ino) {
		init_walk_loc_close(l);
		*slash = '/';
		return init_state_undecided(real, "the path of an open file "
		    "cannot be read back (renamed, deleted or too long)");
	}
	return 0;
}

/* The O_PATH descriptor of a caller's fd, and its folder and name. */
int
init_walk_of_fd(struct init_walk_caller *t, int fd, struct init_walk_loc *l,
    int *pfd)
{
	char p[48];

	l->fd = -1;
	snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)t->tid, fd);
	if (fd < 0 || (*pfd = open(p, O_PATH | O_CLOEXEC)) < 0)
		return EBADF;
	return init_walk_loc_of(*pfd, l);
}

/* The file a call that changes an existing file acts on: the caller's fd
 * (use_fd or path NULL), else path resolved from dirfd, its final symlink
 * followed unless nofollow, and through /proc/PID/fd/N the file it leads
 * to (its O_PATH copy in *pfd). 0 or an errno; l and *pfd to close. */
int
init_walk_target(struct init_walk_caller *t, int dirfd, const char *path,
    int nofollow, int use_fd, struct init_walk_loc *l, int *pfd)
{
	int hops = 0, followed = 0, e;

	if (use_fd || path == NULL)
		return init_walk_of_fd(t, dirfd, l, pfd);
	if ((e = init_walk_resolve(t, dirfd, path, l, &hops)) != 0 || nofollow)
		return e;
	e = init_walk_follow(t, l, &hops, &followed);
	if (e == INIT_WALK_MAGIC) {
		*pfd = openat(l->fd, l->name, O_PATH | O_CLOEXEC);
		init_walk_loc_close(l);
		e = *pfd < 0 ? errno : init_walk_loc_of(*pfd, l);
	}
	return e;
}
