/* proxy-msg.c: bounded JSON datagrams with descriptors between sboxd and
 * its proxy process (see proxy-msg.h). */
#include "daemon/proxy/proxy-msg.h"
#include "protocol/fdpass.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* Send obj and nfds descriptors as one datagram. */
int
proxy_msg_send(int fd, const json_t *obj, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * PROXY_MSG_FDS)];
		struct cmsghdr align;
	} cbuf;
	struct msghdr mh;
	struct iovec iov;
	char *text;
	size_t len;
	ssize_t n;

	if (nfds < 0 || nfds > PROXY_MSG_FDS) {
		errno = EINVAL;
		return -1;
	}
	text = json_dumps(obj, JSON_COMPACT);
	if (text == NULL) {
		errno = ENOMEM;
		return -1;
	}
	len = strlen(text);
	if (len > PROXY_MSG_MAX) {
		free(text);
		errno = EMSGSIZE;
		return -1;
	}
	memset(&mh, 0, sizeof mh);
	iov.iov_base = text;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fdpass_put(&mh, cbuf.buf, sizeof cbuf.buf, fds, nfds) < 0) {
		free(text);
		return -1;
	}
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	free(text);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/* Close the descriptors received with a dropped message. */
static void
proxy_msg_close_fds(int *fds, int *nfds)
{
	int i;

	for (i = 0; i < *nfds; i++)
		close(fds[i]);
	*nfds = 0;
}

/* Receive one datagram and its descriptors. */
int
proxy_msg_recv(int fd, json_t **obj, int *fds, int *nfds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * PROXY_MSG_FDS)];
	static char buf[PROXY_MSG_MAX + 1];
	struct msghdr mh;
	struct cmsghdr *cm;
	struct iovec iov;
	json_error_t jerr;
	ssize_t n;

	*obj = NULL;
	*nfds = 0;
	memset(&mh, 0, sizeof mh);
	iov.iov_base = buf;
	iov.iov_len = sizeof buf;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof cbuf;
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k, i;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
		    cm->cmsg_len < CMSG_LEN(0))
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int one;

			memcpy(&one, CMSG_DATA(cm) + i * sizeof(int), sizeof one);
			if (*nfds < PROXY_MSG_FDS)
				fds[(*nfds)++] = one;
			else
				close(one);
		}
	}
	if (n == 0 && *nfds == 0)
		return 0;
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || n == 0 ||
	    (size_t)n > PROXY_MSG_MAX) {
		proxy_msg_close_fds(fds, nfds);
		errno = EBADMSG;
		return -1;
	}
	*obj = json_loadb(buf, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
	if (*obj == NULL || !json_is_object(*obj) ||
	    !json_is_string(json_object_get(*obj, "type"))) {
		json_decref(*obj);
		*obj = NULL;
		proxy_msg_close_fds(fds, nfds);
		errno = EBADMSG;
		return -1;
	}
	return 1;
}
