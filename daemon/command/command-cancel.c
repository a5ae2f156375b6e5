/* command-cancel.c: a command whose client went away (or cancelled the
 * call) is killed; while the kill cannot be sent to the sandbox (its
 * control channel is full), it is sent again from a timer until the
 * command ends: no command outlives its client. */
#include "daemon/command/command.h"

#include <signal.h>
#include <stdint.h>

#include <event2/event.h>

#include "daemon/log.h"
#include "daemon/sboxd.h"

#define COMMAND_KILL_RETRY_MS 20

static void command_kill_later(long long id);

/* Timer: kill a command whose client is gone, again (the last try could
 * not be sent); looked up by id, it may have ended meanwhile. */
static void
command_kill_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	long long id = (long long)(intptr_t)arg;
	struct command *c;
	sbox_error err;
	static int tries;

	(void)fd; (void)what;
	if ((c = command_find(id, NULL)) == NULL ||
	    c->state != COMMAND_RUNNING || c->exited)
		return;
	error_clear(&err);
	if (command_kill(c, SIGKILL, &err) == 0)
		return;
	if (++tries % 50 == 1)
		log_warn("command %lld: its client is gone, killing it again: %s",
		    id, err.message);
	command_kill_later(id);
}

/* Try the kill of command id again in a moment (until it ends). */
static void
command_kill_later(long long id)
{
	struct timeval tv = { 0, COMMAND_KILL_RETRY_MS * 1000 };

	if (event_base_once(sboxd.base, -1, EV_TIMEOUT, command_kill_retry_cb,
	    (void *)(intptr_t)id, &tv) == -1)
		log_error("command %lld: cannot schedule its kill", id);
}

/* The client of a running command went away or cancelled: kill it (and
 * again from a timer while the kill cannot be sent: no command outlives
 * its client). */
void
command_cancel_cb(struct rpc_call *call, void *arg)
{
	struct command *c = arg;
	sbox_error err;

	(void)call;
	if (c->state == COMMAND_RUNNING && !c->detach) {
		log_info("client of command %lld went away or cancelled; killing it",
		    c->id);
		error_clear(&err);
		if (command_kill(c, SIGKILL, &err) == -1)
			command_kill_later(c->id);
	}
}
