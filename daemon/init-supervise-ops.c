/* init-supervise-ops.c: the file guard's path walking and operations. A
 * path is read once from the caller's memory and walked here, one
 * component at a time with O_PATH|O_NOFOLLOW descriptors: a symlink is read
 * and its text walked (bounded), "/proc/self" means the caller, a procfs
 * link (/proc/PID/fd/N) is followed by the kernel and the file it leads to
 * is checked by its real path. The operation then runs on the held parent
 * descriptor with O_NOFOLLOW, so what was checked is what is changed. */
#include "daemon/ctl.h"
#include "daemon/init.h"
#include "daemon/init-supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define SV_HOPS_MAX 40
#define SV_MAGIC    1000   /* the final name is a procfs link */

static dev_t sv_proc_dev;

/* The caller. tid 0 = sbox-init itself (its file operations). */
struct sv_t {
	struct init_sv_call *call;
	pid_t  tid, tgid;
	int    mem;           /* /proc/TID/mem, -1 until needed */
	mode_t umask;
	int    status;        /* tgid and umask read (0 = not yet) */
};

/* A resolved location: the parent folder (held) and the final name. */
struct sv_loc {
	int  fd;
	char dir[PATH_MAX];
	char name[NAME_MAX + 1];
};

/* Set up: remember procfs's device. */
const char *
init_supervise_ops_init(void)
{
	struct stat st;

	if (stat("/proc/self", &st) < 0)
		return "no /proc in the sandbox";
	sv_proc_dev = st.st_dev;
	return NULL;
}

/* Close a location's descriptor. */
static void
sv_loc_close(struct sv_loc *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

/* Read a NUL-terminated string at addr of the caller into buf. */
static int
sv_read_str(struct sv_t *t, uint64_t addr, char *buf, size_t len)
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

/* The caller's thread group and umask from /proc/TID/status, read once
 * and only when needed (procfs paths, creations). */
static int
sv_status(struct sv_t *t)
{
	char p[32], buf[2048], *s;
	ssize_t n;
	int fd;

	if (t->status || t->tid == 0)
		return 0;
	t->status = 1;

	snprintf(p, sizeof p, "/proc/%d/status", (int)t->tid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return ESRCH;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
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
static int
sv_valid(struct sv_t *t)
{
	uint64_t id;

	if (t->call == NULL)
		return 1;
	id = t->call->notif_id;
	return ioctl(t->call->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* The absolute path a descriptor leads to (via /proc/self/fd), or -1. */
static int
sv_fd_path(int fd, char *buf, size_t len)
{
	char p[40];
	ssize_t n;

	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	if ((n = readlink(p, buf, len - 1)) <= 0 || (size_t)n >= len - 1)
		return -1;
	buf[n] = '\0';
	return buf[0] == '/' && strstr(buf, " (deleted)") == NULL ? 0 : -1;
}

/* Append a component to an absolute path ("/" + name). */
static int
sv_dir_push(char *dir, const char *name)
{
	size_t n = strlen(dir), m = strlen(name);

	if (n + m + 2 > PATH_MAX)
		return ENAMETOOLONG;
	if (n > 1)
		dir[n++] = '/';
	memcpy(dir + n, name, m + 1);
	return 0;
}

/* Drop the last component of an absolute path. */
static void
sv_dir_pop(char *dir)
{
	char *s = strrchr(dir, '/');

	if (s == dir)
		dir[1] = '\0';
	else if (s != NULL)
		*s = '\0';
}

/* Put head + "/" in front of rest (room: PATH_MAX * 2). */
static int
sv_prepend(char *rest, const char *head)
{
	size_t h = strlen(head), r = strlen(rest);

	if (h + r + 2 > PATH_MAX * 2)
		return ENAMETOOLONG;
	memmove(rest + h + (r ? 1 : 0), rest, r + 1);
	memcpy(rest, head, h);
	if (r)
		rest[h] = '/';
	return 0;
}

/* One step into component c from (fd, dir); replaces fd. Symlinks: their
 * text is prepended to rest (rest has room for PATH_MAX * 2). */
static int
sv_step(struct sv_t *t, int *fd, char *dir, char *c, char *rest, int *hops)
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
		sv_dir_pop(dir);
		return 0;
	}
	if (strcmp(dir, "/proc") == 0) {
		/* procfs: /proc/self is the caller, other processes are off
		 * limits (sbox-init's own above all) */
		if (t->tid == 0 || sv_status(t) != 0)
			return EACCES;
		if (strcmp(c, "self") == 0)
			snprintf(c, NAME_MAX + 1, "%d", (int)t->tgid);
		else if (strcmp(c, "thread-self") == 0) {
			snprintf(num, sizeof num, "%d/task/%d", (int)t->tgid,
			    (int)t->tid);
			return sv_prepend(rest, num);
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
		if (++*hops > SV_HOPS_MAX)
			return ELOOP;
		if (st.st_dev == sv_proc_dev) {
			/* a procfs link (/proc/PID/cwd, fd/N): the kernel
			 * follows it; its real path is where we are */
			if (t->tid == 0)
				return EACCES;
			if ((nfd = openat(*fd, c, O_PATH | O_DIRECTORY |
			    O_CLOEXEC)) < 0)
				return errno;
			if (sv_fd_path(nfd, link, sizeof link) < 0) {
				close(nfd);
				return ENOTDIR;
			}
			close(*fd);
			*fd = nfd;
			snprintf(dir, PATH_MAX, "%s", link);
			return 0;
		}
		if ((n = readlinkat(*fd, c, link, sizeof link - 1)) <= 0)
			return n == 0 ? ENOENT : errno;
		link[n] = '\0';
		if ((e = sv_prepend(rest, link)) != 0)
			return e;
		if (link[0] == '/') {
			if ((nfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
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
	return sv_dir_push(dir, c);
}

/* Walk path from (fd, dir) (fd is taken) to its parent and final name. */
static int
sv_walk(struct sv_t *t, int fd, const char *dir, const char *path,
    struct sv_loc *l, int *hops)
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
		if ((e = sv_step(t, &l->fd, l->dir, c, rest, hops)) != 0)
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
			sv_dir_pop(l->dir);
			return 0;
		}
	}
}

/* The common case in one call: a path without ".", ".." or a symlink in
 * its folders is opened with openat2(RESOLVE_NO_SYMLINKS), which is what
 * the walk would do one component at a time. -1 when it does not apply
 * (the walk then runs). */
static int
sv_fast(int base, const char *basedir, const char *path, struct sv_loc *l)
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
	if (slash == NULL || slash == path) {
		/* "name" in the base folder, or "/name" */
		if (slash == path)
			basedir = "/";
		snprintf(sub, sizeof sub, ".");
	} else {
		n = (size_t)(slash - path);
		if (n >= sizeof sub)
			return -1;
		memcpy(sub, path, n);
		sub[n] = '\0';
	}
	if (strcmp(basedir, "/proc") == 0 || strncmp(basedir, "/proc/", 6) == 0 ||
	    strcmp(sub, "proc") == 0 || strncmp(sub, "proc/", 5) == 0 ||
	    strcmp(sub, "/proc") == 0 || strncmp(sub, "/proc/", 6) == 0)
		return -1; /* procfs: /proc/self needs the walk */
	fd = (int)syscall(SYS_openat2, base, sub, &how, sizeof how);
	if (fd < 0)
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
static int
sv_resolve(struct sv_t *t, int dirfd, const char *path, struct sv_loc *l,
    int *hops)
{
	char p[48], dir[PATH_MAX];
	int fd;

	l->fd = -1;
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
	else if (sv_fd_path(fd, dir, sizeof dir) < 0) {
		close(fd);
		return ENOENT;
	}
	if (sv_fast(fd, dir, path, l) == 0) {
		close(fd);
		return 0;
	}
	return sv_walk(t, fd, dir, path, l, hops);
}

/* guard_fs: lstat relative to the decided name's folder. */
static int
sv_lstat(void *arg, const char *rel, struct stat *st)
{
	return fstatat(*(int *)arg, rel, st, AT_SYMLINK_NOFOLLOW);
}

/* Ask the guard about op on (dir, name) held by fd; report a refusal. */
static int
sv_decide(struct sv_t *t, enum guard_op op, int fd, const char *dir,
    const char *name, char *why, size_t whylen)
{
	const struct guard_spec *s = init_supervise_spec();
	struct guard_fs fs = { sv_lstat, &fd };
	struct guard_verdict v;
	char full[PATH_MAX + NAME_MAX + 2];

	if (s == NULL)
		return EPERM;
	guard_decide(s, op, dir, name, &fs, &v);
	if (v.err == 0)
		return 0;
	snprintf(full, sizeof full, "%s/%s", strcmp(dir, "/") ? dir : "", name);
	if (why != NULL)
		snprintf(why, whylen, "%s refused: %s (%s)", full, v.rule,
		    v.reason);
	if (t->call != NULL)
		init_supervise_report(t->call->id, t->tid, guard_op_name(op),
		    full, v.err, v.rule, v.reason);
	return v.err;
}

/* Report a write the kernel refused (a read-only mount): sboxd explains. */
static void
sv_kernel_refused(struct sv_t *t, const char *op, const struct sv_loc *l,
    int e)
{
	char full[PATH_MAX + NAME_MAX + 2];

	if (t->call == NULL || (e != EROFS && e != EACCES && e != EPERM))
		return;
	snprintf(full, sizeof full, "%s/%s", strcmp(l->dir, "/") ? l->dir : "",
	    l->name);
	init_supervise_report(t->call->id, t->tid, op, full, e, "", "");
}

/* If the final name is a symlink, follow it (regular ones by walking their
 * text, procfs links: SV_MAGIC). 0 when it is not (or is absent). */
static int
sv_follow(struct sv_t *t, struct sv_loc *l, int *hops, int *followed)
{
	char link[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	while (fstatat(l->fd, l->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode)) {
		if (st.st_dev == sv_proc_dev)
			return t->tid == 0 ? EACCES : SV_MAGIC;
		if (++*hops > SV_HOPS_MAX)
			return ELOOP;
		if ((n = readlinkat(l->fd, l->name, link, sizeof link - 1)) <= 0)
			return n == 0 ? ENOENT : errno;
		link[n] = '\0';
		snprintf(dir, sizeof dir, "%s", l->dir);
		fd = l->fd;
		l->fd = -1;
		if ((n = sv_walk(t, fd, dir, link, l, hops)) != 0)
			return (int)n;
		*followed = 1;
	}
	return 0;
}

/* Is path inside one of the guarded roots (string check)? */
static int
sv_under_roots(const char *path)
{
	const struct guard_spec *s = init_supervise_spec();
	size_t i, n;

	for (i = 0; s != NULL && s->roots[i] != NULL; i++) {
		n = strlen(s->roots[i]);
		if (strncmp(path, s->roots[i], n) == 0 && (path[n] == '/' ||
		    path[n] == '\0' || n == 1))
			return 1;
	}
	return 0;
}

/* A helper process opens a FIFO that has no reader yet (the open blocks)
 * and answers the notification itself, so sbox-init never waits. */
static int
sv_fifo_helper(struct sv_t *t, int dirfd, const char *name, int flags)
{
	static int helpers;
	struct seccomp_notif_addfd add;
	char p[40];
	pid_t pid;
	int fd;

	if (t->call == NULL)
		return ENXIO;
	/* a bound on helpers alive: reaped ones are not counted back, the
	 * bound only has to keep a loop from forking without end */
	if (helpers >= 256)
		return EAGAIN;
	if ((pid = fork()) < 0)
		return EAGAIN;
	if (pid > 0) {
		helpers++;
		return SV_ANSWERED;
	}
	if (dirfd < 0) {
		snprintf(p, sizeof p, "/proc/self/fd/%d", -dirfd - 1);
		fd = open(p, flags | O_CLOEXEC | O_NOCTTY);
	} else
		fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC |
		    O_NOCTTY);
	memset(&add, 0, sizeof add);
	add.id = t->call->notif_id;
	add.flags = SECCOMP_ADDFD_FLAG_SEND;
	add.srcfd = (uint32_t)fd;
	add.newfd_flags = t->call->cloexec ? O_CLOEXEC : 0;
	if (fd < 0 || ioctl(t->call->lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0) {
		struct seccomp_notif_resp r;

		memset(&r, 0, sizeof r);
		r.id = t->call->notif_id;
		r.error = fd < 0 ? -errno : -EPERM;
		ioctl(t->call->lfd, SECCOMP_IOCTL_NOTIF_SEND, &r);
	}
	_exit(0);
}

/* Open a procfs link's target for the caller, checking its real path. */
static int
sv_open_magic(struct sv_t *t, struct sv_loc *l, int flags, int writing,
    int *out)
{
	char real[PATH_MAX], p[40], *slash;
	int pfd, dfd, e = 0, fd;

	if ((pfd = openat(l->fd, l->name, O_PATH | O_CLOEXEC)) < 0)
		return errno;
	/* a pipe, a socket, a terminal or a file outside the guarded roots:
	 * nothing to decide */
	if (writing && sv_fd_path(pfd, real, sizeof real) == 0 &&
	    sv_under_roots(real) && (slash = strrchr(real, '/')) != NULL &&
	    slash[1] != '\0') {
		*slash = '\0';
		dfd = open(real[0] ? real : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			e = sv_decide(t, GUARD_OP_WRITE, dfd, real[0] ? real :
			    "/", slash + 1, NULL, 0);
			close(dfd);
		} else
			e = EPERM;
	}
	if (e == 0 && !sv_valid(t))
		e = ENOENT;
	if (e != 0) {
		close(pfd);
		return e;
	}
	snprintf(p, sizeof p, "/proc/self/fd/%d", pfd);
	flags &= ~(O_CREAT | O_EXCL | O_NOFOLLOW);
	fd = open(p, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	e = fd < 0 ? errno : 0;
	if (fd < 0 && e == ENXIO && (flags & O_ACCMODE) == O_WRONLY &&
	    !(flags & O_NONBLOCK))
		e = sv_fifo_helper(t, -pfd - 1, NULL, flags);
	close(pfd);
	if (fd >= 0 && !(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*out = fd;
	return e;
}

/* open/openat/creat for the caller: the opened fd in *out. */
static int
sv_open(struct sv_t *t, int dirfd, const char *path, int flags, mode_t mode,
    int *out, char *why, size_t whylen)
{
	int hops = 0, followed = 0, e, tries, writing, fd, exists, special;
	struct sv_loc l = { .fd = -1 };
	struct stat st;
	mode_t old;

	*out = -1;
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return EOPNOTSUPP; /* callers fall back to a named file */
	writing = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
	if ((e = sv_resolve(t, dirfd, path, &l, &hops)) != 0)
		goto out;
	for (tries = 0; tries < 8; tries++) {
		exists = 1;
		if (fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			exists = 0;
			if (errno != ENOENT || !(flags & O_CREAT)) {
				e = errno;
				goto out;
			}
			if ((e = sv_decide(t, GUARD_OP_CREATE, l.fd, l.dir,
			    l.name, why, whylen)) != 0)
				goto out;
		} else if (S_ISLNK(st.st_mode) && !(flags & O_PATH)) {
			if ((flags & O_NOFOLLOW) || ((flags & O_CREAT) &&
			    (flags & O_EXCL))) {
				e = (flags & O_EXCL) ? EEXIST : ELOOP;
				goto out;
			}
			e = sv_follow(t, &l, &hops, &followed);
			if (e == SV_MAGIC) {
				e = sv_open_magic(t, &l, flags, writing, out);
				goto out;
			}
			if (e != 0)
				goto out;
			continue;
		} else if (writing && !(flags & O_PATH) && (e = sv_decide(t,
		    GUARD_OP_WRITE, l.fd, l.dir, l.name, why, whylen)) != 0)
			goto out;
		if (!sv_valid(t)) {
			e = ENOENT;
			goto out;
		}
		if ((flags & O_CREAT) && (e = sv_status(t)) != 0)
			goto out;
		/* O_NONBLOCK: a FIFO without a reader (or a device) must not
		 * stop sbox-init; files and new names need no such care */
		special = exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
		old = (flags & O_CREAT) ? umask(t->umask) : 0;
		fd = openat(l.fd, l.name, flags | O_NOFOLLOW | O_CLOEXEC |
		    O_NOCTTY | (special ? O_NONBLOCK : 0), mode);
		e = fd < 0 ? errno : 0;
		if (flags & O_CREAT)
			umask(old);
		if (fd < 0 && (e == ELOOP || (e == EEXIST &&
		    !(flags & O_EXCL))))
			continue; /* it changed under us: look again */
		if (fd < 0 && e == ENXIO && special && S_ISFIFO(st.st_mode) &&
		    (flags & O_ACCMODE) == O_WRONLY && !(flags & O_NONBLOCK)) {
			e = sv_fifo_helper(t, l.fd, l.name, flags);
			goto out;
		}
		if (fd >= 0 && special && !(flags & O_NONBLOCK))
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		if (fd < 0)
			sv_kernel_refused(t, (flags & O_CREAT) ? "create" :
			    "write", &l, e);
		*out = fd;
		goto out;
	}
	e = ELOOP;
out:
	(void)followed;
	sv_loc_close(&l);
	return e;
}

/* mkdir, mknod, symlink: create one name. */
static int
sv_create(struct sv_t *t, int sc, int dirfd, const char *path, mode_t mode,
    dev_t dev, const char *target, char *why, size_t whylen)
{
	struct sv_loc l = { .fd = -1 };
	struct stat st;
	int hops = 0, e, rc;
	mode_t old;

	if ((e = sv_resolve(t, dirfd, path, &l, &hops)) != 0)
		goto out;
	if (fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		e = EEXIST;
		goto out;
	}
	if ((e = sv_decide(t, GUARD_OP_CREATE, l.fd, l.dir, l.name, why,
	    whylen)) != 0)
		goto out;
	if (!sv_valid(t)) {
		e = ENOENT;
		goto out;
	}
	if ((e = sv_status(t)) != 0)
		goto out;
	old = umask(t->umask);
	if (sc == SV_MKDIR)
		rc = mkdirat(l.fd, l.name, mode);
	else if (sc == SV_MKNOD)
		rc = mknodat(l.fd, l.name, mode, dev);
	else
		rc = symlinkat(target, l.fd, l.name);
	e = rc < 0 ? errno : 0;
	umask(old);
	if (rc < 0)
		sv_kernel_refused(t, "create", &l, e);
out:
	sv_loc_close(&l);
	return e;
}

/* The folder and name of the file an O_PATH descriptor holds, when it is
 * a named file inside a guarded root (l->fd stays -1 otherwise: nothing to
 * decide). */
static int
sv_loc_of(int pfd, struct sv_loc *l)
{
	char real[PATH_MAX], *slash;

	l->fd = -1;
	if (sv_fd_path(pfd, real, sizeof real) < 0 || !sv_under_roots(real) ||
	    (slash = strrchr(real, '/')) == NULL || slash[1] == '\0')
		return 0;
	snprintf(l->name, sizeof l->name, "%s", slash + 1);
	*slash = '\0';
	snprintf(l->dir, sizeof l->dir, "%s", real[0] ? real : "/");
	l->fd = open(l->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return l->fd < 0 ? EPERM : 0;
}

/* The O_PATH descriptor of a caller's fd, and its folder and name. */
static int
sv_of_fd(struct sv_t *t, int fd, struct sv_loc *l, int *pfd)
{
	char p[48];

	l->fd = -1;
	snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)t->tid, fd);
	if (fd < 0 || (*pfd = open(p, O_PATH | O_CLOEXEC)) < 0)
		return EBADF;
	return sv_loc_of(*pfd, l);
}

/* link/linkat. */
static int
sv_link(struct sv_t *t, int odfd, const char *old, int ndfd, const char *new,
    int flags)
{
	struct sv_loc o = { .fd = -1 }, n = { .fd = -1 };
	int hops = 0, followed = 0, e, pfd = -1;
	char p[40];

	if ((flags & AT_EMPTY_PATH) && old[0] == '\0')
		e = sv_of_fd(t, odfd, &o, &pfd);
	else if ((e = sv_resolve(t, odfd, old, &o, &hops)) == 0 &&
	    (flags & AT_SYMLINK_FOLLOW)) {
		e = sv_follow(t, &o, &hops, &followed);
		if (e == SV_MAGIC)
			e = EPERM; /* linking a procfs link's target: no */
	}
	if (e == 0)
		e = sv_resolve(t, ndfd, new, &n, &hops);
	if (e == 0 && o.fd >= 0)
		e = sv_decide(t, GUARD_OP_LINK_FROM, o.fd, o.dir, o.name, NULL, 0);
	if (e == 0)
		e = sv_decide(t, GUARD_OP_LINK, n.fd, n.dir, n.name, NULL, 0);
	if (e == 0 && !sv_valid(t))
		e = ENOENT;
	if (e == 0) {
		if (pfd >= 0) {
			snprintf(p, sizeof p, "/proc/self/fd/%d", pfd);
			e = linkat(AT_FDCWD, p, n.fd, n.name, AT_SYMLINK_FOLLOW) <
			    0 ? errno : 0;
		} else
			e = linkat(o.fd, o.name, n.fd, n.name, 0) < 0 ? errno : 0;
		if (e != 0)
			sv_kernel_refused(t, "link", &n, e);
	}
	if (pfd >= 0)
		close(pfd);
	sv_loc_close(&o);
	sv_loc_close(&n);
	return e;
}

/* Is (fd, name) a folder (not following a symlink)? */
static int
sv_is_dir(int fd, const char *name)
{
	struct stat st;

	return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

/* rename/renameat/renameat2. */
static int
sv_rename(struct sv_t *t, int odfd, const char *old, int ndfd,
    const char *new, unsigned flags)
{
	struct sv_loc o = { .fd = -1 }, n = { .fd = -1 };
	int hops = 0, e, od, nd;

	if ((e = sv_resolve(t, odfd, old, &o, &hops)) != 0 ||
	    (e = sv_resolve(t, ndfd, new, &n, &hops)) != 0)
		goto out;
	od = sv_is_dir(o.fd, o.name);
	nd = sv_is_dir(n.fd, n.name);
	if ((e = sv_decide(t, od ? GUARD_OP_RENAME_DIR_FROM :
	    GUARD_OP_RENAME_FROM, o.fd, o.dir, o.name, NULL, 0)) != 0 ||
	    (e = sv_decide(t, od ? GUARD_OP_RENAME_DIR : GUARD_OP_RENAME, n.fd,
	    n.dir, n.name, NULL, 0)) != 0)
		goto out;
	if ((flags & RENAME_EXCHANGE) && ((e = sv_decide(t, nd ?
	    GUARD_OP_RENAME_DIR_FROM : GUARD_OP_RENAME_FROM, n.fd, n.dir,
	    n.name, NULL, 0)) != 0 || (e = sv_decide(t, nd ?
	    GUARD_OP_RENAME_DIR : GUARD_OP_RENAME, o.fd, o.dir, o.name, NULL,
	    0)) != 0))
		goto out;
	if (!sv_valid(t)) {
		e = ENOENT;
		goto out;
	}
	e = syscall(SYS_renameat2, o.fd, o.name, n.fd, n.name, flags) < 0 ?
	    errno : 0;
	if (e != 0)
		sv_kernel_refused(t, "rename", &n, e);
out:
	sv_loc_close(&o);
	sv_loc_close(&n);
	return e;
}

/* truncate, chmod, fchmodat(2), fchmod: change an existing file. */
static int
sv_change(struct sv_t *t, int sc, int dirfd, const char *path, int nofollow,
    mode_t mode, off_t len)
{
	struct sv_loc l = { .fd = -1 };
	int hops = 0, followed = 0, e, fd, pfd = -1;
	char p[40];
	struct stat st;

	if (sc == SV_FCHMOD || path == NULL)
		e = sv_of_fd(t, dirfd, &l, &pfd);
	else if ((e = sv_resolve(t, dirfd, path, &l, &hops)) == 0 && !nofollow) {
		e = sv_follow(t, &l, &hops, &followed);
		if (e == SV_MAGIC) {
			/* chmod or truncate through /proc/PID/fd/N */
			pfd = openat(l.fd, l.name, O_PATH | O_CLOEXEC);
			sv_loc_close(&l);
			e = pfd < 0 ? errno : sv_loc_of(pfd, &l);
		}
	}
	if (e != 0)
		goto out;
	if (l.fd >= 0 && (e = sv_decide(t, sc == SV_TRUNCATE ||
	    sc == SV_TRUNCATE64 ? GUARD_OP_WRITE : GUARD_OP_CHMOD, l.fd, l.dir,
	    l.name, NULL, 0)) != 0)
		goto out;
	if (!sv_valid(t)) {
		e = ENOENT;
		goto out;
	}
	snprintf(p, sizeof p, "/proc/self/fd/%d", pfd);
	if (sc == SV_TRUNCATE || sc == SV_TRUNCATE64) {
		if (pfd >= 0)
			fd = open(p, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		else if (fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode)) {
			e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
			goto out;
		} else
			fd = openat(l.fd, l.name, O_WRONLY | O_NOFOLLOW |
			    O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		e = fd < 0 ? errno : ftruncate(fd, len) < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
	} else if (pfd >= 0)
		e = fchmodat(AT_FDCWD, p, mode, 0) < 0 ? errno : 0;
	else if (nofollow && fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) ==
	    0 && S_ISLNK(st.st_mode))
		e = EOPNOTSUPP;
	else
		e = fchmodat(l.fd, l.name, mode, 0) < 0 ? errno : 0;
	if (e != 0 && l.fd >= 0)
		sv_kernel_refused(t, sc == SV_TRUNCATE || sc == SV_TRUNCATE64 ?
		    "write" : "chmod", &l, e);
out:
	if (pfd >= 0)
		close(pfd);
	sv_loc_close(&l);
	return e;
}

/* An fd argument (32-bit on every ABI). */
static int
sv_fdarg(uint64_t v)
{
	return (int)(uint32_t)v;
}

/* Perform one notified call for its caller. */
int
init_supervise_call(struct init_sv_call *call, int *fd)
{
	static char p1[PATH_MAX], p2[PATH_MAX];
	const __u64 *a = call->data->args;
	struct sv_t t = { .call = call, .tid = call->tid, .mem = -1 };
	int e, sc = call->sc, flags;

	*fd = -1;
	switch (sc) {
	case SV_OPEN:
	case SV_OPENAT:
	case SV_CREAT:
		if ((e = sv_read_str(&t, sc == SV_OPENAT ? a[1] : a[0], p1,
		    sizeof p1)) != 0)
			break;
		flags = sc == SV_CREAT ? O_CREAT | O_WRONLY | O_TRUNC :
		    (int)(uint32_t)(sc == SV_OPEN ? a[1] : a[2]);
		call->cloexec = (flags & O_CLOEXEC) != 0;
		e = sv_open(&t, sc == SV_OPENAT ? sv_fdarg(a[0]) : AT_FDCWD, p1,
		    flags, (mode_t)(sc == SV_OPEN ? a[2] : sc == SV_CREAT ?
		    a[1] : a[3]) & 07777, fd, NULL, 0);
		break;
	case SV_MKDIR:
	case SV_MKDIRAT:
	case SV_MKNOD:
	case SV_MKNODAT: {
		int at = sc == SV_MKDIRAT || sc == SV_MKNODAT;

		if ((e = sv_read_str(&t, a[at], p1, sizeof p1)) != 0)
			break;
		e = sv_create(&t, sc == SV_MKDIR || sc == SV_MKDIRAT ? SV_MKDIR :
		    SV_MKNOD, at ? sv_fdarg(a[0]) : AT_FDCWD, p1,
		    (mode_t)a[at + 1], (dev_t)a[at + 2], NULL, NULL, 0);
		break;
	}
	case SV_SYMLINK:
	case SV_SYMLINKAT:
		if ((e = sv_read_str(&t, a[0], p2, sizeof p2)) != 0 ||
		    (e = sv_read_str(&t, sc == SV_SYMLINK ? a[1] : a[2], p1,
		    sizeof p1)) != 0)
			break;
		e = sv_create(&t, SV_SYMLINK, sc == SV_SYMLINK ? AT_FDCWD :
		    sv_fdarg(a[1]), p1, 0, 0, p2, NULL, 0);
		break;
	case SV_LINK:
	case SV_LINKAT:
		if (sc == SV_LINK)
			e = sv_read_str(&t, a[0], p1, sizeof p1) ? EFAULT :
			    sv_read_str(&t, a[1], p2, sizeof p2);
		else
			e = sv_read_str(&t, a[1], p1, sizeof p1) ? EFAULT :
			    sv_read_str(&t, a[3], p2, sizeof p2);
		if (e == 0)
			e = sc == SV_LINK ? sv_link(&t, AT_FDCWD, p1, AT_FDCWD,
			    p2, 0) : sv_link(&t, sv_fdarg(a[0]), p1,
			    sv_fdarg(a[2]), p2, (int)a[4]);
		break;
	case SV_RENAME:
	case SV_RENAMEAT:
	case SV_RENAMEAT2:
		if (sc == SV_RENAME)
			e = sv_read_str(&t, a[0], p1, sizeof p1) ? EFAULT :
			    sv_read_str(&t, a[1], p2, sizeof p2);
		else
			e = sv_read_str(&t, a[1], p1, sizeof p1) ? EFAULT :
			    sv_read_str(&t, a[3], p2, sizeof p2);
		if (e == 0)
			e = sc == SV_RENAME ? sv_rename(&t, AT_FDCWD, p1, AT_FDCWD,
			    p2, 0) : sv_rename(&t, sv_fdarg(a[0]), p1,
			    sv_fdarg(a[2]), p2, sc == SV_RENAMEAT2 ?
			    (unsigned)a[4] : 0);
		break;
	case SV_TRUNCATE:
	case SV_TRUNCATE64:
		if ((e = sv_read_str(&t, a[0], p1, sizeof p1)) != 0)
			break;
		e = sv_change(&t, sc, AT_FDCWD, p1, 0, 0, sc == SV_TRUNCATE64 &&
		    call->data->arch != AUDIT_ARCH_X86_64 ? (off_t)(a[1] |
		    (a[2] << 32)) : (off_t)a[1]);
		break;
	case SV_CHMOD:
		if ((e = sv_read_str(&t, a[0], p1, sizeof p1)) != 0)
			break;
		e = sv_change(&t, sc, AT_FDCWD, p1, 0, (mode_t)a[1], 0);
		break;
	case SV_FCHMOD:
		e = sv_change(&t, sc, sv_fdarg(a[0]), NULL, 0, (mode_t)a[1], 0);
		break;
	case SV_FCHMODAT:
	case SV_FCHMODAT2:
		flags = sc == SV_FCHMODAT2 ? (int)a[3] : 0;
		if ((e = sv_read_str(&t, a[1], p1, sizeof p1)) != 0)
			break;
		e = sv_change(&t, sc, sv_fdarg(a[0]), (flags & AT_EMPTY_PATH) &&
		    p1[0] == '\0' ? NULL : p1, (flags & AT_SYMLINK_NOFOLLOW) != 0,
		    (mode_t)a[2], 0);
		break;
	default:
		e = EPERM;
	}
	if (t.mem >= 0)
		close(t.mem);
	return e;
}

/* sbox-init's own file operations (file.write, file.mkdir): the same
 * walk and the same decision. Returns an fd (or 0) or -errno; why gets the
 * guard's reason when it refused. */
int
init_supervise_file_open(const char *path, int flags, mode_t mode, char *why,
    size_t whylen)
{
	struct sv_t t = { .mem = -1, .umask = 022 };
	int fd = -1, e;

	why[0] = '\0';
	if (init_supervise_spec() == NULL) {
		snprintf(why, whylen, "the file guard is not set up");
		return -EPERM;
	}
	e = sv_open(&t, AT_FDCWD, path, flags, mode, &fd, why, whylen);
	return e != 0 ? -e : fd;
}

/* sbox-init's own mkdir. */
int
init_supervise_file_mkdir(const char *path, mode_t mode, char *why,
    size_t whylen)
{
	struct sv_t t = { .mem = -1, .umask = 022 };

	why[0] = '\0';
	if (init_supervise_spec() == NULL) {
		snprintf(why, whylen, "the file guard is not set up");
		return -EPERM;
	}
	return -sv_create(&t, SV_MKDIR, AT_FDCWD, path, mode, 0, NULL, why,
	    whylen);
}
