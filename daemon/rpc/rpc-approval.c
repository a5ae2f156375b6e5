/* rpc-approval.c: command.run_outside, approval.decide, approval.list and
 * audit.list. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/command/approval.h"
#include "daemon/command/approval-decide.h"
#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "daemon/shape.h"
#include "store/store.h"

/* A string parameter or NULL. */
static const char *
rpc_approval_str(json_t *params, const char *name)
{
	return json_string_value(json_object_get(params, name));
}

/* May the asker answer its own request at its terminal? Only a client on
 * the host (never one that reaches sboxd through a session channel), that
 * passed its stdio and whose stdout is a terminal (its stdin may be a
 * script it sends). */
static int
rpc_approval_at_terminal(struct rpc_call *call, enum command_stdio stdio,
    sbox_error *err)
{
	struct conn *c = rpc_call_conn(call);
	int out = rpc_call_peek_fd(call, 1);

	if (c == NULL || conn_sandbox_session(c) != NULL)
		return error_set_field(err, E_PERMISSION, "terminal", "a client "
		    "inside a sandbox can never answer a run-outside request");
	if (stdio != COMMAND_STDIO_FDS || out < 0 || !isatty(out))
		return error_set_field(err, E_INVALID_PARAMS, "terminal",
		    "terminal needs stdio \"fds\" with a terminal as stdout");
	return 0;
}

/* command.run_outside {session, argv, cwd?, reason, stdio?, env?, stdin?,
 * timeout?, umask?, terminal?}: ask a person, then run on the host. */
static int
rpc_approval_run_outside(struct rpc_call *call, json_t *params,
    json_t **result, sbox_error *err)
{
	struct approval_params p;
	struct conn *c = rpc_call_conn(call);
	const char *in = c != NULL ? conn_sandbox_session(c) : NULL;

	memset(&p, 0, sizeof p);
	if ((p.s = session_access_lookup(call, rpc_approval_str(params, "session"),
	    err)) == NULL)
		return -1;
	if (in != NULL && strcmp(in, p.s->id) != 0)
		return error_set_field(err, E_PERMISSION, "session",
		    "a sandboxed client may only ask for its own session");
	if (p.s->state != SESSION_READY)
		return error_set_field(err, E_SESSION_CLOSED, "session",
		    "session %s is not ready", p.s->id);
	if (command_parse_request(params, &p.stdio, &p.timeout_ms, err) == -1)
		return -1;
	p.argv = json_object_get(params, "argv");
	p.cwd = rpc_approval_str(params, "cwd");
	p.reason = rpc_approval_str(params, "reason");
	p.env = json_object_get(params, "env");
	p.want_stdin = json_is_true(json_object_get(params, "stdin"));
	p.umask = json_is_integer(json_object_get(params, "umask")) ?
	    (int)json_integer_value(json_object_get(params, "umask")) : -1;
	if (p.umask < -1 || p.umask > 0777)
		return error_set_field(err, E_INVALID_PARAMS, "umask",
		    "umask must be from 0 to 0777 (511)");
	if (json_is_true(json_object_get(params, "terminal"))) {
		if (rpc_approval_at_terminal(call, p.stdio, err) == -1)
			return -1;
		p.terminal = 1;
	}
	return approval_request(&p, call, result, err);
}

/* Who decides: the peer credentials of the connection, and the client's
 * own name for itself when it gave one (printable characters only). */
static char *
rpc_approval_who(struct conn *c, const char *name)
{
	char clean[65], *out;
	size_t i, n = 0;

	for (i = 0; name != NULL && name[i] != '\0' && n < sizeof clean - 1; i++)
		clean[n++] = isprint((unsigned char)name[i]) ? name[i] : '?';
	clean[n] = '\0';
	if (asprintf(&out, "uid %u pid %d%s%s%s", (unsigned)conn_uid(c),
	    (int)conn_pid(c), n ? " (" : "", clean, n ? ")" : "") == -1)
		return NULL;
	return out;
}

/* approval.decide {id, decision, client?, terminal?}: a person's answer.
 * Only a client on the host may decide: never one inside a sandbox,
 * whatever it asks. With terminal, the answer of the person at the
 * terminal that asked (only on the connection that asked it). */
static int
rpc_approval_decide(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct conn *c = rpc_call_conn(call);
	char *who;
	int rc;

	if (c == NULL)
		return error_set(err, E_CANCELLED, "the client has gone");
	if (conn_sandbox_session(c) != NULL)
		return error_set(err, E_PERMISSION, "a client inside a sandbox "
		    "can never decide a run-outside request");
	if (json_is_true(json_object_get(params, "terminal")))
		return approval_decide_terminal(json_integer_value(
		    json_object_get(params, "approval")), rpc_approval_str(params,
		    "decision"), c, result, err);
	if ((who = rpc_approval_who(c, rpc_approval_str(params,
	    "client"))) == NULL)
		return error_nomem(err);
	rc = approval_decide(json_integer_value(json_object_get(params, "approval")),
	    rpc_approval_str(params, "decision"), who, result, err);
	free(who);
	return rc;
}

/* Parse a time given as unix milliseconds (integer) or as ISO-8601 UTC
 * ("2026-01-02", "2026-01-02T03:04:05", with optional ".mmm" and "Z"). */
static int
rpc_approval_since(json_t *v, long long *out, sbox_error *err)
{
	const char *s, *rest;
	struct tm tm;
	long long ms = 0;
	int digits = 0;

	*out = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		if ((*out = json_integer_value(v)) < 0)
			goto bad;
		return 0;
	}
	if ((s = json_string_value(v)) == NULL)
		goto bad;
	memset(&tm, 0, sizeof tm);
	if ((rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL &&
	    (rest = strptime(s, "%Y-%m-%d %H:%M:%S", &tm)) == NULL) {
		memset(&tm, 0, sizeof tm);
		if ((rest = strptime(s, "%Y-%m-%d", &tm)) == NULL)
			goto bad;
	}
	if (*rest == '.') {
		for (rest++; isdigit((unsigned char)*rest); rest++) {
			if (digits++ < 3)
				ms = ms * 10 + (*rest - '0');
		}
		for (; digits > 0 && digits < 3; digits++)
			ms *= 10;
	}
	if (*rest == 'Z')
		rest++;
	if (*rest != '\0')
		goto bad;
	*out = (long long)timegm(&tm) * 1000 + ms;
	return 0;
bad:
	return error_set_field(err, E_INVALID_PARAMS, "since", "since must be "
	    "unix milliseconds or an ISO-8601 UTC time "
	    "(2026-01-02T03:04:05Z)");
}

/* The session a listing may show: a sandboxed client sees its own only. */
static int
rpc_approval_scope(struct rpc_call *call, json_t *params, const char **out,
    sbox_error *err)
{
	struct conn *c = rpc_call_conn(call);
	const char *in = c != NULL ? conn_sandbox_session(c) : NULL;

	*out = rpc_approval_str(params, "session");
	if (in == NULL)
		return 0;
	if (*out != NULL && strcmp(*out, in) != 0)
		return error_set_field(err, E_PERMISSION, "session",
		    "a sandboxed client may only see its own session's requests");
	*out = in;
	return 0;
}

/* approval.list {session?, pending?}: the requests waiting for a decision
 * (pending: true, the default), or every request. */
static int
rpc_approval_list(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	json_t *pending = json_object_get(params, "pending"), *l;
	const char *session;

	if (rpc_approval_scope(call, params, &session, err) == -1)
		return -1;
	l = store_approval_list(sboxd.store, session, 0, pending == NULL || json_is_true(pending) ? "pending" : NULL, err);
	if (l == NULL)
		return -1;
	shape_each(l, shape_approval);
	*result = json_pack("{s:o}", "approvals", l);
	return 0;
}

/* audit.list {session?, since?, decision?}: every run-outside request,
 * oldest first, with its decision, decider and result. */
static int
rpc_approval_audit(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	const char *session;
	long long since;
	json_t *l;

	if (rpc_approval_scope(call, params, &session, err) == -1)
		return -1;
	if (rpc_approval_since(json_object_get(params, "since"), &since,
	    err) == -1)
		return -1;
	l = store_approval_list(sboxd.store, session, since, rpc_approval_str(params, "decision"), err);
	if (l == NULL)
		return -1;
	shape_each(l, shape_approval);
	*result = json_pack("{s:o}", "approvals", l);
	return 0;
}

static const struct params_field rpc_approval_run_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "argv", PARAMS_STRING_ARRAY, 1, 4096 },
	{ "cwd", PARAMS_STRING, 0, 4096 },
	{ "reason", PARAMS_STRING, 1, 4096 },
	{ "env", PARAMS_OBJECT, 0, 0 },
	{ "timeout", PARAMS_INT, 0, 0 },
	{ "stdio", PARAMS_STRING, 0, 16 },
	{ "stdin", PARAMS_BOOL, 0, 0 },
	{ "umask", PARAMS_INT, 0, 0 },
	{ "terminal", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_approval_decide_params[] = {
	{ "approval", PARAMS_INT, 1, 0 },
	{ "decision", PARAMS_STRING, 1, 32 },
	{ "client", PARAMS_STRING, 0, 64 },
	{ "terminal", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_approval_list_params[] = {
	{ "session", PARAMS_STRING, 0, 64 },
	{ "pending", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_approval_audit_params[] = {
	{ "session", PARAMS_STRING, 0, 64 },
	{ "since", PARAMS_ANY, 0, 64 },
	{ "decision", PARAMS_STRING, 0, 32 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_approval_methods[] = {
	{ "command.run_outside", rpc_approval_run_params,
	  rpc_approval_run_outside, RPC_SANDBOX_OK,
	  "ask a person to run one command outside the sandbox, with a reason" },
	{ "approval.decide", rpc_approval_decide_params, rpc_approval_decide,
	  RPC_HOST_ONLY, "allow once or deny a run-outside request" },
	{ "approval.list", rpc_approval_list_params, rpc_approval_list, 0,
	  "run-outside requests waiting for a decision" },
	{ "audit.list", rpc_approval_audit_params, rpc_approval_audit, 0,
	  "every run-outside request, its decision, decider and result" },
	{ NULL, NULL, NULL, 0, NULL },
};
