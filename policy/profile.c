/* profile.c: profiles: built-ins, copying, and their JSON forms. */
#include "policy/profile.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/caches.h"
#include "policy/envfilter.h"
#include "policy/hostpat.h"
#include "policy/jsonpath.h"
#include "policy/path.h"
#include "policy/strv.h"

const char *const profile_builtin_names[] = {
	"workspace", "strict", "lab", "none", NULL
};

/* A new empty sandboxed profile (network none, run_outside ask, no limits). */
struct profile *
profile_new(const char *name, sbox_error *err)
{
	struct profile *p;

	p = calloc(1, sizeof *p);
	if (p == NULL || (p->name = strdup(name)) == NULL) {
		free(p);
		error_nomem(err);
		return NULL;
	}
	p->sandboxed = 1;
	p->project_access = 1;
	p->network = PROFILE_NET_NONE;
	p->run_outside = PROFILE_RUN_ASK;
	p->limits = (struct profile_limits){ -1, -1, -1, -1, -1, -1, -1 };
	return p;
}

/* True when name is one of the built-in profiles. */
int
profile_is_builtin(const char *name)
{
	size_t i;

	for (i = 0; profile_builtin_names[i] != NULL; i++) {
		if (strcmp(profile_builtin_names[i], name) == 0)
			return 1;
	}
	return 0;
}

/* A built-in profile by name, or NULL (E_PROFILE_NOT_FOUND). */
struct profile *
profile_builtin(const char *name, sbox_error *err)
{
	struct profile *p;

	if (name == NULL || !profile_is_builtin(name)) {
		error_set(err, E_PROFILE_NOT_FOUND, "no built-in profile \"%s\"",
		    name ? name : "");
		return NULL;
	}
	if ((p = profile_new(name, err)) == NULL)
		return NULL;
	if (strcmp(name, "workspace") == 0) {
		p->network = PROFILE_NET_REGISTRIES;
		p->run_outside = PROFILE_RUN_ASK;
	} else if (strcmp(name, "strict") == 0) {
		p->network = PROFILE_NET_NONE;
		p->run_outside = PROFILE_RUN_NEVER;
	} else if (strcmp(name, "lab") == 0) {
		p->network = PROFILE_NET_NONE;
		p->project_access = 0;
		p->run_outside = PROFILE_RUN_NEVER;
	} else {	/* none */
		p->sandboxed = 0;
		p->network = PROFILE_NET_INTERNET;
		p->run_outside = PROFILE_RUN_ASK;
	}
	return p;
}

/* Free p and everything it owns. */
void
profile_free(struct profile *p)
{
	if (p == NULL)
		return;
	free(p->name);
	free(p->extends);
	free(p->provenance);
	strv_free(p->hosts);
	strv_free(p->private_hosts);
	free(p->local_ports);
	strv_free(p->mcp_servers);
	strv_free(p->folders_rw);
	strv_free(p->folders_ro);
	strv_free(p->folders_deny);
	strv_free(p->env);
	strv_free(p->env_values);
	strv_free(p->exclude);
	profile_resolve_free(p->resolve, p->n_resolve);
	profile_provider_free(p);
	free(p);
}

/* strdup that accepts NULL; sets *ok = 0 on failure. */
static char *
profile_strdup(const char *s, int *ok)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		*ok = 0;
	return d;
}

/* A deep copy of p, or NULL (E_INTERNAL). */
struct profile *
profile_copy(const struct profile *p, sbox_error *err)
{
	struct profile *c;
	int ok = 1;

	c = calloc(1, sizeof *c);
	if (c == NULL) {
		error_nomem(err);
		return NULL;
	}
	*c = *p;
	c->name = profile_strdup(p->name, &ok);
	c->extends = profile_strdup(p->extends, &ok);
	c->provenance = profile_strdup(p->provenance, &ok);
	c->hosts = strv_copy(p->hosts, &ok);
	c->private_hosts = strv_copy(p->private_hosts, &ok);
	c->mcp_servers = strv_copy(p->mcp_servers, &ok);
	c->folders_rw = strv_copy(p->folders_rw, &ok);
	c->folders_ro = strv_copy(p->folders_ro, &ok);
	c->folders_deny = strv_copy(p->folders_deny, &ok);
	c->env = strv_copy(p->env, &ok);
	c->env_values = strv_copy(p->env_values, &ok);
	c->exclude = strv_copy(p->exclude, &ok);
	profile_provider_copy(c, p, &ok);
	c->local_ports = NULL;
	if (p->n_local_ports > 0) {
		c->local_ports = malloc(p->n_local_ports * sizeof *c->local_ports);
		if (c->local_ports == NULL)
			ok = 0;
		else
			memcpy(c->local_ports, p->local_ports,
			    p->n_local_ports * sizeof *c->local_ports);
	}
	if (profile_resolve_copy(p->resolve, p->n_resolve, &c->resolve) == -1)
		ok = 0;
	if (!ok) {
		if (c->resolve == NULL)
			c->n_resolve = 0;
		if (c->local_ports == NULL)
			c->n_local_ports = 0;
		profile_free(c);
		error_nomem(err);
		return NULL;
	}
	return c;
}

/* "none" / "registries" / "internet". */
const char *
profile_network_name(enum profile_network n)
{
	switch (n) {
	case PROFILE_NET_HOSTS:
		return "hosts";
	case PROFILE_NET_REGISTRIES:
		return "registries";
	case PROFILE_NET_INTERNET:
		return "internet";
	default:
		return "none";
	}
}

/* "ask" / "never". */
const char *
profile_run_outside_name(enum profile_run_outside r)
{
	return r == PROFILE_RUN_NEVER ? "never" : "ask";
}

/* Kinds of string list entries, each with its own check. */
/* A JSON array of the strings of v. */
static json_t *
profile_json_strv(char *const *v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && v != NULL && v[i] != NULL; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* The JSON form of p; `redact` hides provider env values. */
static json_t *
profile_json(const struct profile *p, int redact)
{
	json_t *o, *ports, *limits, *envv, *res, *folders;
	const char *eq;
	char name[256];
	size_t i, n;

	o = json_object();
	ports = json_array();
	envv = json_object();
	res = json_object();
	if (o == NULL || ports == NULL || envv == NULL || res == NULL) {
		json_decref(o);
		json_decref(ports);
		json_decref(envv);
		json_decref(res);
		return NULL;
	}
	for (i = 0; i < p->n_local_ports; i++)
		json_array_append_new(ports, json_integer(p->local_ports[i]));
	for (i = 0; p->env_values != NULL && p->env_values[i] != NULL; i++) {
		eq = strchr(p->env_values[i], '=');
		n = eq ? (size_t)(eq - p->env_values[i]) : 0;
		if (n == 0 || n >= sizeof name)
			continue;
		memcpy(name, p->env_values[i], n);
		name[n] = '\0';
		json_object_set_new(envv, name, json_string(redact ? "(set)" : eq + 1));
	}
	for (i = 0; i < p->n_resolve; i++)
		json_object_set_new(res, p->resolve[i].host,
		    profile_json_strv(p->resolve[i].addrs));
	folders = json_pack("{s:o,s:o,s:o}",
	    "read_write", profile_json_strv(p->folders_rw),
	    "read_only", profile_json_strv(p->folders_ro),
	    "deny", profile_json_strv(p->folders_deny));
	limits = json_object();
#define LIMIT(k) if (p->limits.k >= 0) json_object_set_new(limits, #k, json_integer(p->limits.k))
	LIMIT(pids); LIMIT(memory_mb); LIMIT(tmp_mb); LIMIT(output_mb);
	LIMIT(timeout_s); LIMIT(nofile); LIMIT(cache_mb);
#undef LIMIT
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "extends", p->extends ? json_string(p->extends) : json_null());
	json_object_set_new(o, "provenance",
	    p->provenance ? json_string(p->provenance) : json_null());
	json_object_set_new(o, "sandboxed", json_boolean(p->sandboxed));
	json_object_set_new(o, "project_access", json_boolean(p->project_access));
	json_object_set_new(o, "network", json_string(profile_network_name(p->network)));
	json_object_set_new(o, "hosts", profile_json_strv(p->hosts));
	json_object_set_new(o, "private_hosts", profile_json_strv(p->private_hosts));
	json_object_set_new(o, "local_ports", ports);
	json_object_set_new(o, "mcp_servers", profile_json_strv(p->mcp_servers));
	json_object_set_new(o, "folders", folders);
	json_object_set_new(o, "env", profile_json_strv(p->env));
	json_object_set_new(o, "env_values", envv);
	json_object_set_new(o, "run_outside",
	    json_string(profile_run_outside_name(p->run_outside)));
	json_object_set_new(o, "exclude", profile_json_strv(p->exclude));
	json_object_set_new(o, "caches", json_string(p->caches_shared ?
	    "profile" : "project"));
	json_object_set_new(o, "limits", limits);
	json_object_set_new(o, "resolve", res);
	profile_provider_to_json(p, o);
	if (json_object_size(o) != 29) {	/* some allocation failed */
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The full JSON form of p. */
json_t *
profile_to_json(const struct profile *p)
{
	return profile_json(p, 0);
}

/* The JSON form of p with provider env values hidden. */
json_t *
profile_to_json_public(const struct profile *p)
{
	return profile_json(p, 1);
}

/* Parse and validate the form written by profile_to_json. */
struct profile *
profile_from_json(const json_t *obj, sbox_error *err)
{
	struct profile *p;
	json_t *name;

	if (!json_is_object(obj)) {
		error_set_field(err, E_CONFIG, "profile", "must be an object");
		return NULL;
	}
	name = json_object_get(obj, "name");
	if (!json_is_string(name) || !profile_name_valid(json_string_value(name))) {
		error_set_field(err, E_CONFIG, "profile.name",
		    "a stored profile needs a valid name");
		return NULL;
	}
	if ((p = profile_new(json_string_value(name), err)) == NULL)
		return NULL;
	if (profile_apply_json(p, obj, "profile", NULL, 1, err) == -1) {
		profile_free(p);
		return NULL;
	}
	if (!p->sandboxed && strcmp(p->name, "none") != 0) {
		/* only "none" is unsandboxed; anything else is a forged record */
		error_set_field(err, E_CONFIG, "profile.sandboxed",
		    "only the profile \"none\" can be unsandboxed");
		profile_free(p);
		return NULL;
	}
	return p;
}
