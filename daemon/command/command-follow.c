/* command-follow.c: other clients following a command (command.follow):
 * the output kept so far, then its live output, then command.exited; and
 * the notifications that tie a request to its command (command.started). */
#include "daemon/command/command-follow.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "daemon/client.h"
#include "daemon/rpc-call.h"
#include "daemon/session/session.h"
#include "protocol/base64.h"

#define COMMAND_FOLLOW_CHUNK (32 * 1024)  /* bytes per replayed notification */

/* One command.output notification of data to a client. */
static void
command_follow_output(struct conn *to, const struct command *c,
    const char *stream, const void *data, size_t n)
{
	char *b64;

	if ((b64 = base64_encode(data, n)) == NULL)
		return;
	client_notify(to, "command.output", json_pack("{s:I, s:s, s:s}",
	    "command", (json_int_t)c->id, "stream", stream, "data", b64));
	free(b64);
}

/* How a command ended: {command, session, state, exit_code, signal,
 * timed_out, duration_ms}, absent values null (the shape of the result). */
json_t *
command_follow_exit_json(const struct command *c)
{
	json_t *r = command_state_to_json(c), *out;

	out = json_pack("{s:I, s:s, s:O?, s:O?, s:O?, s:O?, s:O?}", "command",
	    (json_int_t)c->id, "session", c->s->id,
	    "state", json_object_get(r, "state"),
	    "exit_code", json_object_get(r, "exit_code"),
	    "signal", json_object_get(r, "signal"),
	    "timed_out", json_object_get(r, "timed_out"),
	    "duration_ms", json_object_get(r, "duration_ms"));
	json_decref(r);
	return out;
}

/* Tell the client that sent a command's request which command it is
 * (before any of its output): command.started {request, command, session,
 * tty? {rows, cols}} (its client needs the id at once to resize the
 * terminal and, with pipes, to type on it). */
void
command_follow_started(const struct command *c, struct rpc_call *call)
{
	struct conn *to = rpc_call_conn(call);
	const json_t *id = rpc_call_id(call);

	if (to == NULL)
		return;
	json_t *m = json_pack("{s:O, s:I, s:s}", "request", id != NULL ?
	    (json_t *)id : json_null(), "command", (json_int_t)c->id,
	    "session", c->s->id);

	if (m != NULL && c->tty)
		json_object_set_new(m, "tty", json_pack("{s:i, s:i}", "rows",
		    (int)c->tty_size.rows, "cols", (int)c->tty_size.cols));
	client_notify(to, "command.started", m);
}

/* A chunk of a command's output: to each client following it. */
void
command_follow_chunk(struct command *c, int err_stream, const void *data,
    size_t n)
{
	struct conn *to;
	size_t i;

	for (i = 0; i < c->nfollowers; i++) {
		if ((to = client_find(c->followers[i])) != NULL)
			command_follow_output(to, c, c->tty ? "tty" : err_stream ? "stderr" :
			    "stdout", data, n);
	}
}

/* The command is over: command.exited to each client following it. */
void
command_follow_end(struct command *c)
{
	struct conn *to;
	size_t i;

	for (i = 0; i < c->nfollowers; i++) {
		if ((to = client_find(c->followers[i])) != NULL)
			client_notify(to, "command.exited",
			    command_follow_exit_json(c));
	}
	free(c->followers);
	c->followers = NULL;
	c->nfollowers = 0;
}

/* Send a stream's kept output to one client, in chunks. */
static void
command_follow_replay(struct conn *to, const struct command *c,
    const struct command_stream *st, const char *stream)
{
	size_t len = st->kept ? evbuffer_get_length(st->kept) : 0, off, n;
	const unsigned char *p;

	if (len == 0)
		return;
	p = evbuffer_pullup(st->kept, -1);
	for (off = 0; p != NULL && off < len; off += n) {
		n = len - off < COMMAND_FOLLOW_CHUNK ? len - off :
		    COMMAND_FOLLOW_CHUNK;
		command_follow_output(to, c, stream, p + off, n);
	}
}

/* command.follow: answer with the command's state, then send the output
 * kept so far and, while it runs, its live output; command.exited ends it. */
int
command_follow(struct command *c, struct rpc_call *call, json_t **result,
    sbox_error *err)
{
	struct conn *to = rpc_call_conn(call);
	unsigned long id, *n;
	size_t i;

	(void)result;
	if (to == NULL)
		return error_set(err, E_INTERNAL, "command.follow needs a client");
	id = client_id(to);
	if (c->state == COMMAND_RUNNING) {
		for (i = 0; i < c->nfollowers; i++) {
			if (c->followers[i] == id || client_find(c->followers[i]) ==
			    NULL)
				break;
		}
		if (i == c->nfollowers && i >= COMMAND_MAX_FOLLOWERS)
			return error_set_field(err, E_LIMIT, "command",
			    "command %lld has %d followers already", c->id,
			    COMMAND_MAX_FOLLOWERS);
		if (i == c->nfollowers) {
			if ((n = realloc(c->followers, (i + 1) * sizeof *n)) ==
			    NULL)
				return error_nomem(err);
			c->followers = n;
			c->nfollowers++;
		}
		c->followers[i] = id;
	}
	/* the answer first, then what was kept, then (live) the rest: all in
	 * this turn of the loop, so nothing is missed or sent twice */
	rpc_call_reply(call, command_state_to_json(c));
	command_follow_replay(to, c, &c->out, "stdout");
	command_follow_replay(to, c, &c->err, "stderr");
	if (c->state != COMMAND_RUNNING)
		client_notify(to, "command.exited", command_follow_exit_json(c));
	return RPC_LATER;
}
