/* init-ops.c: the file guard's operations. Each notified call is decided
 * (policy/guard.c) on the location init-walk.c resolved, then PERFORMED
 * here on the held parent descriptor for the caller and answered with its
 * result; sbox-init's own file operations (file.write, file.mkdir) take the
 * same path. */
#include "protocol/ctl.h"
#include "daemon/init/init-decide.h"
#include "daemon/init/init-ops.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-tty.h"
#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* Who reports a rename's or link's source that a hidden path refused (the
 * read reporter, above this file): set once at start by init-main.c. */
static init_ops_source_fn init_ops_source_hook;

/* Set the reporter of refused sources (once, at start). */
void
init_ops_set_source(init_ops_source_fn fn)
{
	init_ops_source_hook = fn;
}

/* Take the caller's umask for a creation; returns sbox-init's own, for
 * init_ops_umask_back. sbox-init's own is read once (umask(2) sets as it
 * reads) and only sbox-init changes it, here and back: when the caller's
 * is the same (022, most commands'), no call is made at all. */
static mode_t
init_ops_umask_take(mode_t want)
{
	static int own = -1;

	if (own < 0) {
		own = (int)umask(022);
		umask((mode_t)own);
	}
	if (want != (mode_t)own)
		umask(want);
	return (mode_t)own;
}

/* Give sbox-init its own umask back after init_ops_umask_take(want). */
static void
init_ops_umask_back(mode_t want, mode_t own)
{
	if (want != own)
		umask(own);
}

/* Report a rename's or link's source that a hidden path refused. */
static void
init_ops_source(struct init_sv_call *call, const char *op, int dirfd,
    const char *path, int e, int gone)
{
	if (init_ops_source_hook != NULL)
		init_ops_source_hook(call, op, dirfd, path, e, gone);
}

/* Report a write the kernel refused (a read-only mount): sboxd explains. */
static void
init_ops_kernel_refused(struct init_walk_caller *t, const char *op,
    const struct init_walk_loc *l,
    int e)
{
	char full[PATH_MAX + NAME_MAX + 2];

	if (t->call == NULL || (e != EROFS && e != EACCES && e != EPERM))
		return;
	snprintf(full, sizeof full, "%s/%s", strcmp(l->dir, "/") ? l->dir : "",
	    l->name);
	init_state_report(t->call->id, t->tid, op, full, e, "", "");
}

/* A helper process opens a FIFO that has no reader yet (the open blocks)
 * and answers the notification itself, so sbox-init never waits. */
static int
init_ops_fifo_helper(struct init_walk_caller *t, int dirfd, const char *name,
    int flags)
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
	if (fd < 0 || ioctl(t->call->lfd, SECCOMP_IOCTL_NOTIF_ADDFD,
	    &add) < 0) {
		struct seccomp_notif_resp r;

		memset(&r, 0, sizeof r);
		r.id = t->call->notif_id;
		r.error = fd < 0 ? -errno : -EPERM;
		ioctl(t->call->lfd, SECCOMP_IOCTL_NOTIF_SEND, &r);
	}
	_exit(0);
}

/* Open a procfs link's target for the caller: a write is decided on the
 * file's own folder and name (init_walk_loc_of: a path it cannot read
 * back is SV_UNDECIDED, refused). */
static int
init_ops_open_magic(struct init_walk_caller *t, struct init_walk_loc *l,
    int flags, int writing,
    int *out)
{
	struct init_walk_loc m = { .fd = -1 };
	char p[40];
	int pfd, e = 0, fd;

	if ((pfd = openat(l->fd, l->name, O_PATH | O_CLOEXEC)) < 0)
		return errno;
	if (writing || (flags & O_CREAT)) {
		e = init_walk_loc_of(pfd, &m);
		if (e == 0 && m.fd >= 0)
			e = init_decide(t, GUARD_OP_WRITE, m.fd, m.dir,
			    m.name, NULL, 0);
		init_walk_loc_close(&m);
	}
	if (e == 0 && !init_walk_valid(t))
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
		e = init_ops_fifo_helper(t, -pfd - 1, NULL, flags);
	close(pfd);
	if (fd >= 0 && !(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*out = fd;
	return e;
}

/* open/openat/creat for the caller: the opened fd in *out. */
int
init_ops_open(struct init_walk_caller *t, int dirfd, const char *path,
    int flags, mode_t mode,
    int *out, char *why, size_t whylen)
{
	int hops = 0, followed = 0, e, tries, writing, fd, exists, special;
	struct init_walk_loc l = { .fd = -1 };
	struct stat st;
	mode_t old;

	*out = -1;
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return EOPNOTSUPP; /* callers fall back to a named file */
	writing = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
	if ((e = init_walk_resolve(t, dirfd, path, &l, &hops)) != 0)
		goto out;
	for (tries = 0; tries < 8; tries++) {
		exists = 1;
		if (t->call != NULL && t->call->where != NULL)
			snprintf(t->call->where, t->call->wherelen, "%s/%s",
			    strcmp(l.dir, "/") ? l.dir : "", l.name);
		if (fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			exists = 0;
			if (errno != ENOENT || !(flags & O_CREAT)) {
				e = errno;
				goto out;
			}
			if ((e = init_decide(t, GUARD_OP_CREATE, l.fd,
			    l.dir,
			    l.name, why, whylen)) != 0)
				goto out;
		} else if (S_ISLNK(st.st_mode) && !(flags & O_PATH)) {
			if ((flags & O_NOFOLLOW) || ((flags & O_CREAT) &&
			    (flags & O_EXCL))) {
				e = (flags & O_EXCL) ? EEXIST : ELOOP;
				goto out;
			}
			e = init_walk_follow(t, &l, &hops, &followed);
			if (e == INIT_WALK_MAGIC) {
				e = init_ops_open_magic(t, &l, flags, writing,
				    out);
				goto out;
			}
			if (e != 0)
				goto out;
			continue;
		} else if (writing && !(flags & O_PATH) &&
		    (e = init_decide(t,
		    GUARD_OP_WRITE, l.fd, l.dir, l.name, why, whylen)) != 0)
			goto out;
		if (!init_walk_valid(t)) {
			e = ENOENT;
			goto out;
		}
		if ((flags & O_CREAT) && (e = init_walk_status(t)) != 0)
			goto out;
		if (exists && S_ISCHR(st.st_mode) &&
		    st.st_rdev == makedev(5, 0)) {
			/* /dev/tty: the caller's terminal, not sbox-init's
			 * (its process id is read here when no O_CREAT
			 * read it before) */
			if ((e = init_walk_status(t)) != 0)
				goto out;
			fd = init_tty_open_ctty(t->tgid, flags);
			e = fd < 0 ? -fd : 0;
			*out = fd < 0 ? -1 : fd;
			goto out;
		}
		/* O_NONBLOCK: a FIFO without a reader (or a device) must not
		 * stop sbox-init; files and new names need no such care */
		special = exists && !S_ISREG(st.st_mode) &&
		    !S_ISDIR(st.st_mode);
		if (special && t->call != NULL && t->call->reads &&
		    !(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))) {
			e = SV_CONTINUE; /* a read of a FIFO or device: the
			                    kernel's own (nothing to report) */
			goto out;
		}
		old = (flags & O_CREAT) ? init_ops_umask_take(t->umask) : 0;
		fd = openat(l.fd, l.name, flags | O_NOFOLLOW | O_CLOEXEC |
		    O_NOCTTY | (special ? O_NONBLOCK : 0),
		    mode & INIT_OPS_MODE_OK);
		e = fd < 0 ? errno : 0;
		if (flags & O_CREAT)
			init_ops_umask_back(t->umask, old);
		if (fd < 0 && (e == ELOOP || (e == EEXIST &&
		    !(flags & O_EXCL))))
			continue; /* it changed under us: look again */
		if (fd < 0 && e == ENXIO && special && S_ISFIFO(st.st_mode) &&
		    (flags & O_ACCMODE) == O_WRONLY && !(flags & O_NONBLOCK)) {
			e = init_ops_fifo_helper(t, l.fd, l.name, flags);
			goto out;
		}
		if (fd >= 0 && special && !(flags & O_NONBLOCK))
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		if (fd < 0 && (writing || (flags & O_CREAT)))
			init_ops_kernel_refused(t,
			    (flags & O_CREAT) ? "create" :
			    "write", &l, e);
		*out = fd;
		goto out;
	}
	e = ELOOP;
out:
	(void)followed;
	init_walk_loc_close(&l);
	return e;
}

/* mkdir, mknod, symlink: create one name. */
int
init_ops_create(struct init_walk_caller *t, int sc, int dirfd,
    const char *path, mode_t mode,
    dev_t dev, const char *target, char *why, size_t whylen)
{
	struct init_walk_loc l = { .fd = -1 };
	struct stat st;
	int hops = 0, e, rc;
	mode_t old;

	if ((e = init_walk_resolve(t, dirfd, path, &l, &hops)) != 0)
		goto out;
	if (fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		e = EEXIST;
		goto out;
	}
	if ((e = init_decide(t, sc == SV_MKDIR ? GUARD_OP_MKDIR :
	    GUARD_OP_CREATE, l.fd, l.dir, l.name, why, whylen)) != 0)
		goto out;
	if (!init_walk_valid(t)) {
		e = ENOENT;
		goto out;
	}
	if ((e = init_walk_status(t)) != 0)
		goto out;
	old = init_ops_umask_take(t->umask);
	if (sc == SV_MKDIR)
		rc = mkdirat(l.fd, l.name, mode & INIT_OPS_MODE_OK);
	else if (sc == SV_MKNOD)
		rc = mknodat(l.fd, l.name, mode & (S_IFMT | INIT_OPS_MODE_OK),
		    dev);
	else
		rc = symlinkat(target, l.fd, l.name);
	e = rc < 0 ? errno : 0;
	init_ops_umask_back(t->umask, old);
	if (rc < 0)
		init_ops_kernel_refused(t, "create", &l, e);
out:
	init_walk_loc_close(&l);
	return e;
}

/* Is l a hidden area's stand-in for a host file that the sandbox does not
 * have (daemon/container/standin.c: an empty file whose times are all 0,
 * which sbox-init sees and a sandboxed process does not)? A rename or link
 * of one is of a name that is not there. */
static int
init_ops_ghost(const struct init_walk_loc *l)
{
	struct stat st;

	return init_state_standins() && l->fd >= 0 && fstatat(l->fd, l->name,
	    &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0 && st.st_ctim.tv_sec == 0 &&
	    st.st_ctim.tv_nsec == 0 && st.st_mtim.tv_sec == 0;
}

/* Is a location's name absent (or never resolved)? */
static int
init_ops_gone(const struct init_walk_loc *l)
{
	struct stat st;

	return l->fd < 0 || fstatat(l->fd, l->name, &st,
	    AT_SYMLINK_NOFOLLOW) < 0 || init_ops_ghost(l);
}

/* link/linkat. */
int
init_ops_link(struct init_walk_caller *t, int odfd, const char *old, int ndfd,
    const char *new,
    int flags)
{
	struct init_walk_loc o = { .fd = -1 }, n = { .fd = -1 };
	int hops = 0, followed = 0, e, pfd = -1;
	char p[40];

	if ((flags & AT_EMPTY_PATH) && old[0] == '\0')
		e = init_walk_of_fd(t, odfd, &o, &pfd);
	else if ((e = init_walk_resolve(t, odfd, old, &o, &hops)) == 0 &&
	    (flags & AT_SYMLINK_FOLLOW)) {
		e = init_walk_follow(t, &o, &hops, &followed);
		if (e == INIT_WALK_MAGIC)
			e = EPERM; /* linking a procfs link's target: no */
	}
	if (e == 0)
		e = init_walk_resolve(t, ndfd, new, &n, &hops);
	if (e == 0 && o.fd >= 0)
		e = init_decide(t, GUARD_OP_LINK_FROM, o.fd, o.dir, o.name,
		    NULL, 0);
	if (e == 0)
		e = init_decide(t, GUARD_OP_LINK, n.fd, n.dir, n.name,
		    NULL, 0);
	if (e == 0 && (!init_walk_valid(t) || (pfd < 0 && init_ops_ghost(&o))))
		e = ENOENT;
	if (e == 0) {
		if (pfd >= 0) {
			snprintf(p, sizeof p, "/proc/self/fd/%d", pfd);
			e = linkat(AT_FDCWD, p, n.fd, n.name,
			    AT_SYMLINK_FOLLOW) <
			    0 ? errno : 0;
		} else
			e = linkat(o.fd, o.name, n.fd, n.name,
			    0) < 0 ? errno : 0;
		if (e != 0)
			init_ops_kernel_refused(t, "link", &n, e);
	}
	if (e != 0 && pfd < 0)
		init_ops_source(t->call, "link", odfd, old, e,
		    init_ops_gone(&o));
	if (pfd >= 0)
		close(pfd);
	init_walk_loc_close(&o);
	init_walk_loc_close(&n);
	return e;
}

/* Is (fd, name) a folder (not following a symlink)? */
static int
init_ops_is_dir(int fd, const char *name)
{
	struct stat st;

	return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

/* rename/renameat/renameat2. */
int
init_ops_rename(struct init_walk_caller *t, int odfd, const char *old, int ndfd,
    const char *new, unsigned flags)
{
	struct init_walk_loc o = { .fd = -1 }, n = { .fd = -1 };
	int hops = 0, e, od, nd;

	if ((e = init_walk_resolve(t, odfd, old, &o, &hops)) != 0 ||
	    (e = init_walk_resolve(t, ndfd, new, &n, &hops)) != 0)
		goto out;
	od = init_ops_is_dir(o.fd, o.name);
	nd = init_ops_is_dir(n.fd, n.name);
	if ((e = init_decide(t, od ? GUARD_OP_RENAME_DIR_FROM :
	    GUARD_OP_RENAME_FROM, o.fd, o.dir, o.name, NULL, 0)) != 0 ||
	    (e = init_decide(t, od ? GUARD_OP_RENAME_DIR : GUARD_OP_RENAME,
	    n.fd,
	    n.dir, n.name, NULL, 0)) != 0)
		goto out;
	if ((flags & RENAME_EXCHANGE) && ((e = init_decide(t, nd ?
	    GUARD_OP_RENAME_DIR_FROM : GUARD_OP_RENAME_FROM, n.fd, n.dir,
	    n.name, NULL, 0)) != 0 || (e = init_decide(t, nd ?
	    GUARD_OP_RENAME_DIR : GUARD_OP_RENAME, o.fd, o.dir, o.name, NULL,
	    0)) != 0))
		goto out;
	if (!init_walk_valid(t) || init_ops_ghost(&o)) {
		e = ENOENT;
		goto out;
	}
	e = syscall(SYS_renameat2, o.fd, o.name, n.fd, n.name, flags) < 0 ?
	    errno : 0;
	if (e != 0)
		init_ops_kernel_refused(t, "rename", &n, e);
out:
	if (e != 0)
		init_ops_source(t->call, "rename", odfd, old, e,
		    init_ops_gone(&o));
	init_walk_loc_close(&o);
	init_walk_loc_close(&n);
	return e;
}

/* truncate, chmod, fchmodat(2), fchmod: change an existing file. */
int
init_ops_change(struct init_walk_caller *t, int sc, int dirfd,
    const char *path, int nofollow,
    mode_t mode, off_t len)
{
	struct init_walk_loc l = { .fd = -1 };
	int e, fd, pfd = -1;
	char p[40];
	struct stat st;

	if ((e = init_walk_target(t, dirfd, path, nofollow, sc == SV_FCHMOD,
	    &l, &pfd)) != 0)
		goto out;
	if (l.fd >= 0 && (e = init_decide(t, sc == SV_TRUNCATE ||
	    sc == SV_TRUNCATE64 ? GUARD_OP_WRITE : GUARD_OP_CHMOD, l.fd, l.dir,
	    l.name, NULL, 0)) != 0)
		goto out;
	if (!init_walk_valid(t)) {
		e = ENOENT;
		goto out;
	}
	snprintf(p, sizeof p, "/proc/self/fd/%d", pfd);
	if (sc == SV_TRUNCATE || sc == SV_TRUNCATE64) {
		if (pfd >= 0)
			fd = open(p,
			    O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
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
		e = fchmodat(AT_FDCWD, p, mode & INIT_OPS_MODE_OK, 0) < 0 ?
		    errno : 0;
	else if (nofollow && fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) ==
	    0 && S_ISLNK(st.st_mode))
		e = EOPNOTSUPP;
	else
		e = fchmodat(l.fd, l.name, mode & INIT_OPS_MODE_OK, 0) < 0 ?
		    errno : 0;
	if (e != 0 && l.fd >= 0)
		init_ops_kernel_refused(t, sc == SV_TRUNCATE ||
		    sc == SV_TRUNCATE64 ?
		    "write" : "chmod", &l, e);
out:
	if (pfd >= 0)
		close(pfd);
	init_walk_loc_close(&l);
	return e;
}
