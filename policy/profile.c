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

#define PROFILE_FIELD_MAX 256

/* True when name is a valid profile name. */
int
profile_name_valid(const char *name)
{
	size_t i;

	if (name == NULL || name[0] == '\0' || strlen(name) > 64)
		return 0;
	if (!islower((unsigned char)name[0]) && !isdigit((unsigned char)name[0]))
		return 0;
	for (i = 1; name[i] != '\0'; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!islower(c) && !isdigit(c) && c != '-' && c != '_' && c != '.')
			return 0;
	}
	return 1;
}

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

/* Free a host table. */
void
profile_resolve_free(struct profile_resolve *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].host);
		strv_free(r[i].addrs);
	}
	free(r);
}

/* Deep-copy a host table into *out; -1 on ENOMEM. */
int
profile_resolve_copy(const struct profile_resolve *r, size_t n,
    struct profile_resolve **out)
{
	size_t i;
	int ok = 1;

	*out = NULL;
	if (n == 0)
		return 0;
	*out = calloc(n, sizeof **out);
	if (*out == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		(*out)[i].host = strdup(r[i].host);
		(*out)[i].addrs = strv_copy(r[i].addrs, &ok);
		if ((*out)[i].host == NULL)
			ok = 0;
	}
	if (!ok) {
		profile_resolve_free(*out, n);
		*out = NULL;
		return -1;
	}
	return 0;
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

/* Add "NAME=VALUE" to p->env_values, replacing an earlier NAME. */
int
profile_set_env_value(struct profile *p, const char *name, const char *value)
{
	size_t i, n = strlen(name);
	char *s;

	if (asprintf(&s, "%s=%s", name, value) == -1)
		return -1;
	for (i = 0; p->env_values != NULL && p->env_values[i] != NULL; i++) {
		if (strncmp(p->env_values[i], name, n) == 0 &&
		    p->env_values[i][n] == '=') {
			free(p->env_values[i]);
			p->env_values[i] = s;
			return 0;
		}
	}
	return strv_push(&p->env_values, s);
}

/* Kinds of string list entries, each with its own check. */
enum profile_item { ITEM_HOST, ITEM_PRIVATE_HOST, ITEM_NAME, ITEM_FOLDER,
    ITEM_ENV, ITEM_EXCLUDE };

/* Check and canonicalise one list entry; returns a malloc'd string or NULL. */
static char *
profile_item(enum profile_item kind, const char *s, const char *field,
    const char *home, sbox_error *err)
{
	struct hostpat hp;
	char buf[HOSTPAT_NAME_MAX + 16];
	char *out;

	switch (kind) {
	case ITEM_HOST:
	case ITEM_PRIVATE_HOST:
		if (hostpat_parse(s, &hp, err) == -1) {
			if (err != NULL)
				jsonpath_format(err->field, sizeof err->field, "%s", field);
			return NULL;
		}
		if (kind == ITEM_PRIVATE_HOST && (hp.wildcard || hp.port)) {
			error_set_field(err, E_CONFIG, field,
			    "private_hosts takes exact names without '*' or a port, not \"%s\"",
			    s);
			return NULL;
		}
		hostpat_format(&hp, buf, sizeof buf);
		out = strdup(buf);
		break;
	case ITEM_FOLDER:
		return path_expand(s, home, field, err);
	case ITEM_ENV:
		if (!envfilter_name_valid(s)) {
			error_set_field(err, E_CONFIG, field,
			    "\"%s\" is not a variable name (NAME, or PREFIX*)", s);
			return NULL;
		}
		out = strdup(s);
		break;
	default:
		if (s[0] == '\0' || strlen(s) > 1024) {
			error_set_field(err, E_CONFIG, field,
			    "must be a non-empty string of at most 1024 characters");
			return NULL;
		}
		out = strdup(s);
		break;
	}
	if (out == NULL)
		error_nomem(err);
	return out;
}

/* Add the checked entries of JSON array `arr` to *list. */
static int
profile_add_list(char ***list, const json_t *arr, enum profile_item kind,
    const char *field, const char *home, sbox_error *err)
{
	char f[PROFILE_FIELD_MAX], *s;
	json_t *v;
	size_t i;

	if (!json_is_array(arr))
		return error_set_field(err, E_CONFIG, field, "must be an array of strings");
	json_array_foreach(arr, i, v) {
		jsonpath_format(f, sizeof f, "%s[%zu]", field, i);
		if (!json_is_string(v))
			return error_set_field(err, E_CONFIG, f, "must be a string");
		if ((s = profile_item(kind, json_string_value(v), f, home, err)) == NULL)
			return -1;
		if (strv_contains(*list, s)) {
			free(s);
			continue;
		}
		if (strv_push(list, s) == -1)
			return error_nomem(err);
	}
	return 0;
}

/* Add the ports of JSON array `arr` to p->local_ports. */
static int
profile_add_ports(struct profile *p, const json_t *arr, const char *field,
    sbox_error *err)
{
	char f[PROFILE_FIELD_MAX];
	json_int_t port;
	int *np;
	json_t *v;
	size_t i, j;

	if (!json_is_array(arr))
		return error_set_field(err, E_CONFIG, field, "must be an array of port numbers");
	json_array_foreach(arr, i, v) {
		jsonpath_format(f, sizeof f, "%s[%zu]", field, i);
		if (!json_is_integer(v) || (port = json_integer_value(v)) < 1 ||
		    port > 65535)
			return error_set_field(err, E_CONFIG, f,
			    "must be a port number 1..65535");
		for (j = 0; j < p->n_local_ports; j++) {
			if (p->local_ports[j] == (int)port)
				break;
		}
		if (j < p->n_local_ports)
			continue;
		np = realloc(p->local_ports, (p->n_local_ports + 1) * sizeof *np);
		if (np == NULL)
			return error_nomem(err);
		np[p->n_local_ports++] = (int)port;
		p->local_ports = np;
	}
	return 0;
}

/* Apply a "folders" object. */
static int
profile_apply_folders(struct profile *p, const json_t *obj, const char *field,
    const char *home, sbox_error *err)
{
	char f[PROFILE_FIELD_MAX];
	const char *key;
	char ***list;
	json_t *v;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, field,
		    "must be an object with read_write, read_only and deny");
	json_object_foreach((json_t *)obj, key, v) {
		jsonpath_format(f, sizeof f, "%s.%s", field, key);
		if (strcmp(key, "read_write") == 0)
			list = &p->folders_rw;
		else if (strcmp(key, "read_only") == 0)
			list = &p->folders_ro;
		else if (strcmp(key, "deny") == 0)
			list = &p->folders_deny;
		else
			return error_set_field(err, E_CONFIG, f,
			    "unknown key (expected read_write, read_only or deny)");
		if (profile_add_list(list, v, ITEM_FOLDER, f, home, err) == -1)
			return -1;
	}
	return 0;
}

/* Apply a "limits" object. */
static int
profile_apply_limits(struct profile *p, const json_t *obj, const char *field,
    sbox_error *err)
{
	static const struct { const char *key; size_t off; int64_t min, max; } keys[] = {
		{ "pids", offsetof(struct profile_limits, pids), 1, 1 << 22 },
		{ "memory_mb", offsetof(struct profile_limits, memory_mb), 16, 1 << 24 },
		{ "tmp_mb", offsetof(struct profile_limits, tmp_mb), 1, 1 << 24 },
		{ "output_mb", offsetof(struct profile_limits, output_mb), 1, 1 << 16 },
		{ "timeout_s", offsetof(struct profile_limits, timeout_s), 0, 1 << 24 },
		{ "nofile", offsetof(struct profile_limits, nofile), 16, 1 << 20 },
		{ "cache_mb", offsetof(struct profile_limits, cache_mb), 1, 1 << 24 },
	};
	char f[PROFILE_FIELD_MAX];
	const char *key;
	json_t *v;
	size_t i;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, field, "must be an object");
	json_object_foreach((json_t *)obj, key, v) {
		jsonpath_format(f, sizeof f, "%s.%s", field, key);
		for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			if (strcmp(keys[i].key, key) == 0)
				break;
		}
		if (i == sizeof keys / sizeof keys[0])
			return error_set_field(err, E_CONFIG, f,
			    "unknown key (expected pids, memory_mb, tmp_mb, output_mb, timeout_s, nofile or cache_mb)");
		if (!json_is_integer(v) || json_integer_value(v) < keys[i].min ||
		    json_integer_value(v) > keys[i].max)
			return error_set_field(err, E_CONFIG, f,
			    "must be an integer from %lld to %lld",
			    (long long)keys[i].min, (long long)keys[i].max);
		*(int64_t *)((char *)&p->limits + keys[i].off) = json_integer_value(v);
	}
	return 0;
}

/* Parse a static host table into *out and *n. */
int
profile_parse_resolve(const json_t *obj, const char *path,
    struct profile_resolve **out, size_t *n, sbox_error *err)
{
	char f[PROFILE_FIELD_MAX], g[PROFILE_FIELD_MAX];
	unsigned char addr[16];
	struct profile_resolve *r = NULL, *nr;
	struct hostpat hp;
	const char *key, *a;
	json_t *v, *e;
	size_t i, count = 0;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, path,
		    "must be an object of host name -> [addresses]");
	json_object_foreach((json_t *)obj, key, v) {
		jsonpath_format(f, sizeof f, "%s.%s", path, key);
		if (hostpat_parse(key, &hp, err) == -1 || hp.wildcard || hp.port ||
		    hp.is_ip) {
			profile_resolve_free(r, count);
			return error_set_field(err, E_CONFIG, f,
			    "\"%s\" must be a plain host name", key);
		}
		if (!json_is_array(v) || json_array_size(v) == 0) {
			profile_resolve_free(r, count);
			return error_set_field(err, E_CONFIG, f,
			    "must be a non-empty array of IP addresses");
		}
		nr = realloc(r, (count + 1) * sizeof *r);
		if (nr == NULL) {
			profile_resolve_free(r, count);
			return error_nomem(err);
		}
		r = nr;
		r[count].host = strdup(hp.name);
		r[count].addrs = NULL;
		count++;
		if (r[count - 1].host == NULL) {
			profile_resolve_free(r, count);
			return error_nomem(err);
		}
		json_array_foreach(v, i, e) {
			jsonpath_format(g, sizeof g, "%s[%zu]", f, i);
			a = json_string_value(e);
			if (a == NULL || (inet_pton(AF_INET, a, addr) != 1 &&
			    inet_pton(AF_INET6, a, addr) != 1)) {
				profile_resolve_free(r, count);
				return error_set_field(err, E_CONFIG, g,
				    "must be an IPv4 or IPv6 address");
			}
			if (strv_append(&r[count - 1].addrs, a) == -1) {
				profile_resolve_free(r, count);
				return error_nomem(err);
			}
		}
	}
	*out = r;
	*n = count;
	return 0;
}

/* Apply an "env_values" object (stored form only). */
static int
profile_apply_env_values(struct profile *p, const json_t *obj,
    const char *field, sbox_error *err)
{
	char f[PROFILE_FIELD_MAX];
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, field,
		    "must be an object of NAME -> value");
	json_object_foreach((json_t *)obj, key, v) {
		jsonpath_format(f, sizeof f, "%s.%s", field, key);
		if (!envfilter_name_valid(key) || strchr(key, '*') != NULL)
			return error_set_field(err, E_CONFIG, f,
			    "\"%s\" is not a variable name", key);
		if (!json_is_string(v))
			return error_set_field(err, E_CONFIG, f, "must be a string");
		if (profile_set_env_value(p, key, json_string_value(v)) == -1)
			return error_nomem(err);
	}
	return 0;
}

/* Replace *dst with a copy of a JSON string (or NULL for null). */
static int
profile_set_string(char **dst, const json_t *v, int nullable,
    const char *field, sbox_error *err)
{
	char *s;

	if (nullable && json_is_null(v)) {
		free(*dst);
		*dst = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return error_set_field(err, E_CONFIG, field, "must be a string");
	if ((s = strdup(json_string_value(v))) == NULL)
		return error_nomem(err);
	free(*dst);
	*dst = s;
	return 0;
}

/* Apply one key of the stored form; 1 when the key is not a stored-only key. */
static int
profile_apply_stored(struct profile *p, const char *key, const json_t *v,
    const char *f, sbox_error *err)
{
	int rc;

	if (strcmp(key, "name") == 0) {
		if (!json_is_string(v) || !profile_name_valid(json_string_value(v)))
			return error_set_field(err, E_CONFIG, f, "must be a profile name");
		return profile_set_string(&p->name, v, 0, f, err);
	}
	if (strcmp(key, "provenance") == 0)
		return profile_set_string(&p->provenance, v, 1, f, err);
	if (strcmp(key, "sandboxed") == 0 || strcmp(key, "project_access") == 0) {
		if (!json_is_boolean(v))
			return error_set_field(err, E_CONFIG, f, "must be true or false");
		*(key[0] == 's' ? &p->sandboxed : &p->project_access) = json_is_true(v);
		return 0;
	}
	if (strcmp(key, "env_values") == 0)
		return profile_apply_env_values(p, v, f, err);
	if ((rc = profile_provider_apply_stored(p, key, v, f, err)) != 1)
		return rc;
	if (strcmp(key, "resolve") == 0) {
		profile_resolve_free(p->resolve, p->n_resolve);
		p->resolve = NULL;
		p->n_resolve = 0;
		return profile_parse_resolve(v, f, &p->resolve, &p->n_resolve, err);
	}
	return 1;
}

/* Apply a profile object of the config (or the stored form) onto p. */
int
profile_apply_json(struct profile *p, const json_t *obj, const char *path,
    const char *home, int stored, sbox_error *err)
{
	char f[PROFILE_FIELD_MAX];
	const char *key, *s;
	json_t *v;
	int rc;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, path, "must be an object");
	json_object_foreach((json_t *)obj, key, v) {
		jsonpath_format(f, sizeof f, "%s.%s", path, key);
		if (stored && (rc = profile_apply_stored(p, key, v, f, err)) != 1) {
			if (rc == -1)
				return -1;
			continue;
		}
		if (strcmp(key, "extends") == 0) {
			if (!(json_is_string(v) || (stored && json_is_null(v))))
				return error_set_field(err, E_CONFIG, f,
				    "must be the name of a profile");
			rc = profile_set_string(&p->extends, v, stored, f, err);
		} else if (strcmp(key, "network") == 0) {
			s = json_string_value(v);
			if (s != NULL && strcmp(s, "none") == 0)
				p->network = PROFILE_NET_NONE;
			else if (s != NULL && strcmp(s, "hosts") == 0)
				p->network = PROFILE_NET_HOSTS;
			else if (s != NULL && strcmp(s, "registries") == 0)
				p->network = PROFILE_NET_REGISTRIES;
			else if (s != NULL && strcmp(s, "internet") == 0)
				p->network = PROFILE_NET_INTERNET;
			else
				return error_set_field(err, E_CONFIG, f,
				    "must be \"none\", \"hosts\" (its hosts only), "
				    "\"registries\" or \"internet\"");
			rc = 0;
		} else if (strcmp(key, "run_outside") == 0) {
			s = json_string_value(v);
			if (s != NULL && strcmp(s, "ask") == 0)
				p->run_outside = PROFILE_RUN_ASK;
			else if (s != NULL && strcmp(s, "never") == 0)
				p->run_outside = PROFILE_RUN_NEVER;
			else
				return error_set_field(err, E_CONFIG, f,
				    "must be \"ask\" or \"never\"");
			rc = 0;
		} else if (strcmp(key, "hosts") == 0)
			rc = profile_add_list(&p->hosts, v, ITEM_HOST, f, home, err);
		else if (strcmp(key, "private_hosts") == 0)
			rc = profile_add_list(&p->private_hosts, v, ITEM_PRIVATE_HOST,
			    f, home, err);
		else if (strcmp(key, "mcp_servers") == 0)
			rc = profile_add_list(&p->mcp_servers, v, ITEM_NAME, f, home, err);
		else if (strcmp(key, "env") == 0)
			rc = profile_add_list(&p->env, v, ITEM_ENV, f, home, err);
		else if (strcmp(key, "exclude") == 0)
			rc = profile_add_list(&p->exclude, v, ITEM_EXCLUDE, f, home, err);
		else if (strcmp(key, "local_ports") == 0)
			rc = profile_add_ports(p, v, f, err);
		else if (strcmp(key, "folders") == 0)
			rc = profile_apply_folders(p, v, f, home, err);
		else if (strcmp(key, "limits") == 0)
			rc = profile_apply_limits(p, v, f, err);
		else if (strcmp(key, "caches") == 0)
			rc = caches_profile_apply(p, v, f, err);
		else
			return error_set_field(err, E_CONFIG, f, "unknown key");
		if (rc == -1)
			return -1;
	}
	return 0;
}

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
	if (json_object_size(o) != 25) {	/* some allocation failed */
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
