/* ctl.c: one JSON object plus descriptors per SOCK_SEQPACKET message. */
#include "protocol/ctl.h"
#include "protocol/fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Encode msg; NULL with err when it cannot be or is over CTL_MSG_MAX. */
static char *
ctl_encode(json_t *msg, int nfds, size_t *len, sbox_error *err)
{
	char *text;

	if (nfds < 0 || nfds > CTL_FDS_MAX) {
		error_set(err, E_INTERNAL, "ctl: %d descriptors", nfds);
		return NULL;
	}
	text = json_dumps(msg, JSON_COMPACT);
	if (text == NULL) {
		error_set(err, E_INTERNAL, "ctl: cannot encode message");
		return NULL;
	}
	*len = strlen(text);
	if (*len > CTL_MSG_MAX) {
		free(text);
		error_set(err, E_TOO_LARGE,
		    "ctl: message of %zu bytes is over %d", *len, CTL_MSG_MAX);
		return NULL;
	}
	return text;
}

/* One sendmsg of encoded text with descriptors: 0, or -1 with errno
 * (EAGAIN included; a short send is EMSGSIZE). */
static int
ctl_sendmsg(int fd, const char *text, size_t len, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_FDS_MAX)];
		struct cmsghdr align;
	} u;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	memset(&mh, 0, sizeof mh);
	iov.iov_base = (void *)text;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fdpass_put(&mh, u.buf, sizeof u.buf, fds, nfds) < 0)
		return -1;
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/* Send encoded text with nfds descriptors: 0, or -1 (E_IO; errno kept). */
int
ctl_send_text(int fd, const char *text, size_t len, const int *fds,
    int nfds, sbox_error *err)
{
	int e;

	if (len > CTL_MSG_MAX || nfds < 0 || nfds > CTL_FDS_MAX)
		return error_set(err, E_INTERNAL, "ctl: a message of %zu bytes "
		    "with %d descriptors", len, nfds);
	if (ctl_sendmsg(fd, text, len, fds, nfds) < 0) {
		e = errno;
		if (e == EMSGSIZE)
			error_set(err, E_IO, "ctl: short send");
		else
			error_set_errno(err, E_IO, e, "ctl: send");
		errno = e;
		return -1;
	}
	return 0;
}

/* Send one message (msg is not stolen) with nfds descriptors (may be 0). */
int
ctl_send(int fd, json_t *msg, const int *fds, int nfds, sbox_error *err)
{
	size_t len;
	char *text;
	int rc;

	if ((text = ctl_encode(msg, nfds, &len, err)) == NULL)
		return -1;
	rc = ctl_send_text(fd, text, len, fds, nfds, err);
	free(text);
	return rc;
}

/* One message waiting in a queue: its text and our copies of its fds. */
struct ctl_qmsg {
	char            *text;
	size_t           len;
	int              fds[CTL_FDS_MAX];
	int              nfds;
	struct ctl_qmsg *next;
};

/* Free one queued message, closing its descriptors. */
static void
ctl_qmsg_free(struct ctl_qmsg *m)
{
	ctl_close_fds(m->fds, m->nfds);
	free(m->text);
	free(m);
}

/* A new, empty queue with default bounds (NULL on ENOMEM). */
struct ctl_queue *
ctl_queue_new(void)
{
	struct ctl_queue *q = calloc(1, sizeof *q);

	if (q == NULL)
		return NULL;
	q->max_msgs = CTL_QUEUE_MSGS;
	q->max_bytes = CTL_QUEUE_BYTES;
	q->max_fds = CTL_QUEUE_FDS;
	return q;
}

/* Send what is queued, in order, until the socket is full: 0 when the
 * queue is empty, 1 when messages wait (wait for fd writable), -1 on an
 * error of the socket (err; the queue is kept). */
int
ctl_queue_flush(struct ctl_queue *q, int fd, sbox_error *err)
{
	struct ctl_qmsg *m;

	while ((m = q->head) != NULL) {
		if (ctl_sendmsg(fd, m->text, m->len, m->fds, m->nfds) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == ENOBUFS)
				return 1;
			if (errno == EMSGSIZE)
				return error_set(err, E_IO, "ctl: short send");
			return error_set_errno(err, E_IO, errno, "ctl: send");
		}
		q->head = m->next;
		if (q->head == NULL)
			q->tail = NULL;
		q->n--;
		q->bytes -= m->len;
		q->nfds -= (size_t)m->nfds;
		ctl_qmsg_free(m);
	}
	return 0;
}

/* Send msg after what is queued: at once when nothing waits and the socket
 * takes it, else queued with copies of the fds. 0 sent, 1 queued (wait for
 * fd writable, then ctl_queue_flush), -1 with err (E_LIMIT when a bound of
 * the queue is reached, E_IO when the socket failed). */
int
ctl_queue_send(struct ctl_queue *q, int fd, json_t *msg, const int *fds,
    int nfds, sbox_error *err)
{
	struct ctl_qmsg *m;
	size_t len;
	char *text;
	int i;

	if ((text = ctl_encode(msg, nfds, &len, err)) == NULL)
		return -1;
	if (q->head == NULL) {
		if (ctl_sendmsg(fd, text, len, fds, nfds) == 0) {
			free(text);
			return 0;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) {
			i = errno;
			free(text);
			if (i == EMSGSIZE)
				return error_set(err, E_IO, "ctl: short send");
			error_set_errno(err, E_IO, i, "ctl: send");
			errno = i;
			return -1;
		}
	}
	if (q->n + 1 > q->max_msgs || q->bytes + len > q->max_bytes ||
	    q->nfds + (size_t)nfds > q->max_fds) {
		free(text);
		return error_set(err, E_LIMIT, "the sandbox's init process is "
		    "not keeping up: %zu messages (%zu bytes, %zu descriptors) "
		    "already wait to be sent to it; try again when some of its "
		    "commands have started", q->n, q->bytes, q->nfds);
	}
	if ((m = calloc(1, sizeof *m)) == NULL) {
		free(text);
		return error_nomem(err);
	}
	m->text = text;
	m->len = len;
	for (i = 0; i < nfds; i++) {
		if ((m->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)) < 0) {
			error_set_errno(err, E_LIMIT, errno, "ctl: cannot keep a "
			    "descriptor for a queued message");
			ctl_qmsg_free(m);
			return -1;
		}
		m->nfds++;
	}
	if (q->tail)
		q->tail->next = m;
	else
		q->head = m;
	q->tail = m;
	q->n++;
	q->bytes += len;
	q->nfds += (size_t)nfds;
	return 1;
}

/* Messages waiting in q. */
size_t
ctl_queue_len(const struct ctl_queue *q)
{
	return q ? q->n : 0;
}

/* Free q and what waits in it (NULL is fine). */
void
ctl_queue_free(struct ctl_queue *q)
{
	struct ctl_qmsg *m;

	if (q == NULL)
		return;
	while ((m = q->head) != NULL) {
		q->head = m->next;
		ctl_qmsg_free(m);
	}
	free(q);
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

/* The buffer ctl_recv reads into, and the length of the message it
 * returned last (0: none). */
static char ctl_recv_buf[CTL_MSG_MAX + 1];
static size_t ctl_recv_len;

/* The text of the message the last ctl_recv returned, or NULL. */
const char *
ctl_recv_text(size_t *len)
{
	*len = ctl_recv_len;
	return ctl_recv_len > 0 ? ctl_recv_buf : NULL;
}

/* Receive one message with its descriptors. */
int
ctl_recv(int fd, json_t **msg, int *fds, int *nfds, int maxfds,
    sbox_error *err)
{
	char *buf = ctl_recv_buf;
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
	ctl_recv_len = 0;
	if (maxfds < 0)
		maxfds = 0;
	memset(&mh, 0, sizeof mh);
	iov.iov_base = buf;
	iov.iov_len = sizeof ctl_recv_buf - 1;
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
	ctl_recv_len = (size_t)n;
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
