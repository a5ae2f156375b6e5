/* guard-filter.h: the file guard's two seccomp filters as BPF, built from
 * THE TABLE (guard-calls.h) with libseccomp. sboxd builds them once for
 * each kind of spec and sends their bytes with the guard message; sbox-init
 * installs them in every command (init-supervise.c) and builds nothing
 * itself, so a session's start does not pay libseccomp's build. */
#ifndef SBOX_GUARD_FILTER_H
#define SBOX_GUARD_FILTER_H

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/socket.h>

/* The listener's flags of newer kernel headers (6.6), for older ones:
 * synchronous wake-ups between a caller and its supervisor. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* The flags of the one sendmsg the notify filter lets through: the child's
 * own, which hands sbox-init the listener (notified, it would wait for a
 * listener nobody holds yet). Right after it, the child installs the seal,
 * a filter that refuses a sendmsg with exactly these flags, so no command
 * can. */
#define GUARD_FILTER_HANDOFF (MSG_NOSIGNAL | MSG_DONTWAIT | MSG_PROXY)

/* The flags of a read-only open that is not observed, and those that make
 * an open a write. */
#define GUARD_READS_SKIP   (O_NOCTTY | O_PATH)
#define GUARD_READS_WRITE  (O_ACCMODE | O_CREAT | O_TRUNC)

#define GUARD_FILTER_MAX   4096	/* instructions of one filter, at most */

/* What a filter depends on besides the table: an `exclude` list (execve
 * notified) and hidden rules (read-only opens notified, to report). */
struct guard_filter_kind {
	int exclude;
	int reads;
};

/* The notify filter and its seal. */
struct guard_filter {
	struct sock_filter *prog;
	unsigned short      len;
	struct sock_filter *seal;
	unsigned short      seal_len;
};

/* Build both filters for kind into *f; NULL, or why not. */
const char *guard_filter_build(const struct guard_filter_kind *kind,
    struct guard_filter *f);
/* Release what f holds. */
void guard_filter_free(struct guard_filter *f);
/* Copy a program of len bytes at b into *p (malloc'd) and *n; 0, or -1
 * when it is empty, not whole instructions or longer than
 * GUARD_FILTER_MAX. */
int guard_filter_copy(const void *b, size_t len, struct sock_filter **p,
    unsigned short *n);

#endif
