/* rpc-sandbox.c: sandbox.list, show, resolve, status, check: what the
 * profiles allow, which one a session would get and why, how a live
 * session's sandbox is doing, and a step-by-step check of a profile. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "daemon/container/diskguard.h"
#include "policy/caches.h"
#include "daemon/container/cachedir.h"
#include "daemon/container/container.h"
#include "daemon/container/container-standin.h"
#include "daemon/proxy/proxy-proc.h"
#include "daemon/rpc/rpc.h"
#include "daemon/check/sandbox-check.h"
#include "daemon/sboxd.h"
#include "daemon/session/session-agentcfg.h"
#include "daemon/session/session-provider.h"
#include "daemon/session/session.h"
#include "daemon/session/toolconf.h"
#include "policy/config.h"
#include "policy/policy.h"
#include "policy/profile.h"
#include "policy/guard.h"
#include "policy/registries.h"
#include "policy/strv.h"
#include "store/store.h"

#define RPC_SANDBOX_REFUSED_DEFAULT 20

/* A string parameter or NULL. */
static const char *
rpc_sandbox_str(json_t *params, const char *name)
{
	return json_string_value(json_object_get(params, name));
}

/* The live session a sandboxed client runs inside, or NULL for a host
 * client (*inside tells which). */
static struct session *
rpc_sandbox_own(struct rpc_call *call, int *inside)
{
	struct conn *c = rpc_call_conn(call);
	const char *id = c ? conn_sandbox_session(c) : NULL;

	*inside = id != NULL;
	return id ? session_find(id, NULL) : NULL;
}

/* The keys of one binding table whose `sandbox` is name. */
static json_t *
rpc_sandbox_bound(const struct config_binding *b, size_t n, const char *name)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		if (b[i].sandbox != NULL && strcmp(b[i].sandbox, name) == 0)
			json_array_append_new(a, json_string(b[i].key));
	}
	return a;
}

/* Which levels of the config choose profile name. */
static json_t *
rpc_sandbox_chosen_by(const struct config *cfg, const char *name)
{
	int all = cfg && cfg->all_sessions && strcmp(cfg->all_sessions,
	    name) == 0;
	int dflt = strcmp(name, "none") == 0 && (cfg == NULL ||
	    cfg->all_sessions == NULL);

	if (cfg == NULL)
		return json_pack("{s:b, s:b, s:[], s:[], s:[], s:[]}",
		    "all_sessions", 0, "default", dflt, "spaces", "projects",
		    "providers", "models");
	return json_pack("{s:b, s:b, s:o, s:o, s:o, s:o}",
	    "all_sessions", all, "default", dflt,
	    "spaces", rpc_sandbox_bound(cfg->spaces, cfg->n_spaces, name),
	    "projects", rpc_sandbox_bound(cfg->projects, cfg->n_projects, name),
	    "providers", rpc_sandbox_bound(cfg->providers, cfg->n_providers,
	    name),
	    "models", rpc_sandbox_bound(cfg->models, cfg->n_models, name));
}

/* One line on a profile's folders ("project read-write, 1 more
 * read-write, 2 read-only, 1 denied"). */
static void
rpc_sandbox_folders_summary(const struct profile *p, char *buf, size_t len)
{
	size_t rw = strv_len(p->folders_rw), ro = strv_len(p->folders_ro);
	size_t deny = strv_len(p->folders_deny), n;

	if (!p->sandboxed) {
		snprintf(buf, len, "everything (not sandboxed)");
		return;
	}
	n = (size_t)snprintf(buf, len, "%s", p->project_access ?
	    "project read-write" : "scratch folder only");
	if (rw > 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %zu more read-write", rw);
	if (ro > 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %zu read-only", ro);
	if (deny > 0 && n < len)
		snprintf(buf + n, len - n, ", %zu denied", deny);
}

/* The list entry of one profile. */
static json_t *
rpc_sandbox_entry(const struct profile *p, const struct config *cfg)
{
	char summary[256];

	rpc_sandbox_folders_summary(p, summary, sizeof summary);
	return json_pack("{s:s, s:b, s:s?, s:b, s:s, s:s, s:b, s:i, s:s, s:o}",
	    "name", p->name, "builtin", profile_is_builtin(p->name),
	    "extends", p->extends, "sandboxed", p->sandboxed,
	    "network", profile_network_name(p->network),
	    "run_outside", profile_run_outside_name(p->run_outside),
	    "project_access", p->project_access,
	    "hosts", (int)strv_len(p->hosts),
	    "folders", summary,
	    "chosen_by", rpc_sandbox_chosen_by(cfg, p->name));
}

/* sandbox.list: every profile (inside a sandbox: its own only). */
static int
rpc_sandbox_list(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct session *own;
	struct profile *p;
	json_t *list;
	char **names;
	size_t i;
	int inside;

	(void)params;
	own = rpc_sandbox_own(call, &inside);
	if ((list = json_array()) == NULL)
		return error_nomem(err);
	if (inside) {
		if (own != NULL)
			json_array_append_new(list, rpc_sandbox_entry(own->profile,
			    NULL));
		*result = json_pack("{s:o}", "profiles", list);
		return 0;
	}
	if ((names = profile_list(sboxd.config)) == NULL) {
		json_decref(list);
		return error_nomem(err);
	}
	for (i = 0; names[i] != NULL; i++) {
		if ((p = profile_get(sboxd.config, names[i], err)) == NULL) {
			strv_free(names);
			json_decref(list);
			return -1;
		}
		json_array_append_new(list, rpc_sandbox_entry(p, sboxd.config));
		profile_free(p);
	}
	strv_free(names);
	*result = json_pack("{s:s?, s:o}", "config", sboxd.config_path,
	    "profiles", list);
	return 0;
}

/* The registry hosts a "registries" profile reaches, from the daemon's
 * view of the user's tool configuration and the defaults file. */
static void
rpc_sandbox_registries(json_t *o)
{
	const char *file = registries_defaults_file(toolconf_defaults_file());
	char **hosts = NULL;
	json_t *a = json_array();
	sbox_error err;
	size_t i;

	error_clear(&err);
	if (toolconf_registries(getenv("HOME"), NULL, &hosts, &err) == -1)
		json_object_set_new(o, "registries_error",
		    json_string(err.message));
	for (i = 0; hosts != NULL && hosts[i] != NULL; i++)
		json_array_append_new(a, json_string(hosts[i]));
	strv_free(hosts);
	json_object_set_new(o, "registry_hosts", a);
	json_object_set_new(o, "registry_sources",
	    toolconf_sources_json(getenv("HOME"), NULL));
	json_object_set_new(o, "registries_file", file ? json_string(file) :
	    json_null());
}

/* The protected names every sandboxed session gets: the data file's and
 * the config's (sandbox.protected). */
static void
rpc_sandbox_protected(json_t *o)
{
	const char *file = guard_table_file(toolconf_protected_file());
	struct guard_table t = { 0 };
	sbox_error err;

	error_clear(&err);
	if (file == NULL)
		json_object_set_new(o, "protected_error", json_string("no "
		    "protected-names file: sessions cannot start"));
	else if (guard_table_load(&t, file, &err) < 0 ||
	    guard_table_copy(&t, sboxd.config ? sboxd.config->protected : NULL,
	    &err) < 0)
		json_object_set_new(o, "protected_error",
		    json_string(err.message));
	json_object_set_new(o, "protected", guard_table_to_json(&t));
	json_object_set_new(o, "protected_file", file ? json_string(file) :
	    json_null());
	guard_table_free(&t);
}

/* Add "agent_named": what the person's agents' settings name (kept
 * read-only in every writable folder of a session), each with the setting
 * that named it; project: the project's settings too, or NULL. */
static int
rpc_sandbox_agent_named(json_t *o, const char *project, sbox_error *err)
{
	struct session_agentcfg a;

	if (session_agentcfg_scan(sboxd.config, sboxd.config != NULL &&
	    sboxd.config->home != NULL ? sboxd.config->home : getenv("HOME"),
	    project, &a, err) < 0)
		return error_context(err, "the agents' settings");
	json_object_set_new(o, "agent_named", session_agentcfg_json(&a));
	session_agentcfg_free(&a);
	return 0;
}

/* sandbox.show {profile, project?}: what a profile allows (provider env
 * values are never shown). Inside a sandbox: only the session's own
 * profile. */
static int
rpc_sandbox_show(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	const char *name = rpc_sandbox_str(params, "profile");
	struct session *own;
	struct profile *p;
	json_t *o;
	char summary[256];
	int inside;

	own = rpc_sandbox_own(call, &inside);
	if (inside) {
		if (own == NULL || strcmp(own->profile->name, name) != 0)
			return error_set_field(err, E_PERMISSION, "profile",
			    "from inside a sandbox only its own profile can be "
			    "shown");
		p = profile_copy(own->profile, err);
	} else
		p = profile_get(sboxd.config, name, err);
	if (p == NULL) {
		if (strcmp(err->name, E_PROFILE_NOT_FOUND) == 0)
			snprintf(err->field, sizeof err->field, "profile");
		return -1;
	}
	if ((o = profile_to_json_public(p)) == NULL) {
		profile_free(p);
		return error_nomem(err);
	}
	rpc_sandbox_folders_summary(p, summary, sizeof summary);
	json_object_set_new(o, "builtin", json_boolean(profile_is_builtin(p->name)));
	json_object_set_new(o, "folders_summary", json_string(summary));
	json_object_set_new(o, "notes", config_check_profile_notes(p));
	json_object_set_new(o, "chosen_by", rpc_sandbox_chosen_by(inside ?
	    NULL : sboxd.config, p->name));
	if (p->network == PROFILE_NET_REGISTRIES && p->sandboxed && !inside)
		rpc_sandbox_registries(o);
	json_object_set_new(o, "caches", cachedir_describe(sboxd.state_dir, p,
	    inside));
	if (!inside)	/* their hosts are reachable in every network mode */
		json_object_set_new(o, "providers", rpc_provider_list(sboxd.config));
	if (p->sandboxed)
		rpc_sandbox_protected(o);
	if (p->sandboxed && !inside && rpc_sandbox_agent_named(o,
	    rpc_sandbox_str(params, "project"), err) < 0) {
		json_decref(o);
		profile_free(p);
		return -1;
	}
	profile_free(p);
	*result = o;
	return 0;
}

/* The level that chose a profile, from its provenance ("strict, from
 * project /x" -> "project"; "none, by default (...)" -> "default"). */
static const char *
rpc_sandbox_chosen_level(const char *prov)
{
	static const char *levels[] = { "session", "model", "provider",
	    "project", "space", "all_sessions", NULL };
	const char *from = prov ? strstr(prov, ", from ") : NULL;
	size_t i, n;

	if (from == NULL)
		return "default";
	from += 7;
	for (i = 0; levels[i] != NULL; i++) {
		n = strlen(levels[i]);
		if (strncmp(from, levels[i], n) == 0 && (from[n] == '\0' ||
		    from[n] == ' '))
			return levels[i];
	}
	return "default";
}

/* sandbox.resolve {project?, provider?, model?, space?, sandbox?}: the
 * profile a session created with these would get, and why. */
static int
rpc_sandbox_resolve(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct resolve_request req = {
		.sandbox = rpc_sandbox_str(params, "sandbox"),
		.model = rpc_sandbox_str(params, "model"),
		.provider = rpc_sandbox_str(params, "provider"),
		.project = rpc_sandbox_str(params, "project"),
		.space = rpc_sandbox_str(params, "space"),
	};
	struct profile *p;
	json_t *pub;

	(void)call;
	if ((p = policy_resolve(sboxd.config, &req, err)) == NULL)
		return -1;
	if ((pub = profile_to_json_public(p)) == NULL) {
		profile_free(p);
		return error_nomem(err);
	}
	*result = json_pack("{s:s, s:s, s:s, s:b, s:s, s:s, s:o, s:o}",
	    "profile", p->name, "provenance", p->provenance ? p->provenance : "",
	    "chosen_by", rpc_sandbox_chosen_level(p->provenance),
	    "sandboxed", p->sandboxed, "network",
	    profile_network_name(p->network), "run_outside",
	    profile_run_outside_name(p->run_outside), "resolved", pub,
	    "warnings", session_provider_warnings(req.provider, req.model,
	    req.space));
	profile_free(p);
	return *result ? 0 : error_nomem(err);
}

/* Is a process alive (not a zombie we have not reaped yet counts too)? */
static int
rpc_sandbox_pid_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* How session s's refused reads are seen: by its hidden areas' stand-ins
 * (the kernel decides every open; counts of what they served), by a
 * seccomp notification per read-only open (and why not stand-ins), or not
 * at all (sandbox.report_reads false, or not sandboxed). */
static json_t *
rpc_sandbox_read_reports(const struct session *s, int sandboxed)
{
	const char *why, *by = container_standin_mechanism(&why);
	json_t *j = s && s->ct ? container_standin_describe(s->ct) : NULL;

	if (j != NULL)
		return j;
	if (!sandboxed || s == NULL || s->ct == NULL || (s->plan != NULL &&
	    (s->plan->guard == NULL || s->plan->guard->n_rules == 0)))
		return json_pack("{s:s, s:s}", "reads_by", "none", "why",
		    !sandboxed ? "not sandboxed" : s == NULL || s->ct == NULL ?
		    "the session is not live" : "read reports are off "
		    "(sandbox.report_reads)");
	return json_pack("{s:s, s:s?}", "reads_by", strcmp(by, "seccomp") == 0 ?
	    "seccomp" : by, "why", why);
}

/* Where the sandbox of session s runs: platform, bwrap, container. */
static json_t *
rpc_sandbox_runs_here(const struct session *s, int sandboxed)
{
	struct utsname u;
	char bwrap[4096], why[512];
	int found = sandbox_check_bwrap(bwrap, sizeof bwrap) == 0;
	int ready = s && s->ct && container_is_ready(s->ct);
	pid_t pid = s && s->ct ? container_pid(s->ct) : 0;
	int alive = rpc_sandbox_pid_alive(pid);
	int runs = sandboxed && ready && alive;

	if (uname(&u) == -1)
		snprintf(u.sysname, sizeof u.sysname, "unknown");
	if (!sandboxed)
		snprintf(why, sizeof why, "not sandboxed: commands run with "
		    "the user's own rights");
	else if (s == NULL)
		snprintf(why, sizeof why, "the session is not live");
	else if (!found)
		snprintf(why, sizeof why, "bwrap is not installed: apt install "
		    "bubblewrap");
	else if (runs)
		snprintf(why, sizeof why, "bwrap container pid %d on %s",
		    (int)pid, u.sysname);
	else
		snprintf(why, sizeof why, "the session's container is not "
		    "running");
	return json_pack("{s:b, s:s, s:s, s:{s:s, s:b, s:b}, s:i, s:b, s:s, "
	    "s:o}", "runs_here", runs, "platform", u.sysname, "mechanism",
	    sandboxed ? "bwrap" : "none",
	    "bwrap", "path", bwrap, "found", found, "usable", ready,
	    "container_pid", (int)pid, "container_alive", alive, "detail", why,
	    "read_reports", rpc_sandbox_read_reports(s, sandboxed));
}

/* Mark the refused hosts that session.allow_host let through since (a
 * live session): "allowed": true on their entries. */
static void
rpc_sandbox_mark_allowed(const struct session *s, json_t *refused)
{
	const char *rule;
	json_t *e;
	size_t i;

	if (s == NULL || s->proxy == NULL)
		return;
	json_array_foreach(refused, i, e) {
		rule = json_string_value(json_object_get(e, "rule"));
		if (rule != NULL && strcmp(rule, PROXY_RULE_ALLOWLIST) == 0 &&
		    proxy_proc_allowed_later(s->proxy, json_string_value(
		    json_object_get(e, "host")), (int)json_integer_value(
		    json_object_get(e, "port"))))
			json_object_set_new(e, "allowed", json_true());
	}
}

/* sandbox.status {session, limit?}: the session's profile and where it
 * came from, whether its sandbox runs here, its network, and the hosts it
 * refused last (newest first, with counts; "allowed" on those let through
 * since). */
static int
rpc_sandbox_status(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	const char *id = rpc_sandbox_str(params, "session");
	json_t *lim = json_object_get(params, "limit"), *rec, *refused, *o;
	struct session *s, *own;
	const char *profile, *prov;
	int inside, sandboxed, limit = lim ? (int)json_integer_value(lim) :
	    RPC_SANDBOX_REFUSED_DEFAULT;

	if (lim != NULL && (json_integer_value(lim) < 1 ||
	    json_integer_value(lim) > 1000))
		return error_set_field(err, E_INVALID_PARAMS, "limit",
		    "limit must be between 1 and 1000");
	own = rpc_sandbox_own(call, &inside);
	s = session_find(id, NULL);
	if (inside && (own == NULL || (strcmp(own->id, id) != 0 &&
	    (s == NULL || s->parent == NULL || strcmp(s->parent, own->id) != 0))))
		return error_set_field(err, E_SESSION_NOT_FOUND, "session",
		    "no session %s", id);	/* others are not visible inside */
	if ((rec = store_session_get(sboxd.store, id, err)) == NULL)
		return -1;
	if ((refused = store_refusal_recent(sboxd.store, id, limit, err)) ==
	    NULL) {
		json_decref(rec);
		return -1;
	}
	rpc_sandbox_mark_allowed(s, refused);
	profile = json_string_value(json_object_get(rec, "profile"));
	prov = json_string_value(json_object_get(json_object_get(rec,
	    "provenance"), "summary"));
	sandboxed = s ? s->plan->sandboxed : json_is_true(json_object_get(
	    json_object_get(rec, "resolved_profile"), "sandboxed"));
	o = json_pack("{s:s, s:s?, s:s?, s:b, s:s?, s:b, s:o, s:s?, s:i, s:i, "
	    "s:o}",
	    "session", id, "profile", s ? s->profile->name : profile,
	    "provenance", s && s->profile->provenance ? s->profile->provenance :
	    prov, "sandboxed", sandboxed,
	    "state", json_string_value(json_object_get(rec, "state")),
	    "live", s != NULL,
	    "sandbox", rpc_sandbox_runs_here(s, sandboxed),
	    "network", s ? profile_network_name(s->profile->network) :
	    json_string_value(json_object_get(json_object_get(rec,
	    "resolved_profile"), "network")),
	    "proxy_port", s && s->ct && sandboxed ?
	    container_proxy_port(s->ct) : 0,
	    "proxy_connections", s && s->proxy ? proxy_proc_connections(s->proxy) : 0,
	    "refused", refused);
	if (o != NULL && s != NULL && sandboxed) {
		json_object_set_new(o, "limits", container_limits(s->ct));
		json_object_set_new(o, "disk", diskguard_bounds(s->plan,
		    caches_limit_bytes(s->profile)));
	}
	json_decref(rec);
	if (o == NULL)
		return error_nomem(err);
	*result = o;
	return 0;
}

/* sandbox.check {profile?, project?}: start a throwaway session with the
 * profile (else the one a session in project would get, else all_sessions,
 * else workspace) and report each step. */
static int
rpc_sandbox_check(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	const char *name = rpc_sandbox_str(params, "profile");
	const char *provider = rpc_sandbox_str(params, "provider");
	struct resolve_request req = { NULL, NULL, NULL, NULL, NULL };
	struct profile *p;
	char *chosen;
	int rc;

	if (provider != NULL && config_find_binding(sboxd.config ?
	    sboxd.config->providers : NULL, sboxd.config ?
	    sboxd.config->n_providers : 0, provider) == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "provider",
		    "no provider \"%s\" in the config", provider);
	if (provider != NULL) {	/* the profile its sessions get */
		req.sandbox = name;
		req.provider = provider;
		req.project = rpc_sandbox_str(params, "project");
		p = policy_resolve(sboxd.config, &req, err);
	} else if (name != NULL)
		p = profile_get(sboxd.config, name, err);
	else {
		req.project = rpc_sandbox_str(params, "project");
		p = policy_resolve(sboxd.config, &req, err);
		if (p != NULL && !p->sandboxed && req.project == NULL) {
			profile_free(p);
			p = profile_get(sboxd.config, "workspace", err);
		}
	}
	if (p == NULL) {
		if (strcmp(err->name, E_PROFILE_NOT_FOUND) == 0)
			snprintf(err->field, sizeof err->field, "profile");
		return -1;
	}
	if (!p->sandboxed) {
		error_set_field(err, E_INVALID_PARAMS, name ? "profile" :
		    "project", "profile %s%s%s%s is not sandboxed: there is no "
		    "sandbox to check; name a sandboxed profile", p->name,
		    p->provenance ? " (" : "", p->provenance ? p->provenance :
		    "", p->provenance ? ")" : "");
		profile_free(p);
		return -1;
	}
	if ((chosen = strdup(p->name)) == NULL) {
		profile_free(p);
		return error_nomem(err);
	}
	profile_free(p);
	rc = sandbox_check_start_provider(chosen, provider, call, result, err);
	free(chosen);
	return rc;
}

static const struct params_field rpc_sandbox_show_params[] = {
	{ "profile", PARAMS_STRING, 1, 64 },
	{ "project", PARAMS_STRING, 0, 4096 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_sandbox_resolve_params[] = {
	{ "project", PARAMS_STRING, 0, 4096 },
	{ "provider", PARAMS_STRING, 0, 256 },
	{ "model", PARAMS_STRING, 0, 256 },
	{ "space", PARAMS_STRING, 0, 256 },
	{ "sandbox", PARAMS_STRING, 0, 64 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_sandbox_status_params[] = {
	{ "session", PARAMS_STRING, 1, 64 },
	{ "limit", PARAMS_INT, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_sandbox_check_params[] = {
	{ "profile", PARAMS_STRING, 0, 64 },
	{ "provider", PARAMS_STRING, 0, 256 },
	{ "project", PARAMS_STRING, 0, 4096 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_sandbox_methods[] = {
	{ "sandbox.list", NULL, rpc_sandbox_list, RPC_SANDBOX_OK,
	  "every profile: network, folders, run outside, where it is chosen" },
	{ "sandbox.show", rpc_sandbox_show_params, rpc_sandbox_show,
	  RPC_SANDBOX_OK,
	  "what a profile allows: hosts, folders, ports, variables, MCP servers" },
	{ "sandbox.resolve", rpc_sandbox_resolve_params, rpc_sandbox_resolve,
	  RPC_HOST_ONLY, "the profile a session would get, with its provenance" },
	{ "sandbox.status", rpc_sandbox_status_params, rpc_sandbox_status,
	  RPC_SANDBOX_OK,
	  "a session's sandbox: profile, whether it runs here, refused hosts" },
	{ "sandbox.check", rpc_sandbox_check_params, rpc_sandbox_check,
	  RPC_HOST_ONLY, "start a test sandbox and report each step" },
	{ NULL, NULL, NULL, 0, NULL },
};
