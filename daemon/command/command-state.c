/* command-state.c: the commands the daemon holds, in the order they
 * started, and a command's state and result as JSON: what every file of a
 * command may use (command-state.h holds the command itself). */
#include "daemon/command/command-state.h"

#include "daemon/sboxd.h"
#include "daemon/session/session.h"

static TAILQ_HEAD(, command) command_state_all =
    TAILQ_HEAD_INITIALIZER(command_state_all);

/* Hold a command, last in the order they started. */
void
command_state_add(struct command *c)
{
	TAILQ_INSERT_TAIL(&command_state_all, c, all);
}

/* Drop a command from those held. */
void
command_state_remove(struct command *c)
{
	TAILQ_REMOVE(&command_state_all, c, all);
}

/* The command after c in the order they started (the first for NULL). */
struct command *
command_state_next(const struct command *c)
{
	return c == NULL ? TAILQ_FIRST(&command_state_all) : TAILQ_NEXT(c, all);
}

/* The name of a final state, for the store and results. */
const char *
command_state_name(const struct command *c)
{
	if (c->state == COMMAND_RUNNING)
		return "running";
	if (c->failed)
		return "failed";
	if (c->timed_out)
		return "timeout";
	if (c->sig > 0)
		return "killed";
	return "exited";
}

/* What the sandbox refused while the command ran. */
json_t *
command_state_blocked(const struct command *c)
{
	return json_pack("{s:O, s:O, s:O}", "files", c->blocked.files,
	    "hosts", c->hosts, "unreachable", c->blocked.unreachable);
}

/* The command's state and result as JSON. */
json_t *
command_state_to_json(const struct command *c)
{
	json_t *j = json_pack("{s:I, s:s, s:s, s:o, s:s?, s:b, s:b, s:s}",
	    "command", (json_int_t)c->id, "session", c->s->id, "state",
	    command_state_name(c), "blocked", command_state_blocked(c), "cwd",
	    c->cwd, "detach", c->detach, "outside", c->outside, "stdio",
	    c->stdio == COMMAND_STDIO_FDS ? "fds" :
	    c->stdio == COMMAND_STDIO_PIPES ? "pipes" : "none");
	json_t *argv = json_array();
	char **a;

	for (a = c->argv; a && *a; a++)
		json_array_append_new(argv, json_string(*a));
	json_object_set_new(j, "argv", argv);
	if (c->tty)
		json_object_set_new(j, "tty", json_pack("{s:i, s:i}", "rows",
		    (int)c->tty_size.rows, "cols", (int)c->tty_size.cols));
	if (c->state == COMMAND_DONE) {
		json_object_set_new(j, "exit_code", c->exit_code >= 0 ?
		    json_integer(c->exit_code) : json_null());
		json_object_set_new(j, "signal", c->sig > 0 ?
		    json_integer(c->sig) : json_null());
		json_object_set_new(j, "timed_out", json_boolean(c->timed_out));
		json_object_set_new(j, "duration_ms",
		    json_integer(c->end_ms - c->start_ms));
		if (c->fail_msg)
			json_object_set_new(j, "error", json_string(c->fail_msg));
	} else {
		json_object_set_new(j, "running_ms",
		    json_integer(sboxd_now_ms() - c->start_ms));
	}
	if (c->approval_id > 0) {
		json_object_set_new(j, "approval", json_integer(c->approval_id));
		json_object_set_new(j, "decision", json_string("allow_once"));
		json_object_set_new(j, "decided_by", c->decided_by ?
		    json_string(c->decided_by) : json_null());
	}
	return j;
}
