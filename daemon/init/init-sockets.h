/* init-sockets.h: bind and connect (init-sockets.c). */
#ifndef SBOX_INIT_SOCKETS_H
#define SBOX_INIT_SOCKETS_H

#include "daemon/init/init-types.h"

/* init-sockets.c: bind and connect. A bind to a Unix path name creates a
 * name (decided like a file's creation, performed here on the caller's
 * socket); a connect to a Unix path name reaches only a socket the sandbox
 * bound itself (through the guard). Both are performed with the address as
 * read once. 0 or an errno, SV_ANSWERED or SV_UNDECIDED. */
int init_sockets_call(struct init_sv_call *call, struct init_walk_caller *t);
/* A copy of the caller's fd (ours to use), or -errno. */
int init_sockets_getfd(struct init_walk_caller *t, int fd);
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

#endif
