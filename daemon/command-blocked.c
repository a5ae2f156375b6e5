/* command-blocked.c: what the sandbox refused, told as it happens. Each new
 * entry of a command's blocked lists goes at once to the client that runs
 * it (command.blocked), so a person at `sbox session shell` sees a refusal
 * when it happens, not when the shell exits; and the hosts the proxy
 * allowed but could not reach (blocked.unreachable) with the cause. */
#include "daemon/command.h"

#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "daemon/command-io.h"
#include "daemon/conn.h"
#include "daemon/rpc.h"
#include "daemon/session.h"

#define COMMAND_BLOCKED_MAX_UNREACHABLE 64

enum { COMMAND_BLOCKED_TEXT, COMMAND_BLOCKED_ESC, COMMAND_BLOCKED_CSI,
    COMMAND_BLOCKED_OSC };

/* Output relayed to the client's terminal: does its current line hold
 * text? A newline ends the line; escape sequences (CSI ... final byte, OSC
 * ... BEL or ESC \, ESC and one byte), '\r' and other control bytes write
 * none; any other byte does. */
void
command_blocked_track(struct command *c, const char *data, size_t n)
{
	unsigned char b;
	size_t i;

	for (i = 0; i < n; i++) {
		b = (unsigned char)data[i];
		switch (c->out_esc) {
		case COMMAND_BLOCKED_ESC:
			c->out_esc = b == '[' ? COMMAND_BLOCKED_CSI : b == ']' ?
			    COMMAND_BLOCKED_OSC : COMMAND_BLOCKED_TEXT;
			break;
		case COMMAND_BLOCKED_CSI:
			if (b >= 0x40 && b <= 0x7e)
				c->out_esc = COMMAND_BLOCKED_TEXT;
			break;
		case COMMAND_BLOCKED_OSC:
			if (b == 0x07)
				c->out_esc = COMMAND_BLOCKED_TEXT;
			else if (b == 0x1b)
				c->out_esc = COMMAND_BLOCKED_ESC;
			break;
		default:
			if (b == '\n')
				c->out_midline = 0;
			else if (b == 0x1b)
				c->out_esc = COMMAND_BLOCKED_ESC;
			else if (b >= 0x20 && b != 0x7f)
				c->out_midline = 1;
		}
	}
}

/* A command on a terminal relayed to the client's own: relay what its
 * terminal has written so far first (the refusal came on another
 * channel), so the client's line lands after it and line_start is true. */
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
 * (a terminal relayed to the client's own): the last byte written there
 * ended a line, so a line written now starts at its left edge. */
void
command_blocked_notify(struct command *c, const char *kind, json_t *entry)
{
	struct conn *to;
	json_t *m;

	if (entry == NULL || c->owner == 0 || (to = conn_find(c->owner)) == NULL)
		return;
	command_blocked_drain(c);
	m = json_pack("{s:I, s:{s:[O]}}", "command", (json_int_t)c->id,
	    "blocked", kind, entry);
	if (m != NULL && c->tty && c->stdio == COMMAND_STDIO_FDS)
		json_object_set_new(m, "line_start", json_boolean(
		    !c->out_midline));
	if (m != NULL)
		conn_notify(to, "command.blocked", m);
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
