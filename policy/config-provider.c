/* config-provider.c: the keys of a provider entry of the config:
 *
 *   "providers": {"claude": {
 *       "sandbox": "strict",
 *       "hosts": ["api.model.example"],     reachable in every network mode
 *       "env": {"MODEL_API_KEY": "..."},    set in its sessions, never shown
 *       "home": "persistent",               <state>/homes/claude as $HOME
 *       "account_folders": ["~/.claude"],   read-only but for "writable"
 *       "writable": ["~/.claude/projects/"], what its agent writes there
 *       "signin": ["~/.claude/.credentials.json"], readable, not writable
 *       "sandbox_capable": false}}          refused with a sandboxed profile
 */
#include "policy/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/envfilter.h"
#include "policy/hostpat.h"
#include "policy/jsonpath.h"
#include "policy/path.h"
#include "policy/profile-env.h"
#include "policy/strv.h"

#define CONFIG_PROVIDER_FIELD_MAX 320

/* Free what the provider keys of b own. */
void
config_provider_free(struct config_binding *b)
{
	strv_free(b->hosts);
	strv_free(b->env_values);
	strv_free(b->account_folders);
	strv_free(b->runs_later);
	strv_free(b->writable);
	strv_free(b->signin);
	strv_free(b->settings);
	strv_free(b->data_keys);
	strv_free(b->key_env);
	strv_free(b->state_folders);
	strv_free(b->pass_env);
	strv_free(b->set_env);
	strv_free(b->keep);
	strv_free(b->private_dirs);
	strv_free(b->telemetry);
	free(b->alias_of);
}

/* True when a provider's name can name its home folder. */
int
config_provider_name_safe(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > 64 || strcmp(name, ".") == 0 || strstr(name, "..") != NULL)
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    (c == '.' && i > 0)))
			return 0;
	}
	return 1;
}

/* Parse a provider's "hosts" array into b->hosts. */
static int
config_provider_hosts(struct config_binding *b, const json_t *v,
    const char *f, sbox_error *err)
{
	char g[CONFIG_PROVIDER_FIELD_MAX + 32], buf[300];
	struct hostpat hp;
	json_t *e;
	size_t i;

	if (!json_is_array(v))
		return error_set_field(err, E_CONFIG, f,
		    "must be an array of host patterns");
	json_array_foreach(v, i, e) {
		jsonpath_format(g, sizeof g, "%s[%zu]", f, i);
		if (!json_is_string(e))
			return error_set_field(err, E_CONFIG, g, "must be a string");
		if (hostpat_parse(json_string_value(e), &hp, err) == -1) {
			if (err != NULL)
				jsonpath_format(err->field, sizeof err->field, "%s", g);
			return -1;
		}
		hostpat_format(&hp, buf, sizeof buf);
		if (strv_add_unique(&b->hosts, buf) == -1)
			return error_nomem(err);
	}
	return 0;
}

/* Parse a provider's "env" object into b->env_values. */
static int
config_provider_env(struct config_binding *b, const json_t *obj,
    const char *field, sbox_error *err)
{
	char f[CONFIG_PROVIDER_FIELD_MAX + 300], *s;
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
		if (asprintf(&s, "%s=%s", key, json_string_value(v)) == -1 ||
		    strv_push(&b->env_values, s) == -1)
			return error_nomem(err);
	}
	return 0;
}

/* Parse "account_folders": folders below the home folder (never it). */
static int
config_provider_accounts(const struct config *cfg, struct config_binding *b,
    const json_t *v, const char *f, sbox_error *err)
{
	char g[CONFIG_PROVIDER_FIELD_MAX + 32], *p;
	json_t *e;
	size_t i;

	if (!json_is_array(v))
		return error_set_field(err, E_CONFIG, f,
		    "must be an array of folders of your home folder (\"~/.agent\")");
	json_array_foreach(v, i, e) {
		jsonpath_format(g, sizeof g, "%s[%zu]", f, i);
		if (!json_is_string(e))
			return error_set_field(err, E_CONFIG, g, "must be a string");
		if ((p = path_expand(json_string_value(e), cfg->home, g, err)) == NULL)
			return error_isset(err) ? -1 : error_nomem(err);
		if (cfg->home == NULL || !path_is_under(p, cfg->home) ||
		    strcmp(p, cfg->home) == 0) {
			free(p);
			return error_set_field(err, E_CONFIG, g, "\"%s\" must be a "
			    "folder below your home folder (such as ~/.agent), "
			    "not the home folder itself", json_string_value(e));
		}
		if (strv_push(&b->account_folders, p) == -1)
			return error_nomem(err);
	}
	return 0;
}

/* Parse "writable" or "signin": paths below the home folder ('/' ends a
 * folder; wildcards within a component) into *out. */
static int
config_provider_paths(const struct config *cfg, char ***out, const json_t *v,
    const char *f, sbox_error *err)
{
	char g[CONFIG_PROVIDER_FIELD_MAX + 32], *p, *d;
	const char *s;
	json_t *e;
	size_t i;

	if (!json_is_array(v))
		return error_set_field(err, E_CONFIG, f, "must be an array of "
		    "paths in the provider's account folders (\"~/.agent/logs/\")");
	json_array_foreach(v, i, e) {
		jsonpath_format(g, sizeof g, "%s[%zu]", f, i);
		if ((s = json_string_value(e)) == NULL)
			return error_set_field(err, E_CONFIG, g, "must be a string");
		if ((p = path_expand(s, cfg->home, g, err)) == NULL)
			return error_isset(err) ? -1 : error_nomem(err);
		if (cfg->home == NULL || !path_is_under(p, cfg->home) ||
		    strcmp(p, cfg->home) == 0) {
			free(p);
			return error_set_field(err, E_CONFIG, g, "\"%s\" must be "
			    "a path below your home folder", s);
		}
		if (s[0] != '\0' && s[strlen(s) - 1] == '/') {
			if (asprintf(&d, "%s/", p) == -1) {
				free(p);
				return error_nomem(err);
			}
			free(p);
			p = d;
		}
		if (strv_push(out, p) == -1)
			return error_nomem(err);
	}
	return 0;
}

/* Parse one key of a provider entry: 0, -1 with err, or 1 when key is not
 * one of the provider keys. */
int
config_provider_key(const struct config *cfg, struct config_binding *b,
    const char *key, const json_t *v, const char *f, sbox_error *err)
{
	const char *s;

	if (strcmp(key, "hosts") == 0)
		return config_provider_hosts(b, v, f, err);
	if (strcmp(key, "env") == 0)
		return config_provider_env(b, v, f, err);
	if (strcmp(key, "account_folders") == 0)
		return config_provider_accounts(cfg, b, v, f, err);
	if (strcmp(key, "writable") == 0)
		return config_provider_paths(cfg, &b->writable, v, f, err);
	if (strcmp(key, "signin") == 0)
		return config_provider_paths(cfg, &b->signin, v, f, err);
	if (strcmp(key, "home") == 0) {
		s = json_string_value(v);
		if (s == NULL || (strcmp(s, "persistent") != 0 &&
		    strcmp(s, "empty") != 0))
			return error_set_field(err, E_CONFIG, f, "must be "
			    "\"persistent\" (a home folder of the provider's own, "
			    "kept between sessions) or \"empty\" (the default)");
		if (strcmp(s, "persistent") == 0 &&
		    !config_provider_name_safe(b->key))
			return error_set_field(err, E_CONFIG, f, "the provider "
			    "name \"%s\" cannot name a folder (letters, digits, "
			    "'-', '_', '.')", b->key);
		b->home_persistent = strcmp(s, "persistent") == 0;
		return 0;
	}
	if (strcmp(key, "sandbox_capable") == 0) {
		if (!json_is_boolean(v))
			return error_set_field(err, E_CONFIG, f,
			    "must be true or false");
		b->no_sandbox = json_is_false(v);
		return 0;
	}
	return 1;
}

/* Add every string of from to *to (unique); -1 on ENOMEM. */
static int
config_provider_add_all(char ***to, char *const *from)
{
	size_t i;

	for (i = 0; from != NULL && from[i] != NULL; i++)
		if (strv_add_unique(to, from[i]) == -1)
			return -1;
	return 0;
}

/* True when folder a is b, is inside it or holds it. */
static int
config_provider_overlap(const char *a, const char *b)
{
	return path_is_under(a, b) || path_is_under(b, a);
}

/* The account folders of the session's provider b (NULL: none) and of the
 * others into p: its key env names pass, its run-later files stay
 * read-only, every other agent's account folder is hidden; with a home of
 * its own, every agent's state folder may be made there. */
int
config_provider_resolve(const struct config *cfg,
    const struct config_binding *b, struct profile *p, sbox_error *err)
{
	const struct config_binding *o;
	size_t i, j, k;
	int own;

	if (b != NULL && (config_provider_add_all(&p->env, b->key_env) == -1 ||
	    config_provider_add_all(&p->env, b->pass_env) == -1 ||
	    config_provider_add_all(&p->account_protect, b->runs_later) == -1 ||
	    config_provider_add_all(&p->account_keep, b->keep) == -1 ||
	    config_provider_add_all(&p->account_private, b->private_dirs) == -1))
		return error_nomem(err);
	for (i = 0; b != NULL && b->set_env != NULL && b->set_env[i] != NULL;
	    i++) {	/* what sbox sets for its CLI inside */
		char name[256];
		size_t n = strcspn(b->set_env[i], "=");

		if (n >= sizeof name || b->set_env[i][n] != '=')
			continue;
		memcpy(name, b->set_env[i], n);
		name[n] = '\0';
		if (profile_env_set_value(p, name, b->set_env[i] + n + 1) == -1)
			return error_nomem(err);
	}
	for (i = 0; cfg != NULL && i < cfg->n_providers; i++) {
		o = &cfg->providers[i];
		for (j = 0; j < strv_len(o->account_folders) +
		    strv_len(o->state_folders); j++) {
			const char *f = j < strv_len(o->account_folders) ?
			    o->account_folders[j] : o->state_folders[j -
			    strv_len(o->account_folders)];

			own = 0;
			for (k = 0; b && b->account_folders &&
			    b->account_folders[k]; k++)
				if (config_provider_overlap(f, b->account_folders[k]))
					own = 1;
			if (own)
				continue;
			if (b != NULL && b->home_persistent) {
				/* its own home: the agents' folders are its */
				if (strv_add_unique(&p->state_folders, f) == -1 ||
				    config_provider_add_all(&p->account_protect,
				    o->runs_later) == -1)
					return error_nomem(err);
			} else if (strv_add_unique(&p->hidden_accounts, f) == -1)
				return error_nomem(err);
		}
	}
	return 0;
}
