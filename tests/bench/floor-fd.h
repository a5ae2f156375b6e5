/* floor-fd.h: a message and the descriptors beside it, for the bench's
 * floor tools (exec-floor, notify-floor); sending puts them with
 * protocol/fdpass.c. */
#ifndef SBOX_BENCH_FLOOR_FD_H
#define SBOX_BENCH_FLOOR_FD_H

#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "protocol/fdpass.h"

#define FLOOR_FD_MAX 3

/* Send len bytes of buf with nfd descriptors (at most FLOOR_FD_MAX). */
static inline int
floor_fd_send(int sock, const void *buf, size_t len, const int *fds, int nfd)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(FLOOR_FD_MAX * sizeof(int))]; } c;
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fdpass_put(&msg, c.b, sizeof c.b, fds, nfd) == -1)
		return -1;
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* Receive a message into buf (at most len) and up to FLOOR_FD_MAX
 * descriptors into fds (*nfd of them); its bytes, or -1. */
static inline ssize_t
floor_fd_recv(int sock, void *buf, size_t len, int *fds, int *nfd)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(FLOOR_FD_MAX * sizeof(int))]; } c;
	struct iovec iov = { buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = c.b, .msg_controllen = sizeof c.b };
	struct cmsghdr *cm;
	ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);

	*nfd = 0;
	if (n <= 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			*nfd = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			memcpy(fds, CMSG_DATA(cm), *nfd * sizeof(int));
		}
	return n;
}

#endif
