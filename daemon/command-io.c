/* command-io.c: a command's stdio: the client's own fds, pipes streamed as
 * command.output notifications, output kept for later, backpressure so a
 * flood never grows the daemon's memory, and stdin for command.write. */
#include "daemon/command-io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon/rpc.h"
#include "daemon/sboxd.h"
#include "daemon/session.h"
#include "policy/plan.h"
#include "protocol/base64.h"

#define COMMAND_IO_CHUNK     (32 * 1024)       /* bytes per notification */
#define COMMAND_IO_HIGH      (1024 * 1024)     /* queued bytes before pausing */
#define COMMAND_IO_PUMP_MS   20

/* Bytes of output kept per stream. */
static size_t
command_io_cap(const struct command *c)
{
	uint64_t cap = c->s->plan ? c->s->plan->limits.output_bytes : 0;

	return cap > 0 ? (size_t)cap : 8 * 1024 * 1024;
}

/* Should the streams stop reading until their reader catches up? */
static int
command_io_congested(struct command *c)
{
	struct conn *owner;

	if (c->stdio == COMMAND_STDIO_PIPES && !c->detach &&
	    (owner = conn_find(c->owner)) != NULL &&
	    conn_pending_output(owner) > COMMAND_IO_HIGH)
		return 1;
	return 0;
}

/* Timer: resume paused streams whose reader has caught up. */
static void
command_io_pump_cb(evutil_socket_t fd, short what, void *arg)
{
	struct command *c = arg;
	struct timeval tv = { 0, COMMAND_IO_PUMP_MS * 1000 };
	struct command_stream *sts[2] = { &c->out, &c->err };
	int i, still = 0;

	(void)fd; (void)what;
	for (i = 0; i < 2; i++) {
		if (!sts[i]->paused || sts[i]->bev == NULL)
			continue;
		if (command_io_congested(c)) {
			still = 1;
			continue;
		}
		sts[i]->paused = 0;
		bufferevent_enable(sts[i]->bev, EV_READ);
	}
	if (still)
		event_add(c->pump, &tv);
}

/* Handle a chunk of output: keep, stream. */
static void
command_io_chunk(struct command *c, struct command_stream *st,
    const char *data, size_t n)
{
	struct conn *owner;
	size_t cap = command_io_cap(c), room;
	char *b64;

	st->total += n;
	room = evbuffer_get_length(st->kept) < cap ?
	    cap - evbuffer_get_length(st->kept) : 0;
	evbuffer_add(st->kept, data, n < room ? n : room);
	if (n > room)
		st->truncated = 1;
	if (c->stdio == COMMAND_STDIO_PIPES &&
	    (owner = conn_find(c->owner)) != NULL &&
	    (b64 = base64_encode(data, n)) != NULL) {
		conn_notify(owner, "command.output", json_pack("{s:I, s:s, s:s}",
		    "command", (json_int_t)c->id, "stream",
		    st == &c->out ? "stdout" : "stderr", "data", b64));
		free(b64);
	}
}

/* Output arrived on one of the command's pipes. */
static void
command_io_read_cb(struct bufferevent *bev, void *arg)
{
	struct command *c = arg;
	struct command_stream *st = bev == c->out.bev ? &c->out : &c->err;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct timeval tv = { 0, COMMAND_IO_PUMP_MS * 1000 };
	char buf[COMMAND_IO_CHUNK];
	int n;

	while ((n = evbuffer_remove(in, buf, sizeof buf)) > 0)
		command_io_chunk(c, st, buf, (size_t)n);
	if (command_io_congested(c)) {
		st->paused = 1;
		bufferevent_disable(bev, EV_READ);
		if (c->pump == NULL)
			c->pump = event_new(sboxd.base, -1, 0, command_io_pump_cb, c);
		event_add(c->pump, &tv);
	}
}

/* A pipe reached EOF (or failed). */
static void
command_io_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct command *c = arg;
	struct command_stream *st = bev == c->out.bev ? &c->out : &c->err;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	command_io_read_cb(bev, arg);
	st->open = 0;
	bufferevent_disable(bev, EV_READ);
	command_maybe_finish(c);
}

/* Make a pipe whose read end we watch; the write end goes to the child. */
static int
command_io_pipe(struct command *c, struct command_stream *st, int *child_fd,
    sbox_error *err)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) == -1)
		return error_set_errno(err, E_IO, errno, "pipe");
	evutil_make_socket_nonblocking(p[0]);
	st->bev = bufferevent_socket_new(sboxd.base, p[0], BEV_OPT_CLOSE_ON_FREE);
	if (st->bev == NULL) {
		close(p[0]);
		close(p[1]);
		return error_set(err, E_INTERNAL, "cannot watch a pipe");
	}
	bufferevent_setcb(st->bev, command_io_read_cb, NULL, command_io_event_cb, c);
	bufferevent_setwatermark(st->bev, EV_READ, 0, COMMAND_IO_CHUNK * 4);
	bufferevent_enable(st->bev, EV_READ);
	st->open = 1;
	*child_fd = p[1];
	return 0;
}

/* Open /dev/null for a child's fd. */
static int
command_io_null(int *fd, int flags, sbox_error *err)
{
	if ((*fd = open("/dev/null", flags | O_CLOEXEC)) == -1)
		return error_set_errno(err, E_IO, errno, "/dev/null");
	return 0;
}

/* Set up the command's stdio for its mode. */
int
command_io_setup(struct command *c, struct rpc_call *call, int want_stdin,
    int fds[3], sbox_error *err)
{
	int p[2], i;

	c->out.kept = evbuffer_new();
	c->err.kept = evbuffer_new();
	switch (c->stdio) {
	case COMMAND_STDIO_FDS:
		if (call == NULL || rpc_call_nfds(call) < 3)
			return error_set_field(err, E_INVALID_PARAMS, "stdio",
			    "stdio \"fds\" needs 3 file descriptors passed with "
			    "the request (SCM_RIGHTS)");
		/* the client's own fds: the command writes to them directly
		 * (what the sandbox refused comes from the file guard, not
		 * from the error output) */
		for (i = 0; i < 3; i++)
			fds[i] = rpc_call_take_fd(call, i);
		return 0;
	case COMMAND_STDIO_PIPES:
		if (want_stdin) {
			if (pipe2(p, O_CLOEXEC) == -1)
				return error_set_errno(err, E_IO, errno, "pipe");
			fds[0] = p[0];
			c->stdin_fd = p[1];
			evutil_make_socket_nonblocking(p[1]);
		} else if (command_io_null(&fds[0], O_RDONLY, err) == -1)
			return -1;
		if (command_io_pipe(c, &c->out, &fds[1], err) == -1)
			return -1;
		return command_io_pipe(c, &c->err, &fds[2], err);
	case COMMAND_STDIO_NONE:
		if (command_io_null(&fds[0], O_RDONLY, err) == -1 ||
		    command_io_pipe(c, &c->out, &fds[1], err) == -1)
			return -1;
		return command_io_pipe(c, &c->err, &fds[2], err);
	}
	return error_set(err, E_INTERNAL, "unknown stdio mode");
}

/* Close the child's ends after the spawn. */
void
command_io_close_child_fds(int fds[3])
{
	int i;

	for (i = 0; i < 3; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

/* Close our end of the command's stdin. */
void
command_io_close_inputs(struct command *c)
{
	if (c->stdin_fd >= 0) {
		close(c->stdin_fd);
		c->stdin_fd = -1;
	}
}

/* Stop reading the command's output. */
void
command_io_close_outputs(struct command *c)
{
	struct command_stream *sts[2] = { &c->out, &c->err };
	int i;

	for (i = 0; i < 2; i++) {
		if (sts[i]->bev != NULL && sts[i]->open)
			command_io_read_cb(sts[i]->bev, c);
		sts[i]->open = 0;
		if (sts[i]->bev != NULL)
			bufferevent_disable(sts[i]->bev, EV_READ);
	}
}

/* Release every stdio resource. */
void
command_io_free(struct command *c)
{
	struct command_stream *sts[2] = { &c->out, &c->err };
	int i;

	command_io_close_inputs(c);
	for (i = 0; i < 2; i++) {
		if (sts[i]->bev)
			bufferevent_free(sts[i]->bev);
		if (sts[i]->kept)
			evbuffer_free(sts[i]->kept);
		sts[i]->bev = NULL;
		sts[i]->kept = NULL;
	}
	if (c->pump)
		event_free(c->pump);
	c->pump = NULL;
}

/* Output kept for a command, base64. */
json_t *
command_output(const struct command *c)
{
	const struct command_stream *sts[2] = { &c->out, &c->err };
	json_t *out = json_object();
	size_t n;
	char *b64;
	int i;

	for (i = 0; i < 2; i++) {
		n = sts[i]->kept ? evbuffer_get_length(sts[i]->kept) : 0;
		b64 = base64_encode(n ? (const void *)evbuffer_pullup(sts[i]->kept, -1) :
		    (const void *)"", n);
		json_object_set_new(out, i == 0 ? "stdout" : "stderr",
		    json_string(b64 ? b64 : ""));
		free(b64);
	}
	json_object_set_new(out, "output_truncated",
	    json_boolean(c->out.truncated || c->err.truncated));
	return out;
}

/* Write to a pipes-mode command's stdin; eof closes it. */
int
command_write(struct command *c, const void *data, size_t n, int eof,
    sbox_error *err)
{
	const char *p = data;
	ssize_t w;

	if (c->stdin_fd < 0)
		return error_set_field(err, E_INVALID_PARAMS, "command",
		    "command %lld has no open stdin (start it with stdio "
		    "\"pipes\" and stdin true)", c->id);
	while (n > 0) {
		w = write(c->stdin_fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return error_set(err, E_LIMIT,
			    "the command is not reading its input; %zu bytes were "
			    "not written", n);
		if (w < 0)
			return error_set_errno(err, E_IO, errno, "stdin");
		p += w;
		n -= (size_t)w;
	}
	if (eof)
		command_io_close_inputs(c);
	return 0;
}
