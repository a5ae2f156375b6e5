/* rpc-provider.c: session.status (a session's state and sandbox, whether it
 * runs here, the hosts it refused last, its running commands) and
 * session.choices (what each level of the config would choose for a
 * session, and which wins); the providers of the config as sandbox.show
 * lists them (values never shown). */
#include <stdlib.h>
#include <string.h>

#include "daemon/command/command.h"
#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "policy/config.h"
#include "policy/path.h"
#include "policy/policy.h"

/* A JSON array of the strings of v. */
static json_t *
rpc_provider_strv(char *const *v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && v != NULL && v[i] != NULL; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* A provider's kept home files as [{file, keys}] ("FILE\tKEY" entries). */
static json_t *
rpc_provider_keep(char *const *keep)
{
	json_t *out = json_array(), *e = NULL;
	const char *tab;
	size_t i;

	for (i = 0; out != NULL && keep != NULL && keep[i] != NULL; i++) {
		if ((tab = strchr(keep[i], '\t')) == NULL)
			continue;
		if (tab[1] == '\0') {
			e = json_pack("{s:s%, s:[]}", "file", keep[i],
			    (size_t)(tab - keep[i]), "keys");
			if (e != NULL)
				json_array_append_new(out, e);
		} else if (e != NULL)
			json_array_append_new(json_object_get(e, "keys"),
			    json_string(tab + 1));
	}
	return out;
}

/* The providers of cfg: hosts, variables (names, "(set)"), home, account
 * folders and whether they run in a sandbox. */
json_t *
rpc_provider_list(const struct config *cfg)
{
	const struct config_binding *b;
	json_t *out = json_array(), *env, *o;
	char name[256], *home;
	const char *eq;
	size_t i, j, n;

	for (i = 0; out != NULL && cfg != NULL && i < cfg->n_providers; i++) {
		b = &cfg->providers[i];
		env = json_object();
		for (j = 0; env && b->env_values && b->env_values[j]; j++) {
			eq = strchr(b->env_values[j], '=');
			n = eq ? (size_t)(eq - b->env_values[j]) : 0;
			if (n == 0 || n >= sizeof name)
				continue;
			memcpy(name, b->env_values[j], n);
			name[n] = '\0';
			json_object_set_new(env, name, json_string("(set)"));
		}
		home = NULL;
		if (b->home_persistent && asprintf(&home, "%s/homes/%s",
		    sboxd.state_dir, b->key) == -1)
			home = NULL;
		o = json_pack("{s:s, s:s?, s:o, s:o, s:s, s:s?, s:o, s:b}",
		    "name", b->key, "sandbox", b->sandbox,
		    "hosts", rpc_provider_strv(b->hosts), "env", env ? env :
		    json_object(), "home", b->home_persistent ? "persistent" :
		    "empty", "home_folder", home, "account_folders",
		    rpc_provider_strv(b->account_folders),
		    "sandbox_capable", !b->no_sandbox);
		if (o != NULL) {
			json_object_set_new(o, "builtin", json_boolean(b->builtin));
			json_object_set_new(o, "key_env",
			    rpc_provider_strv(b->key_env));
			json_object_set_new(o, "account_read_only",
			    rpc_provider_strv(b->runs_later));
			json_object_set_new(o, "account_writable",
			    rpc_provider_strv(b->writable));
			json_object_set_new(o, "account_signin",
			    rpc_provider_strv(b->signin));
			json_object_set_new(o, "settings",
			    rpc_provider_strv(b->settings));
			json_object_set_new(o, "account_keep",
			    rpc_provider_keep(b->keep));
			json_object_set_new(o, "account_private",
			    rpc_provider_strv(b->private_dirs));
			json_object_set_new(o, "telemetry",
			    rpc_provider_strv(b->telemetry));
		}
		free(home);
		if (o != NULL)
			json_array_append_new(out, o);
	}
	return out;
}

/* session.status {session, limit?}: sandbox.status plus the state and the
 * commands running now. */
static int
rpc_provider_status(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	const char *id = json_string_value(json_object_get(params, "session"));
	const struct rpc_method *m;
	struct command *c;
	struct session *s;
	json_t *running, *sb;
	char **a;

	for (m = rpc_sandbox_methods; m->name != NULL; m++)
		if (strcmp(m->name, "sandbox.status") == 0)
			break;
	if (m->name == NULL)
		return error_set(err, E_INTERNAL, "no sandbox.status");
	if (m->fn(call, params, result, err) == -1)
		return -1;
	if ((running = json_array()) == NULL)
		return error_nomem(err);
	if ((s = session_find(id, NULL)) != NULL) {
		TAILQ_FOREACH(c, &s->commands, entry) {
			json_t *argv = json_array();

			if (c->state != COMMAND_RUNNING)
				continue;
			for (a = c->argv; argv && a && *a; a++)
				json_array_append_new(argv, json_string(*a));
			json_array_append_new(running, json_pack("{s:I, s:o, s:s?, "
			    "s:b, s:b, s:I}", "command", (json_int_t)c->id,
			    "argv", argv ? argv : json_array(), "cwd", c->cwd,
			    "detach", c->detach, "outside", c->outside,
			    "running_ms", (json_int_t)(c->start_ms > 0 ?
			    sboxd_now_ms() - c->start_ms : 0)));
		}
	}
	/* what the client sent at create that the profile did not pass */
	json_object_set_new(*result, "env_dropped", s != NULL &&
	    s->env_dropped != NULL ? json_deep_copy(s->env_dropped) :
	    json_array());
	sb = json_object_get(*result, "sandbox");
	json_object_set_new(*result, "runs_here", json_boolean(json_is_true(
	    json_object_get(sb, "runs_here"))));
	json_object_set_new(*result, "running", running);
	return 0;
}

/* The configured project folder that holds project (longest), or NULL. */
static const struct config_binding *
rpc_provider_project(const struct config *cfg, const char *project)
{
	const struct config_binding *best = NULL;
	size_t i;

	for (i = 0; project != NULL && cfg != NULL && i < cfg->n_projects; i++) {
		if (cfg->projects[i].sandbox == NULL ||
		    !path_is_under(project, cfg->projects[i].key))
			continue;
		if (best == NULL || strlen(cfg->projects[i].key) > strlen(best->key))
			best = &cfg->projects[i];
	}
	return best;
}

/* One level of session.choices. */
static json_t *
rpc_provider_level(const char *level, const char *what, const char *profile,
    int *won)
{
	int wins = profile != NULL && !*won;

	if (wins)
		*won = 1;
	return json_pack("{s:s, s:s?, s:s?, s:b}", "level", level, "name", what,
	    "profile", profile, "wins", wins);
}

/* session.choices {project?, provider?, model?, space?, sandbox?}: every
 * level that may choose a session's profile, what it chooses, which wins. */
static int
rpc_provider_choices(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	const struct config *cfg = sboxd.config;
	struct resolve_request req = {
		.sandbox = json_string_value(json_object_get(params, "sandbox")),
		.model = json_string_value(json_object_get(params, "model")),
		.provider = json_string_value(json_object_get(params, "provider")),
		.project = json_string_value(json_object_get(params, "project")),
		.space = json_string_value(json_object_get(params, "space")),
	};
	const struct config_binding *b;
	json_t *levels, *o;
	struct profile *p;
	sbox_error perr;
	char *project = NULL;
	int won = 0;

	(void)call;
	if (req.project != NULL && (project = path_expand(req.project, cfg ?
	    cfg->home : NULL, "project", NULL)) == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "project",
		    "project \"%s\" must be an absolute path", req.project);
	levels = json_array();
	json_array_append_new(levels, rpc_provider_level("session", NULL,
	    req.sandbox, &won));
	b = cfg ? config_find_binding(cfg->models, cfg->n_models, req.model) : NULL;
	json_array_append_new(levels, rpc_provider_level("model", req.model,
	    b ? b->sandbox : NULL, &won));
	b = cfg ? config_find_binding(cfg->providers, cfg->n_providers,
	    req.provider) : NULL;
	json_array_append_new(levels, rpc_provider_level("provider", req.provider,
	    b ? b->sandbox : NULL, &won));
	b = rpc_provider_project(cfg, project);
	json_array_append_new(levels, rpc_provider_level("project", b ? b->key :
	    project, b ? b->sandbox : NULL, &won));
	b = cfg ? config_find_binding(cfg->spaces, cfg->n_spaces, req.space) : NULL;
	json_array_append_new(levels, rpc_provider_level("space", req.space,
	    b ? b->sandbox : NULL, &won));
	json_array_append_new(levels, rpc_provider_level("all_sessions", NULL,
	    cfg ? cfg->all_sessions : NULL, &won));
	json_array_append_new(levels, rpc_provider_level("default", NULL, "none",
	    &won));
	free(project);
	error_clear(&perr);
	if ((p = policy_resolve(cfg, &req, &perr)) == NULL) {
		if (strcmp(perr.name, E_PROFILE_NOT_FOUND) == 0 ||
		    strcmp(perr.name, E_INVALID_PARAMS) != 0 ||
		    strcmp(perr.field, "provider") != 0) {
			json_decref(levels);
			*err = perr;
			return -1;
		}
		/* a level chose a profile the provider cannot run in */
		*result = json_pack("{s:o, s:n, s:s}", "levels", levels,
		    "profile", "refused", perr.message);
		return *result ? 0 : error_nomem(err);
	}
	o = json_pack("{s:o, s:s, s:s, s:b, s:s, s:s, s:o}", "levels", levels,
	    "profile", p->name, "provenance", p->provenance ? p->provenance : "",
	    "sandboxed", p->sandboxed, "network",
	    profile_network_name(p->network), "run_outside",
	    profile_run_outside_name(p->run_outside), "resolved",
	    profile_to_json_public(p));
	profile_free(p);
	if (o == NULL)
		return error_nomem(err);
	*result = o;
	return 0;
}

static const struct params_field rpc_provider_status_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "limit", PARAMS_INT, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_provider_choices_params[] = {
	{ "project", PARAMS_STRING, 0, 4096 },
	{ "provider", PARAMS_STRING, 0, 256 },
	{ "model", PARAMS_STRING, 0, 256 },
	{ "space", PARAMS_STRING, 0, 256 },
	{ "sandbox", PARAMS_STRING, 0, 64 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_provider_methods[] = {
	{ "session.status", rpc_provider_status_params, rpc_provider_status,
	  RPC_SANDBOX_OK, "a session's state and sandbox, whether it runs here, "
	  "the hosts it refused last, its running commands" },
	{ "session.choices", rpc_provider_choices_params, rpc_provider_choices,
	  RPC_HOST_ONLY, "what each level would choose for a session, and "
	  "which wins" },
	{ NULL, NULL, NULL, 0, NULL },
};
