/* command-blocked.c: what the sandbox refused, told as it happens. Each new
 * entry of a command's blocked lists goes at once to the client that runs
 * it (command.blocked), so a person at `sbox session shell` sees a refusal
 * when it happens, not when the shell exits; and the hosts the proxy
 * allowed but could not reach (blocked.unreachable) with the cause. */
#include "daemon/command/command-blocked.h"

#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "daemon/command/command-io.h"
#include "daemon/client.h"
#include "daemon/rpc-call.h"
#include "daemon/session/session.h"

#define COMMAND_BLOCKED_MAX_UNREACHABLE 64

/* A command on a terminal relayed to the client's own: relay what its
 * terminal has written so far first (the refusal came on another
 * channel), so the client's line lands after it and line_start is right. */
static void
command_blocked_drain(struct command *c)
{
	struct bufferevent *fw = c->out.forward;
	struct evbuffer *in;
	int i;

	if (!c->tty || c->stdio != COMMAND_STDIO_FDS || c->out.bev == NULL ||
	    !c->tty_master || !c->out.open || c->out.paused)
		return;
	in = bufferevent_get_input(c->out.bev);
	for (i = 0; i < 4 && evbuffer_read(in, bufferevent_getfd(c->out.bev),
	    16384) > 0; i++)
		;
	command_io_read_cb(c->out.bev, c);
	if (fw != NULL)
		evbuffer_write(bufferevent_get_output(fw), bufferevent_getfd(fw));
}

/* A new entry of c's blocked.KIND: command.blocked {command, blocked:
 * {KIND: [entry]}, line_start?} to the client that runs it. line_start
 * (a terminal relayed to the client's own): the line written there last
 * holds no text (daemon/command/ttyline.h), so a line written now starts at its
 * left edge. */
void
command_blocked_notify(struct command *c, const char *kind, json_t *entry)
{
	struct conn *to;
	json_t *m;

	if (entry == NULL || c->owner == 0 || (to = client_find(c->owner)) == NULL)
		return;
	command_blocked_drain(c);
	m = json_pack("{s:I, s:{s:[O]}}", "command", (json_int_t)c->id,
	    "blocked", kind, entry);
	if (m != NULL && c->tty && c->stdio == COMMAND_STDIO_FDS)
		json_object_set_new(m, "line_start", json_boolean(
		    !c->out_line.midline));
	if (m != NULL)
		client_notify(to, "command.blocked", m);
}

/* An allowed host the proxy could not reach: note it on the running
 * commands of the session (once per host and port). */
void
command_note_unreachable(struct session *s, const char *host, int port,
    const char *cause)
{
	struct command *c;
	size_t i;
	json_t *h;

	TAILQ_FOREACH(c, &s->commands, entry) {
		if (c->state != COMMAND_RUNNING || c->outside)
			continue;
		json_array_foreach(c->blocked.unreachable, i, h) {
			if (strcmp(json_string_value(json_object_get(h, "host")),
			    host) == 0 && json_integer_value(json_object_get(h,
			    "port")) == port)
				break;
		}
		if (i < json_array_size(c->blocked.unreachable) ||
		    i >= COMMAND_BLOCKED_MAX_UNREACHABLE)
			continue;
		json_array_append_new(c->blocked.unreachable, json_pack(
		    "{s:s, s:i, s:s}", "host", host, "port", port, "cause",
		    cause ? cause : "unknown"));
		command_blocked_notify(c, "unreachable", json_array_get(
		    c->blocked.unreachable, i));
	}
}
