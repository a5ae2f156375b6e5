/* fdpass.h: descriptors passed along a Unix socket (SCM_RIGHTS). */
#ifndef SBOX_PROTOCOL_FDPASS_H
#define SBOX_PROTOCOL_FDPASS_H

#include <stddef.h>
#include <sys/socket.h>

/* Put nfds descriptors into mh's control part, cbuf (room bytes, aligned
 * for a cmsghdr); nothing when nfds is 0. 0, or -1 when they do not fit. */
int fdpass_put(struct msghdr *mh, void *cbuf, size_t room, const int *fds,
    int nfds);

#endif
