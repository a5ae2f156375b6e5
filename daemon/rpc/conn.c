/* conn.c: one client connection: reading lines (and passed fds), writing
 * replies with a bounded queue, and closing cleanly. */
#include "daemon/rpc/conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon/client.h"
#include "daemon/log.h"
#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"
#include "protocol/envelope.h"
#include "protocol/framer.h"

#define CONN_READ_CHUNK   65536
#define CONN_MAX_FDS      8   /* fds in one message */
#define CONN_MAX_BATCHES  16  /* fd batches waiting for their line */

struct conn_fds {
	unsigned long long offset; /* stream offset of a byte of their line */
	int fds[CONN_MAX_FDS];
	int n;
};

struct conn_cb {
	conn_close_cb   cb;
	void           *arg;
	struct conn_cb *next;
};

struct conn {
	TAILQ_ENTRY(conn)  entry;
	unsigned long      id;
	int                fd;
	uid_t              uid;
	gid_t              gid;
	pid_t              pid;
	char              *sandbox_session;
	struct event      *rev;
	struct bufferevent *bev;
	struct framer      fr;
	unsigned long long received;
	struct conn_fds    fdq[CONN_MAX_BATCHES];
	int                nfdq;
	struct rpc_call  **calls;
	int                ncalls, calls_cap;
	struct conn_cb    *close_cbs;
	int                closing;  /* close once the output is written */
	int                dead;     /* closed; freed when no longer in use */
	int                busy;     /* inside a read callback */
	char              *cork;     /* replies made while reading, sent */
	size_t             cork_len; /* together when the lines are done */
	size_t             cork_cap;
	int                corked;
	long long          active_ms;/* last byte read or call ended (monotonic) */
};

static TAILQ_HEAD(, conn) conn_list = TAILQ_HEAD_INITIALIZER(conn_list);
static unsigned long conn_next_id = 1;
static conn_line_fn conn_line;   /* who handles a line (dispatch.c) */

static void conn_free(struct conn *c);
static void conn_uncork(struct conn *c);

/* Name the function that handles each received line (dispatch.c, at
 * start). */
void
conn_on_line(conn_line_fn fn)
{
	conn_line = fn;
}

/* Peer uid of a connection. */
uid_t
conn_uid(const struct conn *c)
{
	return c->uid;
}

/* Peer pid of a connection. */
pid_t
conn_pid(const struct conn *c)
{
	return c->pid;
}

/* The session a client runs inside, or NULL for a host client. */
const char *
conn_sandbox_session(const struct conn *c)
{
	return c->sandbox_session;
}

/* A stable id for the connection. */
unsigned long
conn_id(const struct conn *c)
{
	return c->id;
}

/* Look a live connection up by id. */
struct conn *
conn_find(unsigned long id)
{
	struct conn *c;

	TAILQ_FOREACH(c, &conn_list, entry) {
		if (c->id == id && !c->dead)
			return c;
	}
	return NULL;
}

/* Count connections of one uid. */
int
conn_count_uid(uid_t uid)
{
	struct conn *c;
	int n = 0;

	TAILQ_FOREACH(c, &conn_list, entry) {
		if (c->uid == uid && !c->dead)
			n++;
	}
	return n;
}

/* Bytes queued to the client and not yet written. */
size_t
conn_pending_output(const struct conn *c)
{
	if (c->dead || c->bev == NULL)
		return 0;
	return c->cork_len + evbuffer_get_length(bufferevent_get_output(c->bev));
}

/* Register a function called once when the connection closes (a second
 * registration of the same cb and arg is ignored). */
void
conn_on_close(struct conn *c, conn_close_cb cb, void *arg)
{
	struct conn_cb *n;

	for (n = c->close_cbs; n != NULL; n = n->next) {
		if (n->cb == cb && n->arg == arg)
			return;   /* already registered: keep memory bounded */
	}
	if ((n = calloc(1, sizeof *n)) == NULL)
		return;
	n->cb = cb;
	n->arg = arg;
	n->next = c->close_cbs;
	c->close_cbs = n;
}

/* Is a connection idle: nothing in flight, nothing it waits for (no
 * subscription, follower or other close callback), nothing to write? A
 * sandboxed command's channel never is: it cannot connect again. */
static int
conn_is_idle(const struct conn *c)
{
	return !c->dead && !c->closing && c->sandbox_session == NULL &&
	    c->ncalls == 0 &&
	    c->close_cbs == NULL && conn_pending_output(c) == 0;
}

/* Make room for a new client of uid beyond a cap: close the connection of
 * that uid (any uid when any_uid) that has been idle longest. 0 when one
 * was closed, -1 when none is idle. */
int
conn_evict_idle(uid_t uid, int any_uid)
{
	struct conn *c, *old = NULL;

	TAILQ_FOREACH(c, &conn_list, entry) {
		if ((any_uid || c->uid == uid) && conn_is_idle(c) &&
		    (old == NULL || c->active_ms < old->active_ms))
			old = c;
	}
	if (old == NULL)
		return -1;
	log_debug("closing idle client %lu (uid %u) to make room for a new one",
	    old->id, (unsigned)old->uid);
	conn_close(old);
	return 0;
}

/* Close the connections idle for longer than the idle timeout (checked
 * about once a second from the daemon's timer). */
void
conn_tick(void)
{
	static long long last;
	struct conn *c, *next;
	long long now = sboxd_now_ms();
	int n = 0;

	if (sboxd.lim.idle_timeout_ms <= 0 || now - last < 1000)
		return;
	last = now;
	for (c = TAILQ_FIRST(&conn_list); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (conn_is_idle(c) &&
		    now - c->active_ms >= sboxd.lim.idle_timeout_ms) {
			conn_close(c);
			n++;
		}
	}
	if (n > 0)
		log_info("closed %d client connection(s) idle for %lld s", n,
		    sboxd.lim.idle_timeout_ms / 1000);
}

/* Requests in flight on the connection. */
int
conn_inflight(const struct conn *c)
{
	return c->ncalls;
}

/* Track a pending call on its connection. */
void
conn_call_add(struct conn *c, struct rpc_call *call)
{
	struct rpc_call **n;

	if (c->ncalls == c->calls_cap) {
		int cap = c->calls_cap ? c->calls_cap * 2 : 8;
		if ((n = realloc(c->calls, (size_t)cap * sizeof *n)) == NULL)
			return;
		c->calls = n;
		c->calls_cap = cap;
	}
	c->calls[c->ncalls++] = call;
}

/* Stop tracking a call. */
void
conn_call_remove(struct conn *c, struct rpc_call *call)
{
	int i;

	for (i = 0; i < c->ncalls; i++) {
		if (c->calls[i] == call) {
			c->calls[i] = c->calls[--c->ncalls];
			c->active_ms = sboxd_now_ms();
			return;
		}
	}
}

/* Find a pending call by its JSON-RPC id. */
struct rpc_call *
conn_call_find(struct conn *c, const json_t *id)
{
	int i;

	for (i = 0; i < c->ncalls; i++) {
		if (json_equal((json_t *)rpc_call_id(c->calls[i]),
		    (json_t *)id))
			return c->calls[i];
	}
	return NULL;
}

/* Keep a reply made while the client's lines are handled (hello and
 * session.info come in one read: their replies go out in one send, and
 * the client wakes once); -1 when it cannot be kept. */
static int
conn_cork_add(struct conn *c, const char *s, size_t n)
{
	char *p;
	size_t cap;

	if (c->cork_len + n > c->cork_cap) {
		cap = c->cork_cap ? c->cork_cap : 4096;
		while (cap < c->cork_len + n)
			cap *= 2;
		if ((p = realloc(c->cork, cap)) == NULL)
			return -1;
		c->cork = p;
		c->cork_cap = cap;
	}
	memcpy(c->cork + c->cork_len, s, n);
	c->cork_len += n;
	return 0;
}

/* Write a message: at once on the socket when nothing waits before it
 * (a reply then costs one send, not a wakeup for EPOLLOUT, two
 * epoll_ctl and a writev a loop later), the rest queued in the
 * bufferevent, which writes it when the socket drains and reports a
 * failed socket. A connection closing after its output keeps the queue:
 * its write callback closes it once the queue drains. */
static void
conn_write_now(struct conn *c, const char *s, size_t n)
{
	ssize_t w = 0;

	if (c->corked) {
		if (conn_cork_add(c, s, n) == 0)
			return;
		/* no room to keep it: what was kept goes first */
		c->corked = 0;
		conn_uncork(c);
		c->corked = 1;
	}
	if (!c->closing && conn_pending_output(c) == 0) {
		do
			w = send(c->fd, s, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		while (w < 0 && errno == EINTR);
		if (w < 0)
			w = 0;	/* queued: the bufferevent sees the error */
	}
	if ((size_t)w < n) {
		/* watched for room from now on (not from the connection's
		 * start: an empty queue then costs an EPOLLOUT round and two
		 * epoll_ctl on every new client) */
		bufferevent_enable(c->bev, EV_WRITE);
		bufferevent_write(c->bev, s + w, n - (size_t)w);
	}
}

/* Queue one JSON message to the client. */
int
conn_send(struct conn *c, const json_t *msg)
{
	char *s;
	size_t n;

	if (c->dead)
		return -1;
	if ((s = envelope_dump(msg, &n)) == NULL)
		return -1;
	if (conn_pending_output(c) + n > sboxd.lim.max_output_queue) {
		free(s);
		log_warn("client %lu (uid %u) is not reading its replies; "
		    "disconnecting it", c->id, (unsigned)c->uid);
		conn_close(c);
		return -1;
	}
	conn_write_now(c, s, n);
	free(s);
	return 0;
}

/* Send a JSON-RPC notification to one client (steals params). */
int
conn_notify(struct conn *c, const char *method, json_t *params)
{
	json_t *msg;
	int rc;

	if (c == NULL || c->dead) {
		json_decref(params);
		return -1;
	}
	msg = envelope_notification(method, params);
	rc = conn_send(c, msg);
	json_decref(msg);
	return rc;
}

/* Close the fds of batches whose line has been consumed without them. */
static void
conn_drop_fds_before(struct conn *c, unsigned long long upto)
{
	int i, j;

	while (c->nfdq > 0 && c->fdq[0].offset < upto) {
		for (j = 0; j < c->fdq[0].n; j++)
			close(c->fdq[0].fds[j]);
		for (i = 1; i < c->nfdq; i++)
			c->fdq[i - 1] = c->fdq[i];
		c->nfdq--;
	}
}

/* Hand the lines buffered so far to dispatch. */
static void
conn_process(struct conn *c)
{
	unsigned long long start;
	sbox_error err;
	char *line;
	size_t len;
	int rc, fds[CONN_MAX_FDS * 2], nfds;

	for (;;) {
		if (c->dead || c->closing)
			return;
		start = c->fr.consumed;
		error_clear(&err);
		rc = framer_next(&c->fr, &line, &len, &err);
		if (rc == 0)
			return;
		if (rc == -1) {
			json_t *r = envelope_error(NULL, &err);
			conn_send(c, r);
			json_decref(r);
			conn_drop_fds_before(c, c->fr.consumed);
			continue;
		}
		conn_drop_fds_before(c, start);
		nfds = 0;
		while (c->nfdq > 0 && c->fdq[0].offset < c->fr.consumed) {
			int j;
			for (j = 0; j < c->fdq[0].n; j++) {
				if (nfds < (int)(sizeof fds / sizeof fds[0]))
					fds[nfds++] = c->fdq[0].fds[j];
				else
					close(c->fdq[0].fds[j]);
			}
			memmove(&c->fdq[0], &c->fdq[1],
			    (size_t)(c->nfdq - 1) * sizeof c->fdq[0]);
			c->nfdq--;
		}
		conn_line(c, line, len, fds, nfds);
	}
}

/* Keep the fds that came with a chunk of bytes, or close them. */
static void
conn_take_cmsg(struct conn *c, struct msghdr *msg, unsigned long long offset)
{
	struct cmsghdr *cm;
	int *p, n, i;

	for (cm = CMSG_FIRSTHDR(msg); cm != NULL; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		p = (int *)CMSG_DATA(cm);
		n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		if (c->nfdq == CONN_MAX_BATCHES || n > CONN_MAX_FDS ||
		    (msg->msg_flags & MSG_CTRUNC)) {
			for (i = 0; i < n; i++)
				close(p[i]);
			continue;
		}
		c->fdq[c->nfdq].offset = offset;
		c->fdq[c->nfdq].n = n;
		memcpy(c->fdq[c->nfdq].fds, p, (size_t)n * sizeof(int));
		c->nfdq++;
	}
}

/* Send what was kept while the lines were handled. */
static void
conn_uncork(struct conn *c)
{
	size_t n = c->cork_len;

	if (c->dead || n == 0)
		return;
	c->cork_len = 0;	/* not pending: conn_write_now sends it at once */
	conn_write_now(c, c->cork, n);
	if (c->cork_cap > 65536) {	/* a large answer: not kept around */
		free(c->cork);
		c->cork = NULL;
		c->cork_cap = 0;
	}
}

/* Read what the client sent (with any passed fds) and dispatch it. */
static void
conn_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	char buf[CONN_READ_CHUNK];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * CONN_MAX_FDS * 2)];
	} cbuf;
	struct iovec iov = { buf, sizeof buf };
	struct msghdr msg;
	sbox_error err;
	ssize_t n;

	(void)what;
	memset(&msg, 0, sizeof msg);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf.buf;
	msg.msg_controllen = sizeof cbuf.buf;
	n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	c->busy++;
	c->active_ms = sboxd_now_ms();
	conn_take_cmsg(c, &msg, c->received + (unsigned long long)n - 1);
	c->received += (unsigned long long)n;
	if (framer_feed(&c->fr, buf, (size_t)n, &err) == -1) {
		log_error("client %lu: %s", c->id, err.message);
		conn_close(c);
	} else {
		c->corked = 1;
		conn_process(c);
		c->corked = 0;
		conn_uncork(c);
	}
	c->busy--;
	if (c->dead && c->busy == 0)
		conn_free(c);
}

/* The output drained: finish a pending close. */
static void
conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	if (c->closing && conn_pending_output(c) == 0)
		conn_close(c);
}

/* The socket failed or the peer went away while writing. */
static void
conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		conn_close(c);
}

/* Take over an accepted client socket (peer already checked). */
struct conn *
conn_new(int fd, uid_t uid, gid_t gid, pid_t pid, const char *sandbox_session)
{
	struct conn *c;

	if ((c = calloc(1, sizeof *c)) == NULL)
		return NULL;
	c->id = conn_next_id++;
	c->fd = fd;
	c->uid = uid;
	c->gid = gid;
	c->pid = pid;
	c->sandbox_session = sandbox_session ? strdup(sandbox_session) : NULL;
	c->active_ms = sboxd_now_ms();
	framer_init(&c->fr, sboxd.lim.max_line);
	evutil_make_socket_nonblocking(fd);
	c->rev = event_new(sboxd.base, fd, EV_READ | EV_PERSIST, conn_read_cb, c);
	c->bev = bufferevent_socket_new(sboxd.base, fd, 0);
	if (c->rev == NULL || c->bev == NULL) {
		if (c->rev) event_free(c->rev);
		if (c->bev) bufferevent_free(c->bev);
		free(c->sandbox_session);
		free(c);
		return NULL;
	}
	bufferevent_setcb(c->bev, NULL, conn_write_cb, conn_event_cb, c);
	/* reads go through c->rev; writes are watched once one is queued */
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	event_add(c->rev, NULL);
	TAILQ_INSERT_TAIL(&conn_list, c, entry);
	sboxd.connections++;
	log_debug("client %lu connected (uid %u, pid %d)", c->id,
	    (unsigned)uid, (int)pid);
	return c;
}

/* Release a closed connection's memory. */
static void
conn_free(struct conn *c)
{
	framer_free(&c->fr);
	free(c->calls);
	free(c->sandbox_session);
	free(c->cork);
	free(c);
}

/* Close a connection now (pending calls are cancelled). */
void
conn_close(struct conn *c)
{
	struct conn_cb *cb;

	if (c->dead)
		return;
	c->dead = 1;
	TAILQ_REMOVE(&conn_list, c, entry);
	sboxd.connections--;
	event_free(c->rev);
	bufferevent_free(c->bev);
	c->bev = NULL;
	close(c->fd);
	conn_drop_fds_before(c, ~0ULL);
	while (c->ncalls > 0)
		rpc_call_orphan(c->calls[c->ncalls - 1]);
	while ((cb = c->close_cbs) != NULL) {
		c->close_cbs = cb->next;
		cb->cb(c, cb->arg);
		free(cb);
	}
	log_debug("client %lu disconnected", c->id);
	if (c->busy == 0)
		conn_free(c);
}

/* Close every connection of clients inside one session. */
void
conn_close_session(const char *session)
{
	struct conn *c, *next;

	for (c = TAILQ_FIRST(&conn_list); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->sandbox_session != NULL &&
		    strcmp(c->sandbox_session, session) == 0)
			conn_close(c);
	}
}

/* Close every connection after writing what is queued. */
void
conn_close_all(void)
{
	struct conn *c, *next;

	for (c = TAILQ_FIRST(&conn_list); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		c->closing = 1;
		event_del(c->rev);
		if (conn_pending_output(c) == 0)
			conn_close(c);
	}
}

/* Send what was kept while the client's lines are handled, now (the
 * replies before a command runs); the lines after keep being kept. */
static void
conn_flush(struct conn *c)
{
	if (c->dead || !c->corked)
		return;
	c->corked = 0;
	conn_uncork(c);
	c->corked = 1;
}

/* What the layers under rpc/ (daemon/client.c) do with a connection. */
static const struct client_ops conn_client_ops = {
	.find = conn_find,
	.id = conn_id,
	.sandbox_session = conn_sandbox_session,
	.notify = conn_notify,
	.pending_output = conn_pending_output,
	.on_close = conn_on_close,
	.open = conn_new,
	.close_session = conn_close_session,
	.flush = conn_flush,
};

/* At start: be the connections' code for the layers under rpc/. */
void
conn_start(void)
{
	client_set_ops(&conn_client_ops);
}
