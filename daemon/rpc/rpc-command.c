/* rpc-command.c: command.exec, list, wait, kill, write, read, resize. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/command/approval.h"
#include "daemon/command/command.h"
#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "daemon/shape.h"
#include "protocol/base64.h"
#include "protocol/ttysize.h"
#include "policy/policy.h"
#include "policy/profile.h"
#include "store/store.h"

/* Does argv match one of the profile's `exclude` patterns (then it runs
 * outside the sandbox, through approval)? */
static int
rpc_command_excluded(const struct session *s, json_t *argv)
{
	size_t i, n = json_array_size(argv);
	const char **av;
	int m;

	if (s->profile == NULL || s->profile->exclude == NULL || n == 0)
		return 0;
	if ((av = calloc(n + 1, sizeof *av)) == NULL)
		return 0;
	for (i = 0; i < n; i++)
		av[i] = json_string_value(json_array_get(argv, i));
	m = policy_exclude_match(s->profile, (char *const *)av);
	free(av);
	return m;
}

/* command.exec: run a command in a session. */
static int
rpc_command_exec(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct command_params p;

	memset(&p, 0, sizeof p);
	if ((p.s = session_access_lookup(call, json_string_value(json_object_get(params,
	    "session")), err)) == NULL)
		return -1;
	if (p.s->state != SESSION_READY)
		return error_set_field(err, E_SESSION_CLOSED, "session",
		    "session %s is not ready", p.s->id);
	if (command_parse_request(params, &p.stdio, &p.timeout_ms, err) == -1)
		return -1;
	p.argv = json_object_get(params, "argv");
	p.cwd = json_string_value(json_object_get(params, "cwd"));
	p.env = json_object_get(params, "env");
	p.detach = json_is_true(json_object_get(params, "detach"));
	p.want_stdin = json_is_true(json_object_get(params, "stdin"));
	p.channel = json_is_true(json_object_get(params, "channel"));
	/* a client that waits for the answer only (its own stdio passed):
	 * no wakeup for a notification it does not read */
	p.no_started = json_is_false(json_object_get(params, "started"));
	if (json_object_get(params, "tty") != NULL && !json_is_null(
	    json_object_get(params, "tty"))) {
		if (ttysize_parse(json_object_get(params, "tty"), "tty",
		    &p.tty_size, err) == -1)
			return -1;
		p.tty = 1;
	}
	if (rpc_command_excluded(p.s, p.argv)) {
		if (p.tty)
			return error_set_field(err, E_INVALID_PARAMS, "tty",
			    "this command matches an exclude pattern of the "
			    "profile: it runs outside the sandbox once a person "
			    "allows it, and a terminal is only made inside; "
			    "run it without tty");
		struct approval_params ap = {
			.s = p.s, .argv = p.argv, .cwd = p.cwd,
			.reason = "excluded by profile", .env = p.env,
			.stdio = p.stdio, .want_stdin = p.want_stdin,
			.detach = p.detach, .timeout_ms = p.timeout_ms,
			.umask = -1,
		};
		return approval_request(&ap, call, result, err);
	}
	return command_start(&p, call, result, err);
}

/* command.list {session}: the session's commands (from the store). */
static int
rpc_command_list(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	const char *id = json_string_value(json_object_get(params, "session"));
	struct conn *conn = rpc_call_conn(call);
	json_t *l;

	if (conn != NULL && conn_sandbox_session(conn) != NULL &&
	    session_access_lookup(call, id, err) == NULL)
		return -1;
	l = store_command_list(sboxd.store, id, err);
	if (l == NULL)
		return -1;
	/* the same key for the id as command.exec's result */
	shape_each(l, shape_command);
	*result = json_pack("{s:o}", "commands", l);
	return 0;
}

/* The live command a request names (in a session its client may use). */
static struct command *
rpc_command_get(struct rpc_call *call, json_t *params, sbox_error *err)
{
	struct conn *conn = rpc_call_conn(call);
	struct command *c;

	c = command_find(json_integer_value(json_object_get(params, "command")),
	    err);
	if (c != NULL && conn != NULL &&
	    !session_access_visible(c->s, conn_sandbox_session(conn))) {
		error_set_field(err, E_COMMAND_NOT_FOUND, "command",
		    "no command %lld in a live session", c->id);
		return NULL;
	}
	return c;
}

/* command.wait {command}: the result once it has ended. */
static int
rpc_command_wait(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct command *c = rpc_command_get(call, params, err);

	if (c == NULL)
		return -1;
	return command_wait(c, call, result, err);
}

/* command.kill {command, signal?}: signal its whole process group. */
static int
rpc_command_kill(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct command *c = rpc_command_get(call, params, err);
	json_t *sj = json_object_get(params, "signal");
	int sig = sj ? (int)json_integer_value(sj) : SIGTERM;

	(void)call;
	if (c == NULL)
		return -1;
	if (sig <= 0 || sig >= NSIG)
		return error_set_field(err, E_INVALID_PARAMS, "signal",
		    "signal must be between 1 and %d", NSIG - 1);
	if (command_kill(c, sig, err) == -1)
		return -1;
	*result = json_pack("{s:I, s:i}", "command", (json_int_t)c->id,
	    "signal", sig);
	return 0;
}

/* command.write {command, data?, eof?}: bytes (base64) to its stdin. */
static int
rpc_command_write(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct command *c = rpc_command_get(call, params, err);
	const char *data = json_string_value(json_object_get(params, "data"));
	unsigned char *bytes = NULL;
	size_t n = 0;
	int rc;

	(void)call;
	if (c == NULL)
		return -1;
	if (data != NULL && (bytes = base64_decode(data, strlen(data), &n)) == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "data",
		    "data must be base64");
	rc = command_write(c, bytes, n, json_is_true(json_object_get(params,
	    "eof")), err);
	free(bytes);
	if (rc == -1)
		return -1;
	*result = json_pack("{s:I, s:I}", "command", (json_int_t)c->id,
	    "written", (json_int_t)n);
	return 0;
}

/* command.resize {command, rows, cols}: the window size of its terminal
 * (the kernel sends SIGWINCH to its foreground process group). */
static int
rpc_command_resize(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct command *c = rpc_command_get(call, params, err);
	struct ttysize size;

	if (c == NULL)
		return -1;
	if ((size.rows = ttysize_dim(json_object_get(params, "rows"), "rows",
	    "rows", err)) == 0 || (size.cols = ttysize_dim(json_object_get(
	    params, "cols"), "cols", "cols", err)) == 0)
		return -1;
	if (command_tty_resize(c, &size, err) == -1)
		return -1;
	*result = json_pack("{s:I, s:i, s:i}", "command", (json_int_t)c->id,
	    "rows", (int)size.rows, "cols", (int)size.cols);
	return 0;
}

/* command.read {command}: its state and the output kept so far. */
static int
rpc_command_read(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct command *c = rpc_command_get(call, params, err);

	(void)call;
	if (c == NULL)
		return -1;
	*result = command_state_to_json(c);
	json_object_update_new(*result, command_output(c));
	return 0;
}

/* command.follow {command}: its state now, the output kept so far, then its
 * live output as command.output and its end as command.exited. */
static int
rpc_command_follow(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct command *c = rpc_command_get(call, params, err);

	if (c == NULL)
		return -1;
	return command_follow(c, call, result, err);
}

static const struct params_field rpc_command_exec_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "argv", PARAMS_STRING_ARRAY, 1, 4096 },
	{ "cwd", PARAMS_STRING, 0, 4096 },
	{ "env", PARAMS_OBJECT, 0, 0 },
	{ "detach", PARAMS_BOOL, 0, 0 },
	{ "timeout", PARAMS_INT, 0, 0 },
	{ "stdio", PARAMS_STRING, 0, 16 },
	{ "stdin", PARAMS_BOOL, 0, 0 },
	{ "channel", PARAMS_BOOL, 0, 0 },
	{ "started", PARAMS_BOOL, 0, 0 },
	{ "tty", PARAMS_OBJECT, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_command_session_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_command_id_params[] = {
	{ "command", PARAMS_INT, 1, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_command_kill_params[] = {
	{ "command", PARAMS_INT, 1, 0 },
	{ "signal", PARAMS_INT, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_command_resize_params[] = {
	{ "command", PARAMS_INT, 1, 0 },
	{ "rows", PARAMS_INT, 1, 0 },
	{ "cols", PARAMS_INT, 1, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_command_write_params[] = {
	{ "command", PARAMS_INT, 1, 0 },
	{ "data", PARAMS_STRING, 0, 8 * 1024 * 1024 },
	{ "eof", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_command_methods[] = {
	{ "command.exec", rpc_command_exec_params, rpc_command_exec,
	  RPC_SANDBOX_OK | RPC_STORE_WAIT,
	  "run a command in a session's sandbox" },
	{ "command.list", rpc_command_session_params, rpc_command_list, RPC_SANDBOX_OK,
	  "the commands of a session" },
	{ "command.wait", rpc_command_id_params, rpc_command_wait, RPC_SANDBOX_OK,
	  "wait for a command to end; its result and kept output" },
	{ "command.kill", rpc_command_kill_params, rpc_command_kill, RPC_SANDBOX_OK,
	  "signal a command's process group" },
	{ "command.write", rpc_command_write_params, rpc_command_write, RPC_SANDBOX_OK,
	  "write (base64) bytes to a command's stdin" },
	{ "command.read", rpc_command_id_params, rpc_command_read, RPC_SANDBOX_OK,
	  "a command's state and the output kept so far" },
	{ "command.resize", rpc_command_resize_params, rpc_command_resize,
	  RPC_SANDBOX_OK, "set the window size of a command's terminal" },
	{ "command.follow", rpc_command_id_params, rpc_command_follow,
	  RPC_SANDBOX_OK, "stream a command's output (kept, then live) to this "
	  "client until it ends" },
	{ NULL, NULL, NULL, 0, NULL },
};
