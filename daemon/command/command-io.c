/* command-io.c: a command's stdio: the client's own fds, pipes streamed as
 * command.output notifications, output kept for later, backpressure so a
 * flood never grows the daemon's memory, and stdin for command.write. */
#include "daemon/command/command-io.h"
#include "policy/stdio.h"

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

#include "daemon/client.h"
#include "daemon/command/command-follow.h"
#include "daemon/rpc-call.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "policy/config.h"
#include "policy/plan.h"
#include "protocol/base64.h"

#define COMMAND_IO_CHUNK     (32 * 1024)       /* bytes per notification */
#define COMMAND_IO_HIGH      (1024 * 1024)     /* queued bytes before pausing */
#define COMMAND_IO_PUMP_MS   20
#define COMMAND_IO_FLUSH_S   10                /* a stalled reader of a forward */
#define COMMAND_IO_FLOOR     (64 * 1024)       /* kept of a running command */

/* Kept output of one top-level session and the sessions made inside it. */
struct command_io_budget {
	char     top[17];
	uint64_t bytes;
};

static struct command_io_budget *command_io_budgets;
static size_t command_io_nbudgets;
static uint64_t command_io_kept_total;   /* kept output of every session */

/* The budget entry of top (made when make; NULL if none / ENOMEM). */
static struct command_io_budget *
command_io_budget(const char *top, int make)
{
	struct command_io_budget *b;
	size_t i;

	for (i = 0; i < command_io_nbudgets; i++)
		if (strcmp(command_io_budgets[i].top, top) == 0)
			return &command_io_budgets[i];
	if (!make)
		return NULL;
	b = realloc(command_io_budgets, (command_io_nbudgets + 1) * sizeof *b);
	if (b == NULL)
		return NULL;
	command_io_budgets = b;
	b = &command_io_budgets[command_io_nbudgets++];
	snprintf(b->top, sizeof b->top, "%s", top);
	b->bytes = 0;
	return b;
}

/* Count n more (add) or fewer kept bytes of c in the budgets. */
static void
command_io_account(const struct command *c, uint64_t n, int add)
{
	struct command_io_budget *b = command_io_budget(c->budget_top, add);

	if (add) {
		command_io_kept_total += n;
		if (b != NULL)
			b->bytes += n;
		return;
	}
	command_io_kept_total -= n <= command_io_kept_total ? n :
	    command_io_kept_total;
	if (b == NULL)
		return;
	b->bytes -= n <= b->bytes ? n : b->bytes;
	if (b->bytes == 0)
		*b = command_io_budgets[--command_io_nbudgets];
}

/* Drop up to want of the oldest kept bytes of v (stdout first), leaving
 * it floor bytes per stream; the bytes dropped. */
static uint64_t
command_io_drop(struct command *v, uint64_t want, size_t floor)
{
	struct command_stream *sts[2] = { &v->out, &v->err };
	uint64_t got = 0;
	size_t have, n;
	int i;

	for (i = 0; i < 2 && got < want; i++) {
		if (sts[i]->kept == NULL ||
		    (have = evbuffer_get_length(sts[i]->kept)) <= floor)
			continue;
		have -= floor;
		n = have < want - got ? have : (size_t)(want - got);
		evbuffer_drain(sts[i]->kept, n);
		sts[i]->dropped += n;
		sts[i]->truncated = 1;
		got += n;
	}
	if (got > 0)
		command_io_account(v, got, 0);
	return got;
}

/* Make room for n more kept bytes of c within its session's and the
 * daemon's budgets, dropping the oldest kept output: of finished commands
 * first, then of running ones down to COMMAND_IO_FLOOR a stream (a flood
 * never takes a small output's place), never c's own. Returns how many of
 * the n bytes fit. */
static size_t
command_io_make_room(struct command *c, size_t n)
{
	uint64_t per = config_output_session_bytes(sboxd.config);
	uint64_t all = config_output_total_bytes(sboxd.config);
	struct command_io_budget *b = command_io_budget(c->budget_top, 0);
	uint64_t mine = b ? b->bytes : 0, over_s, over_d, got;
	struct command *v;
	int pass, same;

	for (pass = 0; pass < 2; pass++) {
		for (v = command_state_next(NULL); v != NULL;
		    v = command_state_next(v)) {
			over_s = mine + n > per ? mine + n - per : 0;
			over_d = command_io_kept_total + n > all ?
			    command_io_kept_total + n - all : 0;
			if (over_s == 0 && over_d == 0)
				return n;
			if (v == c || (pass == 0) != (v->state == COMMAND_DONE))
				continue;
			same = strcmp(v->budget_top, c->budget_top) == 0;
			if (!same && over_d == 0)
				continue;
			got = command_io_drop(v, same && over_s > over_d ?
			    over_s : over_d, pass == 0 ? 0 : COMMAND_IO_FLOOR);
			if (same)
				mine -= got <= mine ? got : mine;
		}
	}
	over_s = mine + n > per ? mine + n - per : 0;
	over_d = command_io_kept_total + n > all ?
	    command_io_kept_total + n - all : 0;
	if (over_d > over_s)
		over_s = over_d;
	return over_s >= n ? 0 : n - (size_t)over_s;
}

/* The top-level session c's kept output counts in: its session's top. */
static void
command_io_budget_top(struct command *c)
{
	const struct session *s = c->s, *up;
	int depth = 0;

	while (s->parent != NULL && depth++ < 64 &&
	    (up = session_find(s->parent, NULL)) != NULL)
		s = up;
	snprintf(c->budget_top, sizeof c->budget_top, "%s", s->id);
}

/* Bytes of output kept per stream. */
static size_t
command_io_cap(const struct command *c)
{
	uint64_t cap = c->s->plan ? c->s->plan->limits.output_bytes : 0;

	return cap > 0 ? (size_t)cap : 8 * 1024 * 1024;
}

/* Should this stream stop reading until its reader catches up? */
static int
command_io_congested(struct command *c, struct command_stream *st)
{
	struct conn *owner;

	if (st->forward != NULL &&
	    evbuffer_get_length(bufferevent_get_output(st->forward)) >
	    COMMAND_IO_HIGH)
		return 1;
	if (c->stdio == COMMAND_STDIO_PIPES && !c->detach &&
	    (owner = client_find(c->owner)) != NULL &&
	    client_pending_output(owner) > COMMAND_IO_HIGH)
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
		if (command_io_congested(c, sts[i])) {
			still = 1;
			continue;
		}
		sts[i]->paused = 0;
		bufferevent_enable(sts[i]->bev, EV_READ);
	}
	if (still)
		event_add(c->pump, &tv);
}

/* Handle a chunk of output: keep, stream, forward. */
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
	if (room > n)
		room = n;
	if (room > 0)
		room = command_io_make_room(c, room);
	if (room > 0 && evbuffer_add(st->kept, data, room) == 0)
		command_io_account(c, room, 1);
	else
		room = 0;
	if (n > room)
		st->truncated = 1;
	if (st->forward != NULL) {
		bufferevent_write(st->forward, data, n);
		if (c->tty)
			ttyline_feed(&c->out_line, data, n);
	}
	command_follow_chunk(c, st == &c->err, data, n);
	if (c->stdio == COMMAND_STDIO_PIPES &&
	    (owner = client_find(c->owner)) != NULL &&
	    (b64 = base64_encode(data, n)) != NULL) {
		client_notify(owner, "command.output", json_pack("{s:I, s:s, s:s}",
		    "command", (json_int_t)c->id, "stream", c->tty ? "tty" :
		    st == &c->out ? "stdout" : "stderr", "data", b64));
		free(b64);
	}
}

/* Output arrived on one of the command's pipes. */
void
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
	if (command_io_congested(c, st)) {
		st->paused = 1;
		bufferevent_disable(bev, EV_READ);
		if (c->pump == NULL)
			c->pump = event_new(sboxd.base, -1, 0, command_io_pump_cb, c);
		event_add(c->pump, &tv);
	}
}

/* A pipe reached EOF (or failed). */
void
command_io_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct command *c = arg;
	struct command_stream *st = bev == c->out.bev ? &c->out : &c->err;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	command_io_read_cb(bev, arg);
	st->open = 0;
	bufferevent_disable(bev, EV_READ);
	c->may_finish(c);
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

/* stdio "fds" without a terminal, for a command inside a sandbox: refuse
 * the client's descriptors unless each is of a kind allowed above (the CLI
 * relays its terminal through pipes). Runs outside and unsandboxed
 * sessions get the client's descriptors as they are. */
int
command_io_check_fds(const struct command *c, const int fds[3],
    sbox_error *err)
{
	static const char *names[3] = { "stdin", "stdout", "stderr" };
	int i;

	if (c->outside || c->s == NULL || c->s->plan == NULL ||
	    !c->s->plan->sandboxed)
		return 0;
	for (i = 0; i < 3; i++)
		if (!stdio_fd_allowed(fds[i]))
			return error_set_field(err, E_INVALID_PARAMS, "stdio",
			    "stdio \"fds\": the %s passed is %s; a sandbox never "
			    "holds a terminal or a device of the host (relay it "
			    "through a pipe, or ask for tty {rows, cols})",
			    names[i], isatty(fds[i]) ? "a terminal" :
			    "not a file, pipe, socket or /dev/null");
	return 0;
}

/* The client's fd took what was queued for it: the command may finish. */
static void
command_io_forward_write_cb(struct bufferevent *bev, void *arg)
{
	struct command *c = arg;

	(void)bev;
	if (c->exited)
		c->may_finish(c);
}

/* The client's fd failed (its reader went away): stop copying to it. */
static void
command_io_forward_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct command *c = arg;
	struct command_stream *st = bev == c->out.forward ? &c->out : &c->err;

	if (!(what & (BEV_EVENT_ERROR | BEV_EVENT_EOF | BEV_EVENT_TIMEOUT)))
		return;
	bufferevent_free(bev);
	st->forward = NULL;
	if (c->exited)
		c->may_finish(c);
}

/* After the command: close a forward once its queue is written (or fails,
 * or its reader stalls for COMMAND_IO_FLUSH_S). */
static void
command_io_flushed_cb(struct bufferevent *bev, void *arg)
{
	(void)arg;
	if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		bufferevent_free(bev);
}

/* A forward being flushed after its command failed or stalled. */
static void
command_io_flush_failed_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)what; (void)arg;
	bufferevent_free(bev);
}

/* True while output copied to the client's own fds is still queued. */
int
command_io_forward_pending(const struct command *c)
{
	return (c->out.forward != NULL && evbuffer_get_length(
	    bufferevent_get_output(c->out.forward)) > 0) ||
	    (c->err.forward != NULL && evbuffer_get_length(
	    bufferevent_get_output(c->err.forward)) > 0);
}

/* The command is over: close our copies of the client's fds so that its
 * reader sees EOF, after what is queued for them is written. */
void
command_io_close_forwards(struct command *c)
{
	struct command_stream *sts[2] = { &c->out, &c->err };
	struct timeval tv = { COMMAND_IO_FLUSH_S, 0 };
	struct bufferevent *bev;
	int i;

	for (i = 0; i < 2; i++) {
		if ((bev = sts[i]->forward) == NULL)
			continue;
		sts[i]->forward = NULL;
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0) {
			bufferevent_free(bev);
			continue;
		}
		bufferevent_setcb(bev, NULL, command_io_flushed_cb,
		    command_io_flush_failed_cb, NULL);
		bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
		bufferevent_set_timeouts(bev, NULL, &tv);
	}
}

/* Open a client's fd again (a terminal, a pipe or a file) as a new,
 * non-blocking description: the client's own flags stay as they are. */
int
command_io_reopen(int client_fd, int flags)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/fd/%d", client_fd);
	return open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
}

/* Copy a stream's output to fd (taken) as it comes. */
int
command_io_forward_to(struct command *c, struct command_stream *st, int fd,
    sbox_error *err)
{
	st->forward = bufferevent_socket_new(sboxd.base, fd,
	    BEV_OPT_CLOSE_ON_FREE);
	if (st->forward == NULL) {
		close(fd);
		return error_set(err, E_INTERNAL, "cannot watch a descriptor");
	}
	bufferevent_setcb(st->forward, NULL, command_io_forward_write_cb,
	    command_io_forward_event_cb, c);
	bufferevent_enable(st->forward, EV_WRITE);
	return 0;
}

/* fds mode: copy stderr through us (so that followers see it) when the
 * client's stderr is a terminal or a pipe we can write without blocking.
 * Any other device (/dev/null, ...) goes to the command as it is: it
 * cannot be watched for writing (epoll refuses it), so a copy would hold
 * the command's end for the drain time, and nobody reads it anyway. */
static int
command_io_interpose(struct command *c, int client_fd, int *child_fd,
    sbox_error *err)
{
	struct stat st;
	int fd;

	if (fstat(client_fd, &st) == -1 ||
	    !((S_ISCHR(st.st_mode) && isatty(client_fd)) ||
	    S_ISFIFO(st.st_mode))) {
		*child_fd = client_fd;
		return 0;
	}
	if ((fd = command_io_reopen(client_fd, O_WRONLY)) == -1 ||
	    command_io_forward_to(c, &c->err, fd, err) == -1) {
		*child_fd = client_fd;
		return 0;
	}
	if (command_io_pipe(c, &c->err, child_fd, err) == -1)
		return -1;
	close(client_fd);
	return 0;
}

/* Set up the command's stdio for its mode. */
int
command_io_setup(struct command *c, struct rpc_call *call, int *given,
    int want_stdin, int fds[3], sbox_error *err)
{
	int p[2], i;

	c->out.kept = evbuffer_new();
	c->err.kept = evbuffer_new();
	command_io_budget_top(c);
	if (c->tty)
		return 0;	/* the terminal's relay: command_tty_setup */
	switch (c->stdio) {
	case COMMAND_STDIO_FDS:
		if (given != NULL) {
			/* a program inside handed over (init-exclude.c): its
			 * own descriptors, as they are */
			for (i = 0; i < 3; i++) {
				fds[i] = given[i];
				given[i] = -1;
			}
			return 0;
		}
		if (call == NULL || rpc_call_nfds(call) < 3)
			return error_set_field(err, E_INVALID_PARAMS, "stdio",
			    "stdio \"fds\" needs 3 file descriptors passed with "
			    "the request (SCM_RIGHTS)");
		for (i = 0; i < 3; i++)
			fds[i] = rpc_call_take_fd(call, i);
		if (command_io_check_fds(c, fds, err) == -1)
			return -1;
		i = fds[2];
		return command_io_interpose(c, i, &fds[2], err);
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

/* Close our end of the command's stdin (a terminal's relay is
 * command_tty_free's). */
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

/* A finished command's pipes (not a terminal's master): closed, its kept
 * output stays for command.read. */
void
command_io_release(struct command *c)
{
	struct command_stream *sts[2] = { &c->out, &c->err };
	int i;

	if (c->tty)
		return;
	for (i = 0; i < 2; i++) {
		if (sts[i]->bev != NULL) {
			bufferevent_free(sts[i]->bev);
			sts[i]->bev = NULL;
		}
		sts[i]->open = 0;
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
		if (sts[i]->forward)
			bufferevent_free(sts[i]->forward);
		if (sts[i]->kept) {
			command_io_account(c, evbuffer_get_length(
			    sts[i]->kept), 0);
			evbuffer_free(sts[i]->kept);
		}
		sts[i]->bev = sts[i]->forward = NULL;
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
	json_object_set_new(out, "output_dropped", json_integer(
	    (json_int_t)(c->out.dropped + c->err.dropped)));
	return out;
}

/* Write to a pipes-mode command's stdin; eof closes it. */
int
command_io_write(struct command *c, const void *data, size_t n, int eof,
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
