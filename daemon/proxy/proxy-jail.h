/* proxy-jail.h: how the proxy process confines itself once it holds what it
 * needs (its socketpair, the event loop, the resolver's sockets, the netlink
 * socket): the name `sboxd: proxy`, no descriptors but its own, an empty
 * root (a tmpfs in a mount namespace of its own, a user namespace too when
 * sboxd is not root), the unprivileged sandbox uid for a root sboxd, no
 * capabilities, no_new_privs, not dumpable, and a seccomp allow list of
 * the calls it makes (anything else kills it). */
#ifndef SBOX_PROXY_JAIL_H
#define SBOX_PROXY_JAIL_H

#include <sys/types.h>

#include "protocol/error.h"

#define PROXY_JAIL_NAME "sboxd: proxy"

struct proxy_jail {
	uid_t uid;      /* who sboxd is (getuid at fork) */
	gid_t gid;
	uid_t run_uid;  /* a root sboxd: the sandbox uid and gid to run as */
	gid_t run_gid;
};

/* Name the process (comm and, when set, argv). */
void proxy_jail_name(void);
/* Remember sboxd's argv so the proxy process can rename itself in ps. */
void proxy_jail_set_argv(int argc, char **argv);
/* Close every descriptor from 3 up, except keep (moved to 3 first):
 * returns keep's new number, or -1. Also points 0 and 1 at /dev/null. */
int proxy_jail_fds(int keep);
/* Empty root, ids, capabilities, no_new_privs (not seccomp yet). */
int proxy_jail_enter(const struct proxy_jail *j, sbox_error *err);
/* The seccomp allow list; last step. */
int proxy_jail_seccomp(sbox_error *err);

#endif
