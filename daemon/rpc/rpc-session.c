/* rpc-session.c: session.create, list, info, close, allow_host, log. */
#include <stdio.h>
#include <string.h>

#include "daemon/config-reload.h"
#include "daemon/container/container.h"
#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "daemon/shape.h"
#include "policy/config.h"
#include "policy/hostpat.h"
#include "policy/profile.h"
#include "store/store.h"

/* The session a client inside a sandbox is in, or NULL for a host client. */
static const char *
rpc_session_viewer(struct rpc_call *call)
{
	struct conn *c = rpc_call_conn(call);

	return c ? conn_sandbox_session(c) : NULL;
}

/* A string parameter or NULL. */
static const char *
rpc_session_str(json_t *params, const char *name)
{
	return json_string_value(json_object_get(params, name));
}

/* session.create: resolve the profile, start the container, answer when ready. */
static int
rpc_session_create(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct conn *c = rpc_call_conn(call);
	struct session_params p = {
		.project = rpc_session_str(params, "project"),
		.sandbox = rpc_session_str(params, "sandbox"),
		.title = rpc_session_str(params, "title"),
		.provider = rpc_session_str(params, "provider"),
		.model = rpc_session_str(params, "model"),
		.space = rpc_session_str(params, "space"),
		.env = json_object_get(params, "env"),
		.parent = c ? conn_sandbox_session(c) : NULL,
		.uid = c ? conn_uid(c) : 0,
		.close_with_client = json_is_true(json_object_get(params,
		    "close_with_client")),
		.one_shot = json_is_true(json_object_get(params, "one_shot")),
	};
	const char *within = rpc_session_str(params, "within");

	/* a session no wider than another (one message's sandbox): made as
	 * its child, narrowed on its profile and plan, closed with it */
	if (within != NULL) {
		struct session *w = session_access_lookup(call, within, err);

		if (w == NULL) {
			snprintf(err->field, sizeof err->field, "within");
			return -1;
		}
		p.parent = w->id;
	}
	return session_create(&p, call, result, err);
}

/* A row the store holds as live (starting, ready) with no live session
 * behind it is one a recovery has not settled yet (a previous run's, or
 * its end is still waiting to be written): never shown as ready. */
static void
rpc_session_mark_unsettled(json_t *list)
{
	const char *state;
	json_t *rec;
	size_t i;

	json_array_foreach(list, i, rec) {
		state = json_string_value(json_object_get(rec, "state"));
		if (state == NULL || (strcmp(state, "ready") != 0 &&
		    strcmp(state, "starting") != 0))
			continue;
		if (session_find(json_string_value(json_object_get(rec,
		    "session")), NULL) != NULL)
			continue;
		json_object_set_new(rec, "state", json_string("unsettled"));
	}
}

/* Each live session's idle time (idle_s: seconds with no command running
 * and no client request naming it; 0 while a command runs). */
static void
rpc_session_mark_idle(json_t *list)
{
	long long now = store_clock_now_ms();
	struct session *s;
	json_t *rec;
	size_t i;

	json_array_foreach(list, i, rec) {
		s = session_find(json_string_value(json_object_get(rec,
		    "session")), NULL);
		if (s == NULL || s->state != SESSION_READY)
			continue;
		json_object_set_new(rec, "idle_s", json_integer(
		    (session_hooks.commands_running != NULL &&
		    session_hooks.commands_running(s) > 0) || now < s->active_ms ?
		    0 : (now - s->active_ms) / 1000));
	}
}

/* session.list {all?}: live sessions, or every session the store knows. */
static int
rpc_session_list(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	const char *viewer = rpc_session_viewer(call);
	json_t *l, *out, *rec;
	struct session *s;
	size_t i;

	l = store_session_list(sboxd.store, json_is_true(json_object_get(params,
	    "all")), err);
	if (l == NULL)
		return -1;
	shape_each(l, shape_session);
	rpc_session_mark_unsettled(l);
	rpc_session_mark_idle(l);
	if (viewer == NULL) {
		*result = json_pack("{s:o}", "sessions", l);
		return 0;
	}
	/* Inside a sandbox: only its own session and those it created. */
	out = json_array();
	json_array_foreach(l, i, rec) {
		s = session_find(json_string_value(json_object_get(rec, "session")),
		    NULL);
		if (s != NULL && session_access_visible(s, viewer))
			json_array_append(out, rec);
	}
	json_decref(l);
	*result = json_pack("{s:o}", "sessions", out);
	return 0;
}

/* session.info {session}: the live state and the stored record. */
static int
rpc_session_info(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	const char *id = rpc_session_str(params, "session");
	struct session *s;
	json_t *rec;

	if (rpc_session_viewer(call) != NULL && session_access_lookup(call, id,
	    err) == NULL)
		return -1;
	/* brief: a live session from memory, without the store's record (a
	 * read and a parse of its row; the CLI asks before each command) */
	if (json_is_true(json_object_get(params, "brief")) &&
	    (s = session_find(id, NULL)) != NULL) {
		if ((rec = session_to_json(s)) == NULL)
			return error_nomem(err);
		json_object_set_new(rec, "resolved_profile",
		    profile_to_json_public(s->profile));
		json_object_set_new(rec, "live", json_true());
		*result = rec;
		return 0;
	}
	if ((rec = store_session_get(sboxd.store, id, err)) == NULL)
		return -1;
	shape_session(rec);
	if (session_find(id, NULL) == NULL) {
		json_t *one = json_array();
		json_array_append(one, rec);
		rpc_session_mark_unsettled(one);
		json_decref(one);
	}
	if ((s = session_find(id, NULL)) != NULL) {
		json_object_update_new(rec, session_to_json(s));
		json_object_set_new(rec, "live", json_true());
		if (s->plan->sandboxed)
			json_object_set_new(rec, "limits", container_limits(s->ct));
	} else
		json_object_set_new(rec, "live", json_false());
	*result = rec;
	return 0;
}

/* session.close {session}. */
static int
rpc_session_close(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct session *s = session_access_lookup(call, rpc_session_str(params,
	    "session"), err);
	const char *in = rpc_call_conn(call) ?
	    conn_sandbox_session(rpc_call_conn(call)) : NULL;

	if (s == NULL)
		return -1;
	if (in != NULL && (s->parent == NULL || strcmp(s->parent, in) != 0))
		return error_set(err, E_PERMISSION,
		    "a sandboxed client may only close the sessions it created");
	session_close(s, "closed by a client");
	*result = json_pack("{s:s, s:b}", "session",
	    rpc_session_str(params, "session"), "closed", 1);
	return 0;
}

/* session.allow_host {session, host, save?}: let a host through. */
static int
rpc_session_allow_host(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct session *s = session_access_lookup(call, rpc_session_str(params,
	    "session"), err);
	const char *host = rpc_session_str(params, "host");

	(void)call;
	if (s == NULL)
		return -1;
	if (hostpat_validate(host, err) == -1) {
		char why[sizeof err->message];

		/* a bad parameter, not a bad config file */
		snprintf(why, sizeof why, "%s", err->message);
		return error_set_field(err, E_INVALID_PARAMS, "host", "%s", why);
	}
	if (session_access_allow_host(s, host, err) == -1)
		return -1;
	/* saved means in force: new sessions get it at once */
	if (json_is_true(json_object_get(params, "save")) &&
	    (config_save_host(sboxd.config_path, s->profile->name, host,
	    err) == -1 || config_reload("a host saved", err) == -1))
		return error_context(err, "allowed for this session, but not saved");
	*result = json_pack("{s:s, s:s, s:b}", "session", s->id, "host", host,
	    "saved", json_is_true(json_object_get(params, "save")));
	return 0;
}

/* session.log {session}: the session's timeline. */
static int
rpc_session_log(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	json_t *log;

	if (rpc_session_viewer(call) != NULL && session_access_lookup(call,
	    rpc_session_str(params, "session"), err) == NULL)
		return -1;
	log = store_session_log(sboxd.store, rpc_session_str(params, "session"),
	    err);
	if (log == NULL)
		return -1;
	shape_each(log, shape_command);
	*result = json_pack("{s:s, s:o}", "session",
	    rpc_session_str(params, "session"), "commands", log);
	return 0;
}

static const struct params_field rpc_session_create_params[] = {
	{ "project", PARAMS_STRING, 1, 4096 },
	{ "sandbox", PARAMS_STRING, 0, 64 },
	{ "title", PARAMS_STRING, 0, 1024 },
	{ "provider", PARAMS_STRING, 0, 256 },
	{ "model", PARAMS_STRING, 0, 256 },
	{ "space", PARAMS_STRING, 0, 256 },
	{ "env", PARAMS_OBJECT, 0, 0 },
	{ "within", PARAMS_STRING, 0, 64 },
	{ "close_with_client", PARAMS_BOOL, 0, 0 },
	{ "one_shot", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_session_id_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_session_info_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "brief", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_session_list_params[] = {
	{ "all", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_session_allow_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "host", PARAMS_STRING, 1, 300 },
	{ "save", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_session_methods[] = {
	{ "session.create", rpc_session_create_params, rpc_session_create, RPC_SANDBOX_OK,
	  "resolve a profile and start the session's sandbox" },
	{ "session.list", rpc_session_list_params, rpc_session_list, RPC_SANDBOX_OK,
	  "live sessions (all: every recorded session)" },
	{ "session.info", rpc_session_info_params, rpc_session_info, RPC_SANDBOX_OK,
	  "one session: its profile, provenance and state" },
	{ "session.close", rpc_session_id_params, rpc_session_close, RPC_SANDBOX_OK,
	  "end every process of a session and remove its sandbox" },
	{ "session.allow_host", rpc_session_allow_params, rpc_session_allow_host,
	  RPC_HOST_ONLY, "let one more host through a session's proxy" },
	{ "session.log", rpc_session_id_params, rpc_session_log, RPC_SANDBOX_OK,
	  "the session's timeline of commands" },
	{ NULL, NULL, NULL, 0, NULL },
};
