/* fdpass.c: descriptors passed along a Unix socket (SCM_RIGHTS), the one
 * way sboxd, its CLI, sbox-init, the proxy and a spare launcher fill the
 * control part of a message. */
#include "protocol/fdpass.h"

#include <errno.h>
#include <string.h>

/* Put nfds descriptors into mh's control part, cbuf (room bytes). */
int
fdpass_put(struct msghdr *mh, void *cbuf, size_t room, const int *fds,
    int nfds)
{
	struct cmsghdr *cm;
	size_t n = sizeof(int) * (size_t)(nfds > 0 ? nfds : 0);

	if (nfds <= 0)
		return 0;
	if (CMSG_SPACE(n) > room) {
		errno = EMSGSIZE;
		return -1;
	}
	memset(cbuf, 0, CMSG_SPACE(n));
	mh->msg_control = cbuf;
	mh->msg_controllen = CMSG_SPACE(n);
	cm = CMSG_FIRSTHDR(mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(n);
	memcpy(CMSG_DATA(cm), fds, n);
	return 0;
}
