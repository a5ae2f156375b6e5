/* rpc.c: the CLI's JSON-RPC connection to sboxd (blocking, with fd passing
 * and autostart of the daemon). */
#include "client/client.h"
#include "protocol/fdpass.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol/envelope.h"
#include "protocol/framer.h"
#include "protocol/paths.h"

#define CLIENT_MAX_LINE (256 * 1024 * 1024)

struct client_reply {
	long long            id;
	json_t              *msg;
	struct client_reply *next;
};

struct client {
	int                  fd;
	long long            next_id;
	struct framer        fr;
	client_notify_cb     cb;
	void                *cb_arg;
	int                  stop;     /* callback asked to stop waiting */
	struct client_reply *replies;  /* replies that came for other ids */
	long long            hello;    /* rpc.hello's id until its reply is
	                                  checked (0: checked) */
	char                *held;     /* requests kept to go out with the
	                                  next one (client_hold_next) */
	size_t               held_len;
	int                  hold_next;
};

#define CLIENT_HELD_MAX 4096

static int client_flush_held(struct client *cl, sbox_error *err);

/* Connect to a Unix socket; -1 with errno. */
static int
client_dial(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	if (strlen(path) >= sizeof sun.sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == -1) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Start sboxd in the background (it detaches once it is listening). */
static int
client_start_daemon(sbox_error *err)
{
	char exe[4096], *slash, *path = NULL;
	ssize_t n;
	pid_t pid;
	int status;

	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL)
			*slash = '\0';
		if (asprintf(&path, "%s/sboxd", exe) == -1)
			path = NULL;
		if (path != NULL && access(path, X_OK) != 0) {
			free(path);
			path = NULL;
		}
	}
	if ((pid = fork()) == -1)
		return error_set_errno(err, E_UNAVAILABLE, errno, "fork");
	if (pid == 0) {
		if (path != NULL)
			execl(path, "sboxd", (char *)NULL);
		execlp("sboxd", "sboxd", (char *)NULL);
		_exit(127);
	}
	free(path);
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return error_set(err, E_UNAVAILABLE,
		    "could not start sboxd (see ~/.local/state/sbox/sboxd.log, or "
		    "run 'sboxd --foreground')");
	return 0;
}

/* The channel descriptor sboxd gave a sandboxed command (SBOX_CHANNEL_FD),
 * or -1 when there is none. */
static int
client_channel_fd(void)
{
	const char *v = getenv("SBOX_CHANNEL_FD");
	socklen_t len = sizeof(int);
	char *end;
	long fd;
	int type;

	if (v == NULL || *v == '\0')
		return -1;
	fd = strtol(v, &end, 10);
	if (*end != '\0' || fd < 0 || fd > 1024 ||
	    getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    type != SOCK_STREAM)
		return -1;
	return (int)fd;
}

/* The process behind the socket must run as this user (or root): another
 * user's program listening at the path would see every request. */
static int
client_check_server(int fd, const char *path, sbox_error *err)
{
	struct ucred cred;
	socklen_t len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1)
		return error_set_errno(err, E_PERMISSION, errno,
		    "cannot check who listens on %s", path);
	if (cred.uid != geteuid() && cred.uid != 0)
		return error_set(err, E_PERMISSION, "the server on %s runs as "
		    "uid %u (pid %d), not as you (uid %u): refusing to talk to "
		    "it", path, (unsigned)cred.uid, (int)cred.pid,
		    (unsigned)geteuid());
	return 0;
}

/* Connect (starting sboxd when allowed) and say hello. */
struct client *
client_connect(const struct client_opts *o, sbox_error *err)
{
	struct client *cl;
	char *def = NULL;
	const char *path = o->socket;
	int fd, is_default = 0;

	/* Inside a sandbox, sboxd hands a command its channel as a descriptor. */
	if (path == NULL && (fd = client_channel_fd()) >= 0)
		goto connected;
	if (path == NULL)
		path = getenv("SBOX_SOCKET");
	if (path == NULL || path[0] == '\0') {
		path = def = paths_default_socket();
		is_default = 1;
	}
	fd = client_dial(path);
	if (fd == -1 && is_default && !o->no_start &&
	    (errno == ENOENT || errno == ECONNREFUSED)) {
		if (client_start_daemon(err) == -1) {
			free(def);
			return NULL;
		}
		fd = client_dial(path);
	}
	if (fd == -1) {
		if (errno == ENAMETOOLONG)
			error_set(err, E_UNAVAILABLE, "the socket path %s is %zu "
			    "bytes, over the %zu a Unix socket path can hold: "
			    "choose a shorter one (%s)", path, strlen(path),
			    sizeof(((struct sockaddr_un *)0)->sun_path) - 1,
			    is_default ? "a shorter XDG_RUNTIME_DIR, or --socket "
			    "PATH / SBOX_SOCKET for sbox and sboxd --socket PATH" :
			    "--socket PATH / SBOX_SOCKET for sbox, and sboxd "
			    "--socket with the same path; or the default in "
			    "XDG_RUNTIME_DIR");
		else if (is_default)
			error_set_errno(err, E_UNAVAILABLE, errno,
			    "no sboxd is listening on %s (start it with 'sboxd'%s)",
			    path, o->no_start ? ", or drop --no-start" : "");
		else
			error_set_errno(err, E_UNAVAILABLE, errno,
			    "no sboxd is listening on %s (start it with "
			    "'sboxd --socket %s')", path, path);
		free(def);
		return NULL;
	}
	if (client_check_server(fd, path, err) == -1) {
		close(fd);
		free(def);
		return NULL;
	}
	free(def);
connected:
	if ((cl = calloc(1, sizeof *cl)) == NULL) {
		close(fd);
		error_nomem(err);
		return NULL;
	}
	cl->fd = fd;
	cl->next_id = 1;
	framer_init(&cl->fr, CLIENT_MAX_LINE);
	/* rpc.hello goes out with the first call, and its reply is checked
	 * with that call's (sboxd answers a connection's requests in order):
	 * one round trip fewer for every command */
	cl->hold_next = 1;
	if ((cl->hello = client_send(cl, "rpc.hello", json_pack("{s:i, s:s, "
	    "s:b}", "protocol", PROTOCOL_VERSION, "client", "sbox " SBOX_VERSION,
	    "methods", 0), NULL, 0, err)) == -1) {
		client_close(cl);
		return NULL;
	}
	return cl;
}

/* Close the connection. */
void
client_close(struct client *cl)
{
	struct client_reply *r;

	if (cl == NULL)
		return;
	while ((r = cl->replies) != NULL) {
		cl->replies = r->next;
		json_decref(r->msg);
		free(r);
	}
	if (cl->held_len > 0) {	/* a request kept and never followed */
		sbox_error e;
		error_clear(&e);
		client_flush_held(cl, &e);
	}
	free(cl->held);
	framer_free(&cl->fr);
	close(cl->fd);
	free(cl);
}

/* The socket's fd (to poll it: what is kept goes out first; a lost
 * connection shows in the read that follows). */
int
client_fd(struct client *cl)
{
	sbox_error e;

	error_clear(&e);
	client_flush_held(cl, &e);
	return cl->fd;
}

/* Set the function notifications go to. */
void
client_on_notify(struct client *cl, client_notify_cb cb, void *arg)
{
	cl->cb = cb;
	cl->cb_arg = arg;
}

/* Write len bytes of s (fds with the first sendmsg), all of them. */
static int
client_write_bytes(struct client *cl, const char *s, size_t len,
    const int *fds, int nfds, sbox_error *err)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 8)];
	} cbuf;
	struct msghdr mh;
	struct iovec iov;
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		memset(&mh, 0, sizeof mh);
		iov.iov_base = (char *)s + off;
		iov.iov_len = len - off;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (off == 0 && fdpass_put(&mh, cbuf.buf, sizeof cbuf.buf, fds,
		    nfds) < 0)
			return error_set(err, E_INVALID_PARAMS, "%d descriptors are "
			    "more than one request passes", nfds);
		n = sendmsg(cl->fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return error_set_errno(err, E_UNAVAILABLE, errno,
			    "lost the connection to sboxd");
		off += (size_t)n;
	}
	return 0;
}

/* Send the requests kept by client_hold_next, if any. */
static int
client_flush_held(struct client *cl, sbox_error *err)
{
	int rc;

	if (cl->held_len == 0)
		return 0;
	rc = client_write_bytes(cl, cl->held, cl->held_len, NULL, 0, err);
	cl->held_len = 0;
	return rc;
}

/* Keep the next request (without fds) to go out with the one after it, in
 * one write: sboxd then reads them together (rpc.hello with the first call;
 * session.info with command.exec and its fds, which come with the last
 * line of the write). Anything that reads, polls the socket or closes it
 * sends what is kept first. */
void
client_hold_next(struct client *cl)
{
	cl->hold_next = 1;
}

/* Write one message (and fds), after the kept ones, in as few sendmsg as
 * the socket takes (the fds with the first). */
static int
client_write(struct client *cl, json_t *msg, const int *fds, int nfds,
    sbox_error *err)
{
	size_t len;
	char *s, *all;
	int rc, hold = cl->hold_next;

	cl->hold_next = 0;
	if (nfds > 8)
		return error_set(err, E_INVALID_PARAMS, "too many fds");
	if ((s = envelope_dump(msg, &len)) == NULL)
		return error_set(err, E_INTERNAL, "cannot encode a request");
	if (hold && nfds == 0 && cl->held_len + len <= CLIENT_HELD_MAX) {
		if (cl->held == NULL && (cl->held = malloc(CLIENT_HELD_MAX)) ==
		    NULL) {
			free(s);
			return error_nomem(err);
		}
		memcpy(cl->held + cl->held_len, s, len);
		cl->held_len += len;
		free(s);
		return 0;
	}
	if (cl->held_len > 0) {
		/* the kept ones first, in the same write */
		if ((all = malloc(cl->held_len + len)) == NULL) {
			free(s);
			return error_nomem(err);
		}
		memcpy(all, cl->held, cl->held_len);
		memcpy(all + cl->held_len, s, len);
		free(s);
		s = all;
		len += cl->held_len;
		cl->held_len = 0;
	}
	rc = client_write_bytes(cl, s, len, fds, nfds, err);
	free(s);
	return rc;
}

/* Send a request without waiting; returns its id. */
long long
client_send(struct client *cl, const char *method, json_t *params,
    const int *fds, int nfds, sbox_error *err)
{
	long long id = cl->next_id++;
	json_t *msg;
	int rc;

	msg = envelope_request(id, method, params);
	rc = client_write(cl, msg, fds, nfds, err);
	json_decref(msg);
	return rc == -1 ? -1 : id;
}

/* Send a notification (no reply). */
int
client_notify(struct client *cl, const char *method, json_t *params,
    sbox_error *err)
{
	json_t *msg = envelope_notification(method, params);
	int rc = client_write(cl, msg, NULL, 0, err);

	json_decref(msg);
	return rc;
}

/* Handle one received line: keep a reply, or pass a notification on. */
static int
client_handle_line(struct client *cl, char *line, size_t len, sbox_error *err)
{
	struct client_reply *r;
	struct envelope env;

	if (envelope_parse_reply(line, len, &env, err) == -1) {
		envelope_free(&env);
		return error_context(err, "bad message from sboxd");
	}
	if (env.method != NULL) {
		if (cl->cb != NULL && cl->cb(env.method, env.params, cl->cb_arg))
			cl->stop = 1;
		envelope_free(&env);
		return 0;
	}
	if ((r = calloc(1, sizeof *r)) == NULL) {
		envelope_free(&env);
		return error_nomem(err);
	}
	r->id = json_is_integer(env.id) ? json_integer_value(env.id) : -1;
	r->msg = json_incref(env.root);
	r->next = cl->replies;
	cl->replies = r;
	envelope_free(&env);
	return 0;
}

/* Read once (blocking unless nonblock) and dispatch complete lines. */
static int
client_read(struct client *cl, int nonblock, sbox_error *err)
{
	char buf[65536], *line;
	size_t len;
	ssize_t n;
	int rc;

	if (client_flush_held(cl, err) == -1)
		return -1;
	n = recv(cl->fd, buf, sizeof buf, nonblock ? MSG_DONTWAIT : 0);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return error_set(err, E_UNAVAILABLE,
		    "sboxd closed the connection");
	if (framer_feed(&cl->fr, buf, (size_t)n, err) == -1)
		return -1;
	while ((rc = framer_next(&cl->fr, &line, &len, err)) == 1) {
		if (client_handle_line(cl, line, len, err) == -1)
			return -1;
	}
	return rc == -1 ? -1 : 0;
}

/* Read whatever is available without blocking and dispatch it. */
int
client_pump(struct client *cl, sbox_error *err)
{
	return client_read(cl, 1, err);
}

/* Take a kept reply for id out of the list, or NULL. */
static json_t *
client_take_reply(struct client *cl, long long id)
{
	struct client_reply **pp, *r;
	json_t *msg;

	for (pp = &cl->replies; (r = *pp) != NULL; pp = &r->next) {
		if (r->id == id || r->id == -1) {
			*pp = r->next;
			msg = r->msg;
			free(r);
			return msg;
		}
	}
	return NULL;
}

/* Turn a reply message into its result, or NULL with err. */
static json_t *
client_reply_result(json_t *msg, sbox_error *err)
{
	json_t *res, *e, *data;

	/* a request this client cancelled whose work finished anyway (a
	 * command killed on cancel): its outcome is data.result */
	e = json_object_get(msg, "error");
	data = json_object_get(e, "data");
	if ((res = json_object_get(data, "result")) != NULL &&
	    json_is_object(res) && json_is_string(json_object_get(data, "name")) &&
	    strcmp(json_string_value(json_object_get(data, "name")),
	    E_CANCELLED) == 0) {
		json_incref(res);
		json_decref(msg);
		return res;
	}
	if (e != NULL && (res = json_object_get(data, "error")) != NULL &&
	    json_is_object(res) && json_is_string(json_object_get(data, "name")) &&
	    strcmp(json_string_value(json_object_get(data, "name")),
	    E_CANCELLED) == 0) {
		/* ... or the error it ended with (a run outside denied) */
		error_set(err, json_string_value(json_object_get(res, "name")) ?
		    json_string_value(json_object_get(res, "name")) : E_CANCELLED,
		    "%s", json_string_value(json_object_get(res, "message")) ?
		    json_string_value(json_object_get(res, "message")) :
		    "cancelled");
		json_decref(msg);
		return NULL;
	}
	if (e != NULL) {
		envelope_error_decode(e, err);
		json_decref(msg);
		return NULL;
	}
	res = json_incref(json_object_get(msg, "result"));
	json_decref(msg);
	return res;
}

/* Has rpc.hello's reply come and said no? -1 with err (then every call
 * fails with it), else 0. */
static int
client_hello_failed(struct client *cl, sbox_error *err)
{
	json_t *msg, *r;

	if (cl->hello == 0)
		return 0;
	if (cl->hello < 0)
		return error_set(err, E_UNAVAILABLE, "sboxd refused this client");
	if ((msg = client_take_reply(cl, cl->hello)) == NULL)
		return 0;
	if ((r = client_reply_result(msg, err)) == NULL) {
		cl->hello = -1;
		return -1;
	}
	json_decref(r);
	cl->hello = 0;
	return 0;
}

/* The reply to id if it has arrived. */
json_t *
client_try_reply(struct client *cl, long long id, sbox_error *err)
{
	json_t *msg;

	if (client_hello_failed(cl, err) == -1)
		return NULL;
	msg = cl->hello == 0 ? client_take_reply(cl, id) : NULL;
	return msg ? client_reply_result(msg, err) : NULL;
}

/* Wait for the reply to id (rpc.hello's, sent first, comes before it). */
json_t *
client_wait_reply(struct client *cl, long long id, sbox_error *err)
{
	json_t *msg;

	for (;;) {
		if (client_hello_failed(cl, err) == -1)
			return NULL;
		if (cl->hello == 0 && (msg = client_take_reply(cl, id)) != NULL)
			break;
		if (client_read(cl, 0, err) == -1)
			return NULL;
	}
	return client_reply_result(msg, err);
}

/* Call a method and wait for its reply. */
json_t *
client_call(struct client *cl, const char *method, json_t *params,
    const int *fds, int nfds, sbox_error *err)
{
	long long id;

	if ((id = client_send(cl, method, params, fds, nfds, err)) == -1)
		return NULL;
	return client_wait_reply(cl, id, err);
}

/* Wait for notifications until the callback says stop or the daemon goes. */
int
client_wait(struct client *cl, sbox_error *err)
{
	cl->stop = 0;
	while (!cl->stop) {
		if (client_read(cl, 0, err) == -1)
			return -1;
	}
	return 0;
}

/* Connect, call one method and disconnect; NULL after printing the error
 * (*rc gets the exit code). params is consumed. */
json_t *
client_call_once(const struct client_opts *o, const char *method,
    json_t *params, int *rc)
{
	struct client *cl;
	sbox_error err;
	json_t *r;

	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		*rc = client_fail(&err);
		return NULL;
	}
	r = client_call(cl, method, params, NULL, 0, &err);
	client_close(cl);
	if (r == NULL)
		*rc = client_fail(&err);
	return r;
}

/* Wait up to ms for the answer to request id. */
int
client_wait_step(struct client *cl, long long id, int ms, json_t **r,
    sbox_error *err)
{
	struct pollfd pfd = { client_fd(cl), POLLIN, 0 };

	if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
		return error_set_errno(err, E_UNAVAILABLE, errno, "poll");
	if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
		return 0;
	if (client_pump(cl, err) == -1)
		return -1;
	return (*r = client_try_reply(cl, id, err)) != NULL ||
	    error_isset(err) ? 1 : 0;
}
