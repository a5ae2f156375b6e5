/* ctl.c: one JSON object plus descriptors per SOCK_SEQPACKET message. */
#include "daemon/ctl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Send one message (msg is not stolen) with nfds descriptors (may be 0). */
int
ctl_send(int fd, json_t *msg, const int *fds, int nfds, sbox_error *err)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_FDS_MAX)];
		struct cmsghdr align;
	} u;
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *c;
	char *text;
	size_t len;
	ssize_t n;

	if (nfds < 0 || nfds > CTL_FDS_MAX)
		return error_set(err, E_INTERNAL, "ctl: %d descriptors", nfds);
	text = json_dumps(msg, JSON_COMPACT);
	if (text == NULL)
		return error_set(err, E_INTERNAL, "ctl: cannot encode message");
	len = strlen(text);
	if (len > CTL_MSG_MAX) {
		free(text);
		return error_set(err, E_TOO_LARGE,
		    "ctl: message of %zu bytes is over %d", len, CTL_MSG_MAX);
	}
	memset(&mh, 0, sizeof mh);
	iov.iov_base = text;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (nfds > 0) {
		memset(&u, 0, sizeof u);
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	free(text);
	if (n < 0) {
		int e = errno;
		error_set_errno(err, E_IO, e, "ctl: send");
		errno = e;
		return -1;
	}
	if ((size_t)n != len)
		return error_set(err, E_IO, "ctl: short send");
	return 0;
}

/* Collect the descriptors of every SCM_RIGHTS header; returns how many,
 * keeping at most maxfds in fds and closing the rest (counted too). */
static int
ctl_take_fds(struct msghdr *mh, int *fds, int maxfds, int *kept)
{
	struct cmsghdr *c;
	int total = 0, i, n, v;

	*kept = 0;
	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (i = 0; i < n; i++) {
			memcpy(&v, CMSG_DATA(c) + i * sizeof(int), sizeof v);
			total++;
			if (*kept < maxfds)
				fds[(*kept)++] = v;
			else
				close(v);
		}
	}
	return total;
}

/* Receive one message with its descriptors. */
int
ctl_recv(int fd, json_t **msg, int *fds, int *nfds, int maxfds,
    sbox_error *err)
{
	static char buf[CTL_MSG_MAX + 1];
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_FDS_MAX)];
		struct cmsghdr align;
	} u;
	struct msghdr mh;
	struct iovec iov;
	json_error_t jerr;
	json_t *j;
	ssize_t n;
	int total, kept;

	*msg = NULL;
	*nfds = 0;
	if (maxfds < 0)
		maxfds = 0;
	memset(&mh, 0, sizeof mh);
	iov.iov_base = buf;
	iov.iov_len = sizeof buf - 1;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof u.buf;
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return CTL_AGAIN;
		return error_set_errno(err, E_IO, errno, "ctl: receive");
	}
	total = ctl_take_fds(&mh, fds, maxfds, &kept);
	if (n == 0 && total == 0)
		return CTL_EOF;
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		ctl_close_fds(fds, kept);
		return error_set(err, E_TOO_LARGE,
		    "ctl: message or descriptors truncated");
	}
	if (total > maxfds) {
		ctl_close_fds(fds, kept);
		return error_set(err, E_INVALID_REQUEST,
		    "ctl: %d descriptors where at most %d are expected",
		    total, maxfds);
	}
	j = json_loadb(buf, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
	if (j == NULL || !json_is_object(j)) {
		json_decref(j);
		ctl_close_fds(fds, kept);
		return error_set(err, E_INVALID_REQUEST,
		    "ctl: message is not a JSON object");
	}
	*msg = j;
	*nfds = kept;
	return CTL_MSG;
}

/* Build {"type": type} plus the fields of a json_pack format (may be NULL). */
json_t *
ctl_msg(const char *type, const char *fmt, ...)
{
	json_error_t jerr;
	json_t *m, *extra;
	va_list ap;

	if (fmt != NULL) {
		va_start(ap, fmt);
		extra = json_vpack_ex(&jerr, 0, fmt, ap);
		va_end(ap);
		if (extra == NULL || !json_is_object(extra)) {
			json_decref(extra);
			return NULL;
		}
	} else if ((extra = json_object()) == NULL)
		return NULL;
	m = json_object();
	if (m == NULL || json_object_set_new(m, "type", json_string(type)) < 0 ||
	    json_object_update(m, extra) < 0) {
		json_decref(m);
		json_decref(extra);
		return NULL;
	}
	json_decref(extra);
	return m;
}

/* The "type" of a message, or "" when it has none. */
const char *
ctl_type(json_t *msg)
{
	const char *t = json_string_value(json_object_get(msg, "type"));

	return t ? t : "";
}

/* Close fds[0..n) and set them to -1. */
void
ctl_close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}
