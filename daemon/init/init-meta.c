/* init-meta.c: the file guard's removals and metadata changes. unlink,
 * unlinkat (AT_REMOVEDIR too) and rmdir; the chown, utime and removexattr
 * families. Each is decided (policy/guard.c) on the name init-walk.c
 * resolved -- an fd's on its file, read back and checked to lead to it --
 * and PERFORMED here on the held folder (or the held descriptor), so what
 * was decided is what changes: no path is looked up twice. */
#include "daemon/init/init-decide.h"
#include "daemon/init/init-meta.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef UTIME_NOW
#define UTIME_NOW ((1l << 30) - 1l)
#endif

/* What a metadata change sets. */
struct init_meta_set {
	enum guard_op    op;         /* GUARD_OP_CHOWN, _UTIME or _XATTR */
	uid_t            uid;
	gid_t            gid;
	struct timespec *ts;         /* NULL: now */
	const char      *attr;       /* the attribute to remove */
};

/* Read len bytes of the caller's memory at addr; 0 or EFAULT. */
static int
init_meta_read(struct init_walk_caller *t, uint64_t addr, void *buf,
    size_t len)
{
	char p[32];

	if (addr == 0)
		return EFAULT;
	if (t->mem < 0) {
		snprintf(p, sizeof p, "/proc/%d/mem", (int)t->tid);
		if ((t->mem = open(p, O_RDONLY | O_CLOEXEC)) < 0)
			return EFAULT;
	}
	return pread(t->mem, buf, len, (off_t)addr) == (ssize_t)len ? 0 :
	    EFAULT;
}

/* Is the call from a 32-bit ABI (i386 on x86-64, arm on aarch64)? */
static int
init_meta_compat(const struct init_sv_call *call)
{
	return call->data->arch == AUDIT_ARCH_I386 ||
	    call->data->arch == AUDIT_ARCH_ARM;
}

/* Report a change the kernel refused (a read-only mount): sboxd explains
 * it. */
static void
init_meta_kernel_refused(struct init_walk_caller *t, enum guard_op op,
    const struct init_walk_loc *l, int e)
{
	char full[PATH_MAX + NAME_MAX + 2];

	if (t->call == NULL || l->fd < 0 || (e != EROFS && e != EACCES &&
	    e != EPERM))
		return;
	snprintf(full, sizeof full, "%s/%s", strcmp(l->dir, "/") ? l->dir : "",
	    l->name);
	init_state_report(t->call->id, t->tid, guard_op_name(op), full, e,
	    "", "");
}

/* The kernel's answer for a removal whose last component is not a name
 * ("." or ".."), or 0. */
static int
init_meta_dots(const char *path, int dir)
{
	size_t n = strlen(path), b;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (b = n; b > 0 && path[b - 1] != '/'; b--)
		;
	if (n - b == 1 && path[b] == '.')
		return dir ? EINVAL : EISDIR;
	if (n - b == 2 && path[b] == '.' && path[b + 1] == '.')
		return dir ? ENOTEMPTY : EISDIR;
	if (n == 1 && path[0] == '/')
		return dir ? EBUSY : EISDIR;
	return 0;
}

/* guard_fs: lstat relative to the decided name's folder. */
static int
init_meta_lstat(void *arg, const char *rel, struct stat *st)
{
	return fstatat(*(int *)arg, rel, st, AT_SYMLINK_NOFOLLOW);
}

/* Does the folder (fd, name) hold anything? */
static int
init_meta_full(int fd, const char *name)
{
	struct dirent *de;
	DIR *d;
	int dfd, full = 0;

	if ((dfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while (!full && (de = readdir(d)) != NULL)
		full = strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0;
	closedir(d);
	return full;
}

/* Decide the removal of (l): a folder that is not empty is the kernel's
 * ENOTEMPTY whatever the guard says (rm -r and git walking up empty
 * parents try such folders: nothing to refuse or report). A refusal is
 * reported once per folder and command in a row: `rm -rf .git/hooks`
 * says so once, not once per sample hook, so the reports' rate limit
 * keeps room for the next refusal. */
static int
init_meta_decide_remove(struct init_walk_caller *t,
    const struct init_walk_loc *l, int dir)
{
	static char last_dir[PATH_MAX];
	static json_int_t last_id = -1;
	const struct guard_spec *s = init_state_spec();
	int fd = l->fd;
	struct guard_fs fs = { init_meta_lstat, &fd };
	struct guard_verdict v;
	char full[PATH_MAX + NAME_MAX + 2];

	if (s == NULL)
		return EPERM;
	guard_decide(s, GUARD_OP_REMOVE, l->dir, l->name, &fs, &v);
	if (v.err == 0)
		return 0;
	if (dir && init_meta_full(l->fd, l->name))
		return ENOTEMPTY;
	if (t->call == NULL || (t->call->id == last_id &&
	    strcmp(last_dir, l->dir) == 0))
		return v.err;
	last_id = t->call->id;
	snprintf(last_dir, sizeof last_dir, "%s", l->dir);
	snprintf(full, sizeof full, "%s/%s", strcmp(l->dir, "/") ? l->dir : "",
	    l->name);
	init_state_report(t->call->id, t->tid, "remove", full, v.err,
	    v.rule, v.reason);
	return v.err;
}

/* unlink, unlinkat, rmdir: remove one name, decided first. */
static int
init_meta_remove(struct init_walk_caller *t, int dirfd, const char *path,
    int dir)
{
	struct init_walk_loc l = { .fd = -1 };
	struct stat st;
	size_t n = strlen(path);
	int hops = 0, e;

	if (n > 0 && (e = init_meta_dots(path, dir)) != 0)
		return e;
	if ((e = init_walk_resolve(t, dirfd, path, &l, &hops)) != 0)
		goto out;
	if (fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		e = errno;
		goto out;
	}
	if (dir && !S_ISDIR(st.st_mode))
		e = ENOTDIR;
	else if (!dir && S_ISDIR(st.st_mode))
		e = EISDIR;
	else if (!dir && path[n - 1] == '/')
		e = ENOTDIR; /* "file/" */
	if (e != 0 || (e = init_meta_decide_remove(t, &l, dir)) != 0)
		goto out;
	if (!init_walk_valid(t)) {
		e = ENOENT;
		goto out;
	}
	e = unlinkat(l.fd, l.name, dir ? AT_REMOVEDIR : 0) < 0 ? errno : 0;
	if (e != 0)
		init_meta_kernel_refused(t, GUARD_OP_REMOVE, &l, e);
out:
	init_walk_loc_close(&l);
	return e;
}

/* Perform a metadata change on (l) or, when pfd >= 0, on the file pfd
 * holds; 0 or an errno. */
static int
init_meta_perform(const struct init_walk_loc *l, int pfd,
    const struct init_meta_set *m)
{
	char p[PATH_MAX];

	if (pfd >= 0)
		snprintf(p, sizeof p, "/proc/self/fd/%d", pfd);
	else if (snprintf(p, sizeof p, "/proc/self/fd/%d/%s", l->fd,
	    l->name) >= (int)sizeof p)
		return ENAMETOOLONG;
	switch (m->op) {
	case GUARD_OP_CHOWN:
		return (pfd >= 0 ? fchownat(pfd, "", m->uid, m->gid,
		    AT_EMPTY_PATH) : fchownat(l->fd, l->name, m->uid, m->gid,
		    AT_SYMLINK_NOFOLLOW)) < 0 ? errno : 0;
	case GUARD_OP_UTIME:
		return (pfd >= 0 ? utimensat(AT_FDCWD, p, m->ts, 0) :
		    utimensat(l->fd, l->name, m->ts, AT_SYMLINK_NOFOLLOW)) < 0 ?
		    errno : 0;
	case GUARD_OP_XATTR:
		/* the held folder's magic link, then the name: no lookup
		 * of the caller's path again */
		return (pfd >= 0 ? removexattr(p, m->attr) :
		    lremovexattr(p, m->attr)) < 0 ? errno : 0;
	default:
		return EPERM;
	}
}

/* chown, utimes, removexattr and their forms: path NULL for the file of
 * the caller's fd dirfd; nofollow keeps a final symlink. */
static int
init_meta_change(struct init_walk_caller *t, int dirfd, const char *path,
    int nofollow, const struct init_meta_set *m)
{
	struct init_walk_loc l = { .fd = -1 };
	int e, pfd = -1;
	struct stat st;

	if ((e = init_walk_target(t, dirfd, path, nofollow, 0, &l, &pfd)) != 0)
		goto out;
	if (pfd < 0 && fstatat(l.fd, l.name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		e = errno;
		goto out;
	}
	if (l.fd >= 0 && (e = init_decide(t, m->op, l.fd, l.dir, l.name,
	    NULL, 0)) != 0)
		goto out;
	if (!init_walk_valid(t)) {
		e = ENOENT;
		goto out;
	}
	if ((e = init_meta_perform(&l, pfd, m)) != 0)
		init_meta_kernel_refused(t, m->op, &l, e);
out:
	if (pfd >= 0)
		close(pfd);
	init_walk_loc_close(&l);
	return e;
}

/* Read the times of a utime-family call at addr (0: now) into ts; *now
 * set when there are none. 0 or an errno. */
static int
init_meta_times(struct init_walk_caller *t, int sc, uint64_t addr,
    struct timespec ts[2], int *now)
{
	const int compat = init_meta_compat(t->call);
	int64_t v[4] = { 0 };
	int32_t w[4] = { 0 };
	int i, k = sc == SV_UTIME ? 2 : 4;

	*now = addr == 0;
	if (addr == 0)
		return 0;
	if (compat && sc != SV_UTIMENSAT64) {
		if (init_meta_read(t, addr, w, sizeof w[0] * (size_t)k) != 0)
			return EFAULT;
		for (i = 0; i < k; i++)
			v[i] = w[i];
	} else if (init_meta_read(t, addr, v, sizeof v[0] * (size_t)k) != 0)
		return EFAULT;
	if (sc == SV_UTIME) {
		ts[0].tv_sec = v[0];
		ts[1].tv_sec = v[1];
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		return 0;
	}
	for (i = 0; i < 2; i++) {
		ts[i].tv_sec = v[2 * i];
		ts[i].tv_nsec = v[2 * i + 1];
		if (sc == SV_UTIMES || sc == SV_FUTIMESAT) {
			if (v[2 * i + 1] < 0 || v[2 * i + 1] >= 1000000)
				return EINVAL;
			ts[i].tv_nsec = v[2 * i + 1] * 1000;
		}
	}
	return 0;
}

/* The ids of a chown-family call: 16-bit ones on a 32-bit ABI's chown,
 * lchown and fchown (0xffff: unchanged). */
static void
init_meta_ids(struct init_sv_call *call, uint64_t u, uint64_t g,
    struct init_meta_set *m)
{
	int sixteen = init_meta_compat(call) && (call->sc == SV_CHOWN ||
	    call->sc == SV_LCHOWN || call->sc == SV_FCHOWN);

	if (sixteen) {
		m->uid = (uint16_t)u == 0xffff ? (uid_t)-1 : (uid_t)(uint16_t)u;
		m->gid = (uint16_t)g == 0xffff ? (gid_t)-1 : (gid_t)(uint16_t)g;
	} else {
		m->uid = (uid_t)(uint32_t)u;
		m->gid = (gid_t)(uint32_t)g;
	}
}

/* An fd argument (32-bit on every ABI). */
static int
init_meta_fd(uint64_t v)
{
	return (int)(uint32_t)v;
}

/* Perform one notified removal or metadata change for its caller. */
int
init_meta_call(struct init_sv_call *call, struct init_walk_caller *t)
{
	static char path[PATH_MAX];
	char attr[XATTR_NAME_MAX + 1];
	const __u64 *a = call->data->args;
	struct init_meta_set m = { .op = GUARD_OP_CHOWN };
	struct timespec ts[2];
	int sc = call->sc, e, now, flags = 0, at, fdform;

	switch (sc) {
	case SV_UNLINK:
	case SV_RMDIR:
		if ((e = init_walk_read_str(t, a[0], path, sizeof path)) != 0)
			return e;
		return init_meta_remove(t, AT_FDCWD, path, sc == SV_RMDIR);
	case SV_UNLINKAT:
		flags = (int)(uint32_t)a[2];
		if (flags & ~AT_REMOVEDIR)
			return EINVAL;
		if ((e = init_walk_read_str(t, a[1], path, sizeof path)) != 0)
			return e;
		return init_meta_remove(t, init_meta_fd(a[0]), path,
		    (flags & AT_REMOVEDIR) != 0);
	case SV_CHOWN: case SV_CHOWN32: case SV_LCHOWN: case SV_LCHOWN32:
		if ((e = init_walk_read_str(t, a[0], path, sizeof path)) != 0)
			return e;
		init_meta_ids(call, a[1], a[2], &m);
		return init_meta_change(t, AT_FDCWD, path, sc == SV_LCHOWN ||
		    sc == SV_LCHOWN32, &m);
	case SV_FCHOWN: case SV_FCHOWN32:
		init_meta_ids(call, a[1], a[2], &m);
		return init_meta_change(t, init_meta_fd(a[0]), NULL, 0, &m);
	case SV_FCHOWNAT:
		flags = (int)(uint32_t)a[4];
		if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
			return EINVAL;
		if ((e = init_walk_read_str(t, a[1], path, sizeof path)) != 0)
			return e;
		init_meta_ids(call, a[2], a[3], &m);
		return init_meta_change(t, init_meta_fd(a[0]),
		    path[0] == '\0' && (flags & AT_EMPTY_PATH) ? NULL : path,
		    (flags & AT_SYMLINK_NOFOLLOW) != 0, &m);
	case SV_UTIME: case SV_UTIMES: case SV_FUTIMESAT: case SV_UTIMENSAT:
	case SV_UTIMENSAT64:
		m.op = GUARD_OP_UTIME;
		at = sc == SV_FUTIMESAT || sc == SV_UTIMENSAT ||
		    sc == SV_UTIMENSAT64;
		if (sc == SV_UTIMENSAT || sc == SV_UTIMENSAT64) {
			flags = (int)(uint32_t)a[3];
			if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
				return EINVAL;
		}
		if ((e = init_meta_times(t, sc, a[at + 1], ts, &now)) != 0)
			return e;
		m.ts = now ? NULL : ts;
		/* a NULL path (futimens, futimesat(fd, NULL)): the fd's
		 * file */
		fdform = at && a[1] == 0;
		if (!fdform && (e = init_walk_read_str(t, a[at], path,
		    sizeof path)) != 0)
			return e;
		if (!fdform && path[0] == '\0' && (flags & AT_EMPTY_PATH))
			fdform = 1;
		return init_meta_change(t, at ? init_meta_fd(a[0]) : AT_FDCWD,
		    fdform ? NULL : path, (flags & AT_SYMLINK_NOFOLLOW) != 0,
		    &m);
	case SV_REMOVEXATTR: case SV_LREMOVEXATTR: case SV_FREMOVEXATTR:
		m.op = GUARD_OP_XATTR;
		e = init_walk_read_str(t, a[1], attr, sizeof attr);
		if (e != 0)
			return e == ENAMETOOLONG ? ERANGE : e;
		m.attr = attr;
		if (sc == SV_FREMOVEXATTR)
			return init_meta_change(t, init_meta_fd(a[0]), NULL, 0,
			    &m);
		if ((e = init_walk_read_str(t, a[0], path, sizeof path)) != 0)
			return e;
		return init_meta_change(t, AT_FDCWD, path,
		    sc == SV_LREMOVEXATTR, &m);
	}
	return init_state_undecided(NULL, "a call the file guard does not "
	    "perform");
}
