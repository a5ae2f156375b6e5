/* init-supervise.h: what init-supervise.c (the listeners and the loop),
 * init-walk.c (path walking) and init-ops.c (the operations) share. */
#ifndef SBOX_INIT_SUPERVISE_H
#define SBOX_INIT_SUPERVISE_H

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

/* The guard spec, or NULL before the guard message. */
const struct guard_spec *init_supervise_spec(void);
/* Report a refusal to sboxd (rate-limited, repeats dropped); rule "" for
 * a refusal by the kernel (a read-only mount) that sboxd explains; reason
 * NULL for one by a hidden path (sent as hidden: sboxd explains it). */
void init_supervise_report(json_int_t id, pid_t pid, const char *op,
    const char *path, int err, const char *rule, const char *reason);

/* Every errno is below this; the SV_* answers are at or above it. */
#define SV_ERRNO_END 1000
/* init_ops_call's answer when a helper answers the call itself. */
#define SV_ANSWERED 1001
/* init_ops_call's answer when the kernel should do the call itself (only
 * for a read-only open: anything else is refused). */
#define SV_CONTINUE 1002
/* The guard could not complete its decision (a path it cannot read back,
 * a descriptor whose path does not lead to it, ...): the one answer
 * function refuses with EPERM and reports why. Set with
 * init_supervise_undecided. */
#define SV_UNDECIDED 1003
/* Keep why the guard cannot decide on path (NULL: the call's own) for the
 * report; returns SV_UNDECIDED. */
int init_supervise_undecided(const char *path, const char *why);
/* The last reason kept by init_supervise_undecided (and clear it). */
const char *init_supervise_undecided_why(char *path, size_t len);

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

/* Set up: remember procfs's device (NULL or a reason). */
const char *init_walk_init(void);
/* Close a location's descriptor. */
void init_walk_loc_close(struct init_walk_loc *l);
/* Read a NUL-terminated string at addr of the caller; 0 or an errno. */
int init_walk_read_str(struct init_walk_caller *t, uint64_t addr, char *buf,
    size_t len);
/* The caller's thread group and umask (read once, when needed). */
int init_walk_status(struct init_walk_caller *t);
/* Is the notification still the same live call? */
int init_walk_valid(struct init_walk_caller *t);
/* The absolute path a descriptor leads to, or -1. */
int init_walk_fd_path(int fd, char *buf, size_t len);
/* Resolve (dirfd, path) as the caller sees them: parent held + name. */
int init_walk_resolve(struct init_walk_caller *t, int dirfd, const char *path,
    struct init_walk_loc *l, int *hops);
/* Follow a final symlink (INIT_WALK_MAGIC for a procfs link); 0 when the
 * name is no symlink or absent. */
int init_walk_follow(struct init_walk_caller *t, struct init_walk_loc *l,
    int *hops, int *followed);
/* Is path inside one of the guarded roots (string check)? */
int init_walk_under_roots(const char *path);
/* The folder and name of what an O_PATH descriptor holds when it is a named
 * file in a guarded root (l->fd -1 otherwise); 0 or an errno. */
int init_walk_loc_of(int pfd, struct init_walk_loc *l);
/* The same for a caller's fd (its O_PATH copy in *pfd). */
int init_walk_of_fd(struct init_walk_caller *t, int fd,
    struct init_walk_loc *l, int *pfd);

/* The file a call that changes an existing file acts on: the caller's fd
 * (use_fd or path NULL), or path resolved and followed (unless nofollow;
 * through /proc/PID/fd/N the file it leads to, its copy in *pfd). */
int init_walk_target(struct init_walk_caller *t, int dirfd, const char *path,
    int nofollow, int use_fd, struct init_walk_loc *l, int *pfd);

/* init-exclude.c: an execve or execveat; answers the call itself. */
void init_exclude_exec(struct init_sv_call *call);

/* init-ops.c: perform one notified call for its caller: 0 or an errno; an
 * opened file is returned in *fd (then the answer is that fd). */
int init_ops_call(struct init_sv_call *call, int *fd);
/* Ask the guard about op on (dir, name) held by fd: 0 or the refusal's
 * errno (reported; why gets the reason when not NULL). */
int init_ops_decide(struct init_walk_caller *t, enum guard_op op, int fd,
    const char *dir, const char *name, char *why, size_t whylen);

/* init-meta.c: unlink, unlinkat, rmdir, the chown, utime and removexattr
 * families: decided on the resolved name (an fd's: on its file, read back
 * and checked) and performed here on the held folder or descriptor. 0 or
 * an errno, or SV_UNDECIDED. */
int init_meta_call(struct init_sv_call *call, struct init_walk_caller *t);

/* init-sockets.c: bind and connect. A bind to a Unix path name creates a
 * name (decided like a file's creation, performed here on the caller's
 * socket); a connect to a Unix path name reaches only a socket the sandbox
 * bound itself (through the guard). Both are performed with the address as
 * read once. 0 or an errno, SV_ANSWERED or SV_UNDECIDED. */
int init_sockets_call(struct init_sv_call *call, struct init_walk_caller *t);
/* A copy of the caller's fd (ours to use), or -errno. */
int init_sockets_getfd(struct init_walk_caller *t, int fd);
/* The shim's hello through the guard's sendmsg (init-exclude.c): -1 when
 * sock is not a shim's socket; else 0 or EPERM. */
int init_exclude_hello_from(int sock, pid_t tid, const char *data,
    size_t len, const int *fds, int nfds);
/* Read len bytes of the caller's memory at addr; 0 or EFAULT. */
int init_sockets_read(struct init_walk_caller *t, uint64_t addr, void *buf,
    size_t len);
/* May the caller reach the Unix socket at path (a connect, a datagram)?
 * Only one a bind through the guard made; another is refused and
 * reported (what: "connect to", "a datagram to"). 0 with an O_PATH
 * descriptor of the very socket file in *pfd, or an errno, SV_UNDECIDED. */
int init_sockets_reach(struct init_walk_caller *t, const char *path,
    const char *what, int *pfd);
/* A helper process for call, which blocks: 0 in the helper (which answers
 * the call and _exits), its pid in sbox-init, -1 when none can start
 * (INIT_SOCK_HELPERS at once; one whose caller is gone is ended). */
pid_t init_sockets_helper(const struct init_sv_call *call);

/* init-dgram.c: sendto, sendmsg, sendmmsg, performed here on a copy of the
 * caller's socket with the address, data and descriptors read once; a
 * datagram to a Unix path reaches only a socket the sandbox bound through
 * the guard. 0 (the count in call->val) or an errno, SV_ANSWERED or
 * SV_UNDECIDED. */
int init_dgram_call(struct init_sv_call *call, struct init_walk_caller *t);

/* init-reads.c: the read reporter. Add to ctx the rule that notifies the
 * read-only opens it observes (arg: the flags argument's index). */
int init_reads_rule(void *ctx, int nr, unsigned arg);
/* Handle a notified read-only open: -1 when call is not one (the guard
 * handles it), SV_ANSWERED when answered here, else 0 or an errno with an
 * opened file in *fd, as init_ops_call. */
int init_reads_call(struct init_sv_call *call, int *fd);
/* A rename or link of (dirfd, path) failed with e: report it when a hidden
 * path refused it (the source is hidden and either gone: ENOENT, or a
 * stand-in: EBUSY). */
void init_reads_source(struct init_sv_call *call, const char *op, int dirfd,
    const char *path, int e, int gone);
/* The caller's process id and name (comm) for a report. */
void init_reads_process(pid_t tid, pid_t *pid, char *name, size_t len);

#endif
