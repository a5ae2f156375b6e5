/* guard-calls.c: THE TABLE of the file guard (see guard-calls.h). */
#include "policy/guard-calls.h"

#include <string.h>

/* Every call that makes, changes or reaches a name, one line each. A
 * notification of a call that is not here (or of another architecture's
 * number: i386's socketcall, say) is refused. */
static const struct guard_call_line guard_call_table[] = {
	{ "open", GUARD_CALL_OPEN, GUARD_HOW_WRITES,
	    "opens, creates, truncates" },
	{ "openat", GUARD_CALL_OPENAT, GUARD_HOW_WRITES,
	    "opens, creates, truncates; /proc/PID/fd/N reopened as the file it "
	    "leads to" },
	{ "creat", GUARD_CALL_CREAT, GUARD_HOW_NOTIFY,
	    "creates or truncates" },
	{ "openat2", GUARD_CALL_NONE, GUARD_HOW_ENOSYS,
	    "struct open_how: libc falls back to openat" },
	{ "mkdir", GUARD_CALL_MKDIR, GUARD_HOW_NOTIFY,
	    "creates a folder" },
	{ "mkdirat", GUARD_CALL_MKDIRAT, GUARD_HOW_NOTIFY,
	    "creates a folder" },
	{ "mknod", GUARD_CALL_MKNOD, GUARD_HOW_NOTIFY,
	    "creates a file, FIFO or socket" },
	{ "mknodat", GUARD_CALL_MKNODAT, GUARD_HOW_NOTIFY,
	    "creates a file, FIFO, socket" },
	{ "symlink", GUARD_CALL_SYMLINK, GUARD_HOW_NOTIFY,
	    "creates a symlink" },
	{ "symlinkat", GUARD_CALL_SYMLINKAT, GUARD_HOW_NOTIFY,
	    "creates a symlink" },
	{ "link", GUARD_CALL_LINK, GUARD_HOW_NOTIFY,
	    "a second name for a file" },
	{ "linkat", GUARD_CALL_LINKAT, GUARD_HOW_NOTIFY,
	    "a second name; AT_EMPTY_PATH: a name for an open file" },
	{ "rename", GUARD_CALL_RENAME, GUARD_HOW_NOTIFY,
	    "moves a name" },
	{ "renameat", GUARD_CALL_RENAMEAT, GUARD_HOW_NOTIFY,
	    "moves a name" },
	{ "renameat2", GUARD_CALL_RENAMEAT2, GUARD_HOW_NOTIFY,
	    "moves or exchanges names (every flag: performed here with the "
	    "caller's flags)" },
	{ "truncate", GUARD_CALL_TRUNCATE, GUARD_HOW_NOTIFY,
	    "changes a file" },
	{ "truncate64", GUARD_CALL_TRUNCATE64, GUARD_HOW_NOTIFY,
	    "changes a file" },
	{ "chmod", GUARD_CALL_CHMOD, GUARD_HOW_NOTIFY,
	    "changes a mode" },
	{ "fchmod", GUARD_CALL_FCHMOD, GUARD_HOW_NOTIFY,
	    "changes an open file's mode" },
	{ "fchmodat", GUARD_CALL_FCHMODAT, GUARD_HOW_NOTIFY,
	    "changes a mode" },
	{ "fchmodat2", GUARD_CALL_FCHMODAT2, GUARD_HOW_NOTIFY,
	    "changes a mode" },
	{ "bind", GUARD_CALL_BIND, GUARD_HOW_NOTIFY,
	    "a Unix socket's path name: creates a name (init-sockets.c)" },
	{ "connect", GUARD_CALL_CONNECT, GUARD_HOW_NOTIFY,
	    "a Unix socket's path name: reaches a program (init-sockets.c)" },
	{ "execve", GUARD_CALL_EXECVE, GUARD_HOW_EXEC,
	    "runs a program" },
	{ "execveat", GUARD_CALL_EXECVEAT, GUARD_HOW_EXEC,
	    "runs a program" },
	{ "setxattr", GUARD_CALL_NONE, GUARD_HOW_FILTER,
	    "security.capability: EOPNOTSUPP" },
	{ "lsetxattr", GUARD_CALL_NONE, GUARD_HOW_FILTER,
	    "security.capability: EOPNOTSUPP" },
	{ "fsetxattr", GUARD_CALL_NONE, GUARD_HOW_FILTER,
	    "security.capability: EOPNOTSUPP" },
	{ "setxattrat", GUARD_CALL_NONE, GUARD_HOW_FILTER,
	    "security.capability: EOPNOTSUPP" },
	{ "removexattr", GUARD_CALL_REMOVEXATTR, GUARD_HOW_NOTIFY,
	    "changes a file: refused on a read-only name (init-meta.c)" },
	{ "lremovexattr", GUARD_CALL_LREMOVEXATTR, GUARD_HOW_NOTIFY,
	    "changes a file (as removexattr)" },
	{ "fremovexattr", GUARD_CALL_FREMOVEXATTR, GUARD_HOW_NOTIFY,
	    "changes an open file: decided on its name, read back" },
	{ "removexattrat", GUARD_CALL_NONE, GUARD_HOW_ENOSYS,
	    "struct xattr_args form (Linux 6.13): libc uses removexattr" },
	{ "unlink", GUARD_CALL_UNLINK, GUARD_HOW_NOTIFY,
	    "removes a name: what host tools read may go (a hook, .git/HEAD, "
	    "a file git's config names) (init-meta.c)" },
	{ "unlinkat", GUARD_CALL_UNLINKAT, GUARD_HOW_NOTIFY,
	    "removes a name or (AT_REMOVEDIR) a folder (as unlink)" },
	{ "rmdir", GUARD_CALL_RMDIR, GUARD_HOW_NOTIFY,
	    "removes an empty folder (as unlink)" },
	{ "chown", GUARD_CALL_CHOWN, GUARD_HOW_NOTIFY,
	    "changes a file's owner: refused on a read-only name" },
	{ "fchown", GUARD_CALL_FCHOWN, GUARD_HOW_NOTIFY,
	    "changes an open file's owner: decided on its name, read back" },
	{ "lchown", GUARD_CALL_LCHOWN, GUARD_HOW_NOTIFY,
	    "changes an owner (as chown, not following a symlink)" },
	{ "fchownat", GUARD_CALL_FCHOWNAT, GUARD_HOW_NOTIFY,
	    "changes an owner (as chown; AT_EMPTY_PATH: as fchown)" },
	{ "utime", GUARD_CALL_UTIME, GUARD_HOW_NOTIFY,
	    "changes a file's times: refused on a read-only name" },
	{ "utimes", GUARD_CALL_UTIMES, GUARD_HOW_NOTIFY,
	    "changes times (as utime)" },
	{ "futimesat", GUARD_CALL_FUTIMESAT, GUARD_HOW_NOTIFY,
	    "changes times (as utime; a NULL path: the fd's file)" },
	{ "utimensat", GUARD_CALL_UTIMENSAT, GUARD_HOW_NOTIFY,
	    "changes times (as utime; a NULL path: futimens, the fd's file)" },
	{ "utimensat_time64", GUARD_CALL_UTIMENSAT64, GUARD_HOW_NOTIFY,
	    "changes times (as utimensat, 64-bit times)" },
	{ "chown32", GUARD_CALL_CHOWN32, GUARD_HOW_NOTIFY,
	    "as chown (32-bit ids on a 32-bit ABI, whose chown has 16)" },
	{ "lchown32", GUARD_CALL_LCHOWN32, GUARD_HOW_NOTIFY,
	    "as lchown (32-bit ids)" },
	{ "fchown32", GUARD_CALL_FCHOWN32, GUARD_HOW_NOTIFY,
	    "as fchown (32-bit ids)" },
	{ "ftruncate", GUARD_CALL_NONE, GUARD_HOW_KERNEL,
	    "the kernel refuses it (EINVAL/EBADF) unless the fd was opened "
	    "for writing, and every open for writing in a guarded root was "
	    "decided (and refused on a read-only name); an fd reopened through "
	    "/proc/PID/fd for writing was decided on its file too; and it "
	    "changes no more than write() through the same fd, which is the "
	    "kernel's anyway" },
	{ "ftruncate64", GUARD_CALL_NONE, GUARD_HOW_KERNEL,
	    "as ftruncate" },
	{ "name_to_handle_at", GUARD_CALL_NONE, GUARD_HOW_FILTER,
	    "refused (the sandbox's kernel rules)" },
	{ "open_by_handle_at", GUARD_CALL_NONE, GUARD_HOW_FILTER,
	    "refused (the sandbox's kernel rules)" },
	{ "readlink", GUARD_CALL_NONE, GUARD_HOW_KERNEL,
	    "reads a name: changes nothing" },
	{ "readlinkat", GUARD_CALL_NONE, GUARD_HOW_KERNEL,
	    "reads a name: changes nothing" },
	{ "sendto", GUARD_CALL_SENDTO, GUARD_HOW_ADDRESS,
	    "a datagram to a Unix path name reaches the program behind it: "
	    "only a socket a bind through the guard made (as connect); "
	    "performed by sbox-init on the caller's socket with the address, "
	    "data and descriptors read once (init-dgram.c); a NULL address "
	    "reaches only the peer of a decided connect: the kernel's" },
	{ "sendmsg", GUARD_CALL_SENDMSG, GUARD_HOW_NOTIFY,
	    "as sendto (its msg_name is in memory the filter cannot read: "
	    "every call notified and performed; but for sbox-init's own "
	    "handoff of the listener, whose flags are refused right after "
	    "it: init-supervise.c)" },
	{ "sendmmsg", GUARD_CALL_SENDMMSG, GUARD_HOW_NOTIFY,
	    "as sendmsg, message by message (a bounded batch)" },
	{ "send", GUARD_CALL_NONE, GUARD_HOW_KERNEL,
	    "(arm's) no address: reaches only the peer of a decided connect" },
};

/* The table and its length. */
const struct guard_call_line *
guard_calls(size_t *n)
{
	*n = sizeof guard_call_table / sizeof guard_call_table[0];
	return guard_call_table;
}

/* The line of a call by name, or NULL. */
const struct guard_call_line *
guard_calls_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof guard_call_table / sizeof guard_call_table[0];
	    i++)
		if (strcmp(guard_call_table[i].name, name) == 0)
			return &guard_call_table[i];
	return NULL;
}
