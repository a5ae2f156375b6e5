/* init-types.h: the types and answer codes the file guard's files
 * share (a notified call, the caller, a resolved location); no functions. */
#ifndef SBOX_INIT_TYPES_H
#define SBOX_INIT_TYPES_H

#include <jansson.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy/guard.h"
#include "policy/guard-calls.h"


/* The notified calls (the table: policy/guard-calls.c). */
enum {
	SV_OPEN = GUARD_CALL_OPEN,
	SV_OPENAT = GUARD_CALL_OPENAT,
	SV_CREAT = GUARD_CALL_CREAT,
	SV_MKDIR = GUARD_CALL_MKDIR,
	SV_MKDIRAT = GUARD_CALL_MKDIRAT,
	SV_MKNOD = GUARD_CALL_MKNOD,
	SV_MKNODAT = GUARD_CALL_MKNODAT,
	SV_RENAME = GUARD_CALL_RENAME,
	SV_RENAMEAT = GUARD_CALL_RENAMEAT,
	SV_RENAMEAT2 = GUARD_CALL_RENAMEAT2,
	SV_LINK = GUARD_CALL_LINK,
	SV_LINKAT = GUARD_CALL_LINKAT,
	SV_SYMLINK = GUARD_CALL_SYMLINK,
	SV_SYMLINKAT = GUARD_CALL_SYMLINKAT,
	SV_TRUNCATE = GUARD_CALL_TRUNCATE,
	SV_TRUNCATE64 = GUARD_CALL_TRUNCATE64,
	SV_CHMOD = GUARD_CALL_CHMOD,
	SV_FCHMOD = GUARD_CALL_FCHMOD,
	SV_FCHMODAT = GUARD_CALL_FCHMODAT,
	SV_FCHMODAT2 = GUARD_CALL_FCHMODAT2,
	SV_EXECVE = GUARD_CALL_EXECVE,
	SV_EXECVEAT = GUARD_CALL_EXECVEAT,
	SV_BIND = GUARD_CALL_BIND,
	SV_CONNECT = GUARD_CALL_CONNECT,
	SV_UNLINK = GUARD_CALL_UNLINK,
	SV_UNLINKAT = GUARD_CALL_UNLINKAT,
	SV_RMDIR = GUARD_CALL_RMDIR,
	SV_CHOWN = GUARD_CALL_CHOWN,
	SV_FCHOWN = GUARD_CALL_FCHOWN,
	SV_LCHOWN = GUARD_CALL_LCHOWN,
	SV_FCHOWNAT = GUARD_CALL_FCHOWNAT,
	SV_UTIME = GUARD_CALL_UTIME,
	SV_UTIMES = GUARD_CALL_UTIMES,
	SV_FUTIMESAT = GUARD_CALL_FUTIMESAT,
	SV_UTIMENSAT = GUARD_CALL_UTIMENSAT,
	SV_UTIMENSAT64 = GUARD_CALL_UTIMENSAT64,
	SV_REMOVEXATTR = GUARD_CALL_REMOVEXATTR,
	SV_LREMOVEXATTR = GUARD_CALL_LREMOVEXATTR,
	SV_FREMOVEXATTR = GUARD_CALL_FREMOVEXATTR,
	SV_CHOWN32 = GUARD_CALL_CHOWN32,
	SV_LCHOWN32 = GUARD_CALL_LCHOWN32,
	SV_FCHOWN32 = GUARD_CALL_FCHOWN32,
	SV_SENDTO = GUARD_CALL_SENDTO,
	SV_SENDMSG = GUARD_CALL_SENDMSG,
	SV_SENDMMSG = GUARD_CALL_SENDMMSG,
};

/* One notification being handled. */
struct init_sv_call {
	int                        sc;       /* SV_* */
	pid_t                      tid;      /* the calling thread */
	json_int_t                 id;       /* the command (spawn id) */
	uint64_t                   notif_id;
	int                        lfd;      /* its listener */
	const struct seccomp_data *data;
	int                        cloexec;  /* out: the opened fd's O_CLOEXEC */
	int                        reads;    /* a read-only open for the read
	                                        reporter (init-reads.c): a
	                                        special file other than a
	                                        /dev/null stand-in is answered
	                                        SV_CONTINUE */
	char                      *where;    /* NULL, or out: the last location
	                                        the open resolved (dir/name) */
	size_t                     wherelen;
	long long                  val;      /* out: what the call returns
	                                        when it succeeds (a send's
	                                        byte or message count) */
};

/* Every errno is below this; the SV_* answers are at or above it. */
#define SV_ERRNO_END 1000
/* init_dispatch_call's answer when a helper answers the call itself. */
#define SV_ANSWERED 1001
/* init_dispatch_call's answer when the kernel should do the call itself (only
 * for a read-only open: anything else is refused). */
#define SV_CONTINUE 1002
/* The guard could not complete its decision (a path it cannot read back,
 * a descriptor whose path does not lead to it, ...): the one answer
 * function refuses with EPERM and reports why. Set with
 * init_state_undecided. */
#define SV_UNDECIDED 1003
/* init-walk.c: the caller. tid 0 = sbox-init itself (its file operations). */
struct init_walk_caller {
	struct init_sv_call *call;
	pid_t  tid, tgid;
	int    mem;           /* /proc/TID/mem, -1 until needed */
	mode_t umask;
	int    status;        /* tgid and umask read (0 = not yet) */
};

/* A resolved location: the parent folder (held) and the final name. */
struct init_walk_loc {
	int  fd;
	char dir[PATH_MAX];
	char name[NAME_MAX + 1];
};

#define INIT_WALK_HOPS  40     /* symlinks followed at most */
#define INIT_WALK_MAGIC 1000   /* the final name is a procfs link */

#endif
