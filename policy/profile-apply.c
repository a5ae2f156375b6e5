/* profile-apply.c: a profile's JSON (the config's custom profiles, the
 * stored ones) applied onto a profile, every key validated. */
#include "policy/profile-apply.h"
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
#include "policy/profile-env.h"
#include "policy/profile-name.h"
#include "policy/profile-provider.h"
#include "policy/profile-resolve.h"
#include "policy/strv.h"

#define PROFILE_FIELD_MAX 256

/* What one string of a profile's lists must be. */
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
		if (profile_env_set_value(p, key, json_string_value(v)) == -1)
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
