/* init-dispatch.c: the one place a notified call is performed for its
 * caller: its arguments read from the call (each path copied once from
 * the caller's memory) and handed to the operation that decides and
 * performs it (init-ops.c: opens, creations, links, renames, changes;
 * init-meta.c, init-sockets.c, init-dgram.c); a call it does not know is
 * undecided, so refused. sbox-init's own writes (file.write, file.mkdir)
 * go through the same operations. */
#include "protocol/ctl.h"
#include "daemon/init/init-dgram.h"
#include "daemon/init/init-dispatch.h"
#include "daemon/init/init-meta.h"
#include "daemon/init/init-ops.h"
#include "daemon/init/init-sockets.h"
#include "daemon/init/init-state.h"
#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* An fd argument (32-bit on every ABI). */
static int
init_dispatch_fdarg(uint64_t v)
{
	return (int)(uint32_t)v;
}

/* Read the two paths of link/rename (plain: args 0 and 1; the *at forms:
 * args 1 and 3); 0 or an errno. */
static int
init_dispatch_read_two(struct init_walk_caller *t, int plain, const __u64 *a,
    char *p1, char *p2, size_t len)
{
	if (init_walk_read_str(t, plain ? a[0] : a[1], p1, len) != 0)
		return EFAULT;
	return init_walk_read_str(t, plain ? a[1] : a[3], p2, len);
}

/* Perform one notified call for its caller. */
int
init_dispatch_call(struct init_sv_call *call, int *fd)
{
	static char p1[PATH_MAX], p2[PATH_MAX];
	const __u64 *a = call->data->args;
	struct init_walk_caller t = { .call = call, .tid = call->tid,
	    .mem = -1 };
	int e, sc = call->sc, flags;

	*fd = -1;
	switch (sc) {
	case SV_OPEN:
	case SV_OPENAT:
	case SV_CREAT:
		if ((e = init_walk_read_str(&t, sc == SV_OPENAT ? a[1] : a[0],
		    p1,
		    sizeof p1)) != 0)
			break;
		flags = sc == SV_CREAT ? O_CREAT | O_WRONLY | O_TRUNC :
		    (int)(uint32_t)(sc == SV_OPEN ? a[1] : a[2]);
		call->cloexec = (flags & O_CLOEXEC) != 0;
		e = init_ops_open(&t,
		    sc == SV_OPENAT ? init_dispatch_fdarg(a[0]) : AT_FDCWD, p1,
		    flags, (mode_t)(sc == SV_OPEN ? a[2] : sc == SV_CREAT ?
		    a[1] : a[3]) & INIT_OPS_MODE_OK, fd, NULL, 0);
		break;
	case SV_MKDIR:
	case SV_MKDIRAT:
	case SV_MKNOD:
	case SV_MKNODAT: {
		int at = sc == SV_MKDIRAT || sc == SV_MKNODAT;

		if ((e = init_walk_read_str(&t, a[at], p1, sizeof p1)) != 0)
			break;
		e = init_ops_create(&t, sc == SV_MKDIR ||
		    sc == SV_MKDIRAT ? SV_MKDIR :
		    SV_MKNOD, at ? init_dispatch_fdarg(a[0]) : AT_FDCWD, p1,
		    (mode_t)a[at + 1], (dev_t)a[at + 2], NULL, NULL, 0);
		break;
	}
	case SV_SYMLINK:
	case SV_SYMLINKAT:
		if ((e = init_walk_read_str(&t, a[0], p2, sizeof p2)) != 0 ||
		    (e = init_walk_read_str(&t, sc == SV_SYMLINK ? a[1] : a[2],
		    p1,
		    sizeof p1)) != 0)
			break;
		e = init_ops_create(&t, SV_SYMLINK,
		    sc == SV_SYMLINK ? AT_FDCWD :
		    init_dispatch_fdarg(a[1]), p1, 0, 0, p2, NULL, 0);
		break;
	case SV_LINK:
	case SV_LINKAT:
		e = init_dispatch_read_two(&t, sc == SV_LINK, a, p1, p2, sizeof p1);
		if (e == 0)
			e = sc == SV_LINK ? init_ops_link(&t, AT_FDCWD, p1,
			    AT_FDCWD,
			    p2, 0) : init_ops_link(&t, init_dispatch_fdarg(a[0]), p1,
			    init_dispatch_fdarg(a[2]), p2, (int)a[4]);
		break;
	case SV_RENAME:
	case SV_RENAMEAT:
	case SV_RENAMEAT2:
		e = init_dispatch_read_two(&t, sc == SV_RENAME, a, p1, p2, sizeof p1);
		if (e == 0)
			e = sc == SV_RENAME ? init_ops_rename(&t, AT_FDCWD, p1,
			    AT_FDCWD,
			    p2, 0) : init_ops_rename(&t, init_dispatch_fdarg(a[0]),
			    p1,
			    init_dispatch_fdarg(a[2]), p2, sc == SV_RENAMEAT2 ?
			    (unsigned)a[4] : 0);
		break;
	case SV_TRUNCATE:
	case SV_TRUNCATE64:
		if ((e = init_walk_read_str(&t, a[0], p1, sizeof p1)) != 0)
			break;
		e = init_ops_change(&t, sc, AT_FDCWD, p1, 0, 0,
		    sc == SV_TRUNCATE64 &&
		    call->data->arch != AUDIT_ARCH_X86_64 ? (off_t)(a[1] |
		    (a[2] << 32)) : (off_t)a[1]);
		break;
	case SV_CHMOD:
		if ((e = init_walk_read_str(&t, a[0], p1, sizeof p1)) != 0)
			break;
		e = init_ops_change(&t, sc, AT_FDCWD, p1, 0, (mode_t)a[1], 0);
		break;
	case SV_FCHMOD:
		e = init_ops_change(&t, sc, init_dispatch_fdarg(a[0]), NULL, 0,
		    (mode_t)a[1], 0);
		break;
	case SV_FCHMODAT:
	case SV_FCHMODAT2:
		flags = sc == SV_FCHMODAT2 ? (int)a[3] : 0;
		if ((e = init_walk_read_str(&t, a[1], p1, sizeof p1)) != 0)
			break;
		e = init_ops_change(&t, sc, init_dispatch_fdarg(a[0]),
		    (flags & AT_EMPTY_PATH) &&
		    p1[0] == '\0' ? NULL : p1,
		    (flags & AT_SYMLINK_NOFOLLOW) != 0,
		    (mode_t)a[2], 0);
		break;
	case SV_BIND:
	case SV_CONNECT:
		e = init_sockets_call(call, &t);
		break;
	case SV_SENDTO: case SV_SENDMSG: case SV_SENDMMSG:
		e = init_dgram_call(call, &t);
		break;
	case SV_UNLINK: case SV_UNLINKAT: case SV_RMDIR:
	case SV_CHOWN: case SV_FCHOWN: case SV_LCHOWN: case SV_FCHOWNAT:
	case SV_CHOWN32: case SV_LCHOWN32: case SV_FCHOWN32:
	case SV_UTIME: case SV_UTIMES: case SV_FUTIMESAT: case SV_UTIMENSAT:
	case SV_UTIMENSAT64:
	case SV_REMOVEXATTR: case SV_LREMOVEXATTR: case SV_FREMOVEXATTR:
		e = init_meta_call(call, &t);
		break;
	default:
		e = init_state_undecided(NULL, "a call the file guard does "
		    "not perform");
	}
	if (t.mem >= 0)
		close(t.mem);
	return e;
}

/* sbox-init's own operations fail closed as a command's do: anything but
 * an errno (SV_UNDECIDED...) is EPERM, with the reason in why. */
static int
init_dispatch_own_err(int e, char *why, size_t whylen)
{
	char path[PATH_MAX];
	const char *r;

	if (e >= 0 && e < SV_ERRNO_END)
		return e;
	r = init_state_undecided_why(path, sizeof path);
	snprintf(why, whylen, "%s%s%s", path, path[0] ? ": " : "", r);
	return EPERM;
}

/* sbox-init's own file operations (file.write, file.mkdir): the same
 * walk and the same decision. Returns an fd (or 0) or -errno; why gets the
 * guard's reason when it refused. */
int
init_dispatch_file_open(const char *path, int flags, mode_t mode, char *why,
    size_t whylen)
{
	struct init_walk_caller t = { .mem = -1, .umask = 022 };
	int fd = -1, e;

	why[0] = '\0';
	if (init_state_spec() == NULL) {
		snprintf(why, whylen, "the file guard is not set up");
		return -EPERM;
	}
	e = init_ops_open(&t, AT_FDCWD, path, flags, mode, &fd, why, whylen);
	return e != 0 ? -init_dispatch_own_err(e, why, whylen) : fd;
}

/* sbox-init's own mkdir. */
int
init_dispatch_file_mkdir(const char *path, mode_t mode, char *why,
    size_t whylen)
{
	struct init_walk_caller t = { .mem = -1, .umask = 022 };

	why[0] = '\0';
	if (init_state_spec() == NULL) {
		snprintf(why, whylen, "the file guard is not set up");
		return -EPERM;
	}
	return -init_dispatch_own_err(init_ops_create(&t, SV_MKDIR, AT_FDCWD, path,
	    mode, 0, NULL, why, whylen), why, whylen);
}
