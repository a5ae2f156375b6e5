/* guard-calls.h: THE TABLE of the file guard -- every system call that
 * makes, changes or reaches a name, one line each, with what the guard
 * does with it (guard-calls.c). sbox-init builds its notify filter from it
 * and refuses a notified call that is not in it. Pure data, unit-tested
 * (tests/unit/test-guard-calls.c checks that no call of libseccomp's list
 * that names a file is missing). */
#ifndef SBOX_GUARD_CALLS_H
#define SBOX_GUARD_CALLS_H

#include <stddef.h>

/* The calls the guard is notified of (GUARD_CALL_NONE: never notified). */
enum guard_call {
	GUARD_CALL_NONE = -1,
	GUARD_CALL_OPEN, GUARD_CALL_OPENAT, GUARD_CALL_CREAT, GUARD_CALL_MKDIR,
	GUARD_CALL_MKDIRAT, GUARD_CALL_MKNOD, GUARD_CALL_MKNODAT,
	GUARD_CALL_RENAME, GUARD_CALL_RENAMEAT, GUARD_CALL_RENAMEAT2,
	GUARD_CALL_LINK, GUARD_CALL_LINKAT, GUARD_CALL_SYMLINK,
	GUARD_CALL_SYMLINKAT, GUARD_CALL_TRUNCATE, GUARD_CALL_TRUNCATE64,
	GUARD_CALL_CHMOD, GUARD_CALL_FCHMOD, GUARD_CALL_FCHMODAT,
	GUARD_CALL_FCHMODAT2, GUARD_CALL_EXECVE, GUARD_CALL_EXECVEAT,
	GUARD_CALL_BIND, GUARD_CALL_CONNECT,
	GUARD_CALL_UNLINK, GUARD_CALL_UNLINKAT, GUARD_CALL_RMDIR,
	GUARD_CALL_CHOWN, GUARD_CALL_FCHOWN, GUARD_CALL_LCHOWN,
	GUARD_CALL_FCHOWNAT, GUARD_CALL_UTIME, GUARD_CALL_UTIMES,
	GUARD_CALL_FUTIMESAT, GUARD_CALL_UTIMENSAT, GUARD_CALL_UTIMENSAT64,
	GUARD_CALL_REMOVEXATTR, GUARD_CALL_LREMOVEXATTR,
	GUARD_CALL_FREMOVEXATTR, GUARD_CALL_CHOWN32, GUARD_CALL_LCHOWN32,
	GUARD_CALL_FCHOWN32, GUARD_CALL_SENDTO, GUARD_CALL_SENDMSG,
	GUARD_CALL_SENDMMSG,
	GUARD_CALL_COUNT
};

/* How the guard treats a call. */
enum guard_call_how {
	GUARD_HOW_NOTIFY,  /* every call notified: decided and performed by
	                      sbox-init */
	GUARD_HOW_WRITES,  /* notified when its flags may write or create
	                      (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC; O_TMPFILE
	                      holds O_RDWR or O_WRONLY); read-only opens as
	                      the read reporter says */
	GUARD_HOW_EXEC,    /* notified only for the profile's `exclude` */
	GUARD_HOW_ADDRESS, /* notified when it carries an address (sendto's
	                      dest_addr not NULL; without one it reaches only
	                      the peer a decided connect gave it) */
	GUARD_HOW_ENOSYS,  /* refused: its form cannot be read safely (libc
	                      falls back to a form that is decided) */
	GUARD_HOW_FILTER,  /* refused by the sandbox's own filter
	                      (render-seccomp.c) before it gets here */
	GUARD_HOW_KERNEL,  /* the kernel's: it makes no name host tools act on
	                      (the line says why) */
};

/* One line of the table. */
struct guard_call_line {
	const char         *name;  /* the system call */
	enum guard_call     call;  /* GUARD_CALL_NONE unless notified */
	enum guard_call_how how;
	const char         *what;  /* what it does to a name, and why so */
};

/* The table and its length. */
const struct guard_call_line *guard_calls(size_t *n);
/* The line of a call by name, or NULL. */
const struct guard_call_line *guard_calls_find(const char *name);

#endif
