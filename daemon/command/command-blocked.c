/* command-blocked.c: what the sandbox refused, told as it happens. Each new
 * entry of a command's blocked lists goes at once to the client that runs
 * it (command.blocked), so a person at `sbox session shell` sees a refusal
 * when it happens, not when the shell exits; and the hosts the proxy
 * allowed but could not reach (blocked.unreachable) with the cause. */
#include "daemon/command/command-blocked.h"

#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon/command/command-io.h"
#include "daemon/client.h"
#include "daemon/rpc-call.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"

#define COMMAND_BLOCKED_MAX_UNREACHABLE 64
/* A refusal on a relayed terminal is told once the command's own output
 * has reached a line's end (the message it writes about the refused
 * file usually follows the refusal): looked at every HOLD_MS, at most
 * HOLD_TRIES times, then told as it stands (after a line break). */
#define COMMAND_BLOCKED_HOLD_MS    20
#define COMMAND_BLOCKED_HOLD_TRIES 10

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

/* Send the held command.blocked messages to the client that runs c, the
 * first with line_start as c's terminal stands now. */
void
command_blocked_flush(struct command *c)
{
	struct conn *to;
	json_t *m;
	size_t i;

	if (c->blocked_ev != NULL)
		event_del(c->blocked_ev);
	c->blocked_waits = 0;
	if (c->blocked_held == NULL)
		return;
	command_blocked_drain(c);
	to = c->owner != 0 ? client_find(c->owner) : NULL;
	json_array_foreach(c->blocked_held, i, m) {
		json_object_set_new(m, "line_start", json_boolean(i > 0 ||
		    !c->out_line.midline));
		if (to != NULL)
			client_notify(to, "command.blocked", json_incref(m));
	}
	json_decref(c->blocked_held);
	c->blocked_held = NULL;
}

/* The held refusals' timer: tell them once the terminal's line has ended,
 * or after the last try. */
static void
command_blocked_hold_cb(evutil_socket_t fd, short what, void *arg)
{
	struct command *c = arg;
	struct timeval tv = { 0, COMMAND_BLOCKED_HOLD_MS * 1000 };

	(void)fd;
	(void)what;
	command_blocked_drain(c);
	if (c->out_line.midline &&
	    ++c->blocked_waits < COMMAND_BLOCKED_HOLD_TRIES) {
		event_add(c->blocked_ev, &tv);
		return;
	}
	command_blocked_flush(c);
}

/* Free what c holds for its refusals (the command is freed). */
void
command_blocked_free(struct command *c)
{
	if (c->blocked_ev != NULL)
		event_free(c->blocked_ev);
	c->blocked_ev = NULL;
	json_decref(c->blocked_held);
	c->blocked_held = NULL;
}

/* A new entry of c's blocked.KIND: command.blocked {command, blocked:
 * {KIND: [entry]}, line_start?} to the client that runs it. line_start
 * (a terminal relayed to the client's own): the line written there last
 * holds no text (daemon/command/ttyline.h), so a line written now starts at its
 * left edge. On such a terminal the message is held for the command's
 * own words about the refusal (command_blocked_hold_cb); told at once
 * when it cannot be held. */
void
command_blocked_notify(struct command *c, const char *kind, json_t *entry)
{
	struct timeval tv = { 0, COMMAND_BLOCKED_HOLD_MS * 1000 };
	struct conn *to;
	json_t *m;

	if (entry == NULL || c->owner == 0 || (to = client_find(c->owner)) == NULL)
		return;
	m = json_pack("{s:I, s:{s:[O]}}", "command", (json_int_t)c->id,
	    "blocked", kind, entry);
	if (m == NULL)
		return;
	if (c->tty && c->stdio == COMMAND_STDIO_FDS &&
	    c->state != COMMAND_DONE) {
		if (c->blocked_held == NULL)
			c->blocked_held = json_array();
		if (c->blocked_ev == NULL)
			c->blocked_ev = evtimer_new(sboxd.base,
			    command_blocked_hold_cb, c);
		if (c->blocked_held != NULL && c->blocked_ev != NULL &&
		    json_array_append_new(c->blocked_held, m) == 0) {
			if (!evtimer_pending(c->blocked_ev, NULL))
				event_add(c->blocked_ev, &tv);
			return;
		}
		command_blocked_drain(c);
		json_object_set_new(m, "line_start", json_boolean(
		    !c->out_line.midline));
	}
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
