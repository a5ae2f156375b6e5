/* config.c: loading, validating and updating the user's config.json. */
#include "policy/config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/envfilter.h"
#include "policy/hostpat.h"
#include "policy/jsonpath.h"
#include "policy/path.h"
#include "policy/providers.h"
#include "policy/strv.h"
#include "policy/suggest.h"

#define CONFIG_FIELD_MAX 256

/* The home folder: home, else $HOME, else the password database. */
static const char *
config_home(const char *home)
{
	struct passwd *pw;

	if (home != NULL && home[0] == '/')
		return home;
	home = getenv("HOME");
	if (home != NULL && home[0] == '/')
		return home;
	pw = getpwuid(getuid());
	return pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] == '/' ?
	    pw->pw_dir : NULL;
}

/* The default config path. */
char *
config_default_path(const char *home)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	char *out;

	if (xdg != NULL && xdg[0] == '/') {
		if (asprintf(&out, "%s/sbox/config.json", xdg) == -1)
			return NULL;
		return out;
	}
	if ((home = config_home(home)) == NULL)
		return NULL;
	if (asprintf(&out, "%s/.config/sbox/config.json", home) == -1)
		return NULL;
	return out;
}

/* Free one binding table. */
static void
config_bindings_free(struct config_binding *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(b[i].key);
		free(b[i].sandbox);
		config_provider_free(&b[i]);
	}
	free(b);
}

/* Free a config. */
void
config_free(struct config *cfg)
{
	size_t i;

	if (cfg == NULL)
		return;
	free(cfg->path);
	free(cfg->home);
	free(cfg->all_sessions);
	for (i = 0; i < cfg->n_profiles; i++)
		profile_free(cfg->profiles[i]);
	free(cfg->profiles);
	config_bindings_free(cfg->spaces, cfg->n_spaces);
	config_bindings_free(cfg->projects, cfg->n_projects);
	config_bindings_free(cfg->providers, cfg->n_providers);
	config_bindings_free(cfg->models, cfg->n_models);
	profile_resolve_free(cfg->resolve, cfg->n_resolve);
	if (cfg->protected != NULL) {
		guard_table_free(cfg->protected);
		free(cfg->protected);
	}
	free(cfg);
}

/* The custom profile called name, or NULL. */
const struct profile *
config_find_profile(const struct config *cfg, const char *name)
{
	size_t i;

	for (i = 0; cfg != NULL && i < cfg->n_profiles; i++) {
		if (strcmp(cfg->profiles[i]->name, name) == 0)
			return cfg->profiles[i];
	}
	return NULL;
}

/* The entry for key in one binding table, or NULL. */
const struct config_binding *
config_find_binding(const struct config_binding *b, size_t n, const char *key)
{
	size_t i;

	for (i = 0; key != NULL && i < n; i++) {
		if (strcmp(b[i].key, key) == 0)
			return &b[i];
	}
	return NULL;
}

/* Seconds an approval waits for an answer. */
int64_t
config_approvals_timeout_s(const struct config *cfg)
{
	if (cfg == NULL || cfg->approvals_timeout_s < 0)
		return CONFIG_APPROVALS_TIMEOUT_DEFAULT;
	return cfg->approvals_timeout_s;
}

/* Run-outside requests of one session that may wait at once
 * (approvals.burst), default CONFIG_APPROVALS_BURST_DEFAULT. */
int
config_approvals_burst(const struct config *cfg)
{
	return cfg != NULL && cfg->approvals_burst > 0 ? cfg->approvals_burst :
	    CONFIG_APPROVALS_BURST_DEFAULT;
}

/* Run-outside requests of one session asked in a minute
 * (approvals.per_minute), default CONFIG_APPROVALS_PER_MINUTE_DEFAULT. */
int
config_approvals_per_minute(const struct config *cfg)
{
	return cfg != NULL && cfg->approvals_per_minute > 0 ?
	    cfg->approvals_per_minute : CONFIG_APPROVALS_PER_MINUTE_DEFAULT;
}

/* True when name is a built-in or custom profile of cfg. */
static int
config_profile_exists(const struct config *cfg, const char *name)
{
	return profile_is_builtin(name) || config_find_profile(cfg, name) != NULL;
}

/* Check that v is a string naming a known profile; returns it or NULL. */
static const char *
config_profile_ref(const struct config *cfg, const json_t *v,
    const char *field, sbox_error *err)
{
	const char *s = json_string_value(v);

	if (s == NULL) {
		error_set_field(err, E_CONFIG, field, "must be the name of a profile");
		return NULL;
	}
	if (!config_profile_exists(cfg, s)) {
		error_set_field(err, E_CONFIG, field,
		    "unknown profile \"%s\" (not built-in nor in sandbox.profiles)", s);
		return NULL;
	}
	return s;
}

/* Parse one profile object into the table of raw objects (pass 1: checks). */
static int
config_check_profile(const char *name, const json_t *obj, const char *home,
    sbox_error *err)
{
	char f[CONFIG_FIELD_MAX];
	struct profile *tmp;
	int rc;

	jsonpath_format(f, sizeof f, "sandbox.profiles.%s", name);
	if (!profile_name_valid(name))
		return error_set_field(err, E_CONFIG, f,
		    "\"%s\" is not a valid profile name (lower-case letters, digits, '-', '_', '.')",
		    name);
	if (profile_is_builtin(name))
		return error_set_field(err, E_CONFIG, f,
		    "\"%s\" is a built-in profile; choose another name and extend it",
		    name);
	if ((tmp = profile_new(name, err)) == NULL)
		return -1;
	rc = profile_apply_json(tmp, obj, f, home, 0, err);
	profile_free(tmp);
	return rc;
}

/* Build profile `name` with its parents (pass 2); state: 0 new, 1 busy, 2 done. */
static int
config_build_profile(struct config *cfg, const json_t *profiles,
    const char *name, int *state, const char **names, size_t n,
    const char *chain, sbox_error *err)
{
	char f[CONFIG_FIELD_MAX], *newchain;
	const json_t *obj = json_object_get(profiles, name);
	const json_t *ext = json_object_get(obj, "extends");
	const char *parent = json_string_value(ext);
	struct profile *base, *p;
	const struct profile *pp;
	size_t i, idx = 0;
	int rc;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], name) == 0)
			idx = i;
	}
	if (state[idx] == 2)
		return 0;
	jsonpath_format(f, sizeof f, "sandbox.profiles.%s.extends", name);
	if (state[idx] == 1)
		return error_set_field(err, E_CONFIG, f, "extends cycle: %s", chain);
	state[idx] = 1;
	if (parent == NULL)
		base = profile_new(name, err);
	else if (strcmp(parent, "none") == 0)
		return error_set_field(err, E_CONFIG, f,
		    "cannot extend \"none\" (it is not a sandbox)");
	else if (profile_is_builtin(parent))
		base = profile_builtin(parent, err);
	else if (json_object_get(profiles, parent) == NULL)
		return error_set_field(err, E_CONFIG, f,
		    "unknown parent profile \"%s\"", parent);
	else {
		if (asprintf(&newchain, "%s -> %s", chain, parent) == -1)
			return error_nomem(err);
		rc = config_build_profile(cfg, profiles, parent, state, names, n,
		    newchain, err);
		free(newchain);
		if (rc == -1)
			return -1;
		pp = config_find_profile(cfg, parent);
		base = pp ? profile_copy(pp, err) : NULL;
	}
	if (base == NULL)
		return -1;
	free(base->name);
	if ((base->name = strdup(name)) == NULL) {
		profile_free(base);
		return error_nomem(err);
	}
	jsonpath_format(f, sizeof f, "sandbox.profiles.%s", name);
	if (profile_apply_json(base, obj, f, cfg->home, 0, err) == -1) {
		profile_free(base);
		return -1;
	}
	p = base;
	cfg->profiles[cfg->n_profiles++] = p;
	state[idx] = 2;
	return 0;
}

/* Parse sandbox.profiles into cfg->profiles. */
static int
config_parse_profiles(struct config *cfg, const json_t *profiles,
    sbox_error *err)
{
	const char *key, **names;
	json_t *v;
	size_t n, i = 0;
	int *state, rc = 0;

	if (!json_is_object(profiles))
		return error_set_field(err, E_CONFIG, "sandbox.profiles",
		    "must be an object of profile name -> profile");
	n = json_object_size(profiles);
	if (n == 0)
		return 0;
	names = calloc(n, sizeof *names);
	state = calloc(n, sizeof *state);
	cfg->profiles = calloc(n, sizeof *cfg->profiles);
	if (names == NULL || state == NULL || cfg->profiles == NULL) {
		free(names);
		free(state);
		return error_nomem(err);
	}
	json_object_foreach((json_t *)profiles, key, v) {
		names[i++] = key;
		if (rc == 0 && config_check_profile(key, v, cfg->home, err) == -1)
			rc = -1;
	}
	for (i = 0; rc == 0 && i < n; i++)
		rc = config_build_profile(cfg, profiles, names[i], state, names, n,
		    names[i], err);
	free(names);
	free(state);
	return rc;
}

/* Parse "sandbox.protected": lines of the protected-names file format. */
static int
config_parse_protected(struct config *cfg, const json_t *a, sbox_error *err)
{
	char f[CONFIG_FIELD_MAX];
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		return error_set_field(err, E_CONFIG, "sandbox.protected",
		    "must be an array of \"KIND SCOPE NAME # comment\" strings");
	if ((cfg->protected = calloc(1, sizeof *cfg->protected)) == NULL)
		return error_nomem(err);
	json_array_foreach((json_t *)a, i, v) {
		jsonpath_format(f, sizeof f, "sandbox.protected[%zu]", i);
		if (!json_is_string(v) || strchr(json_string_value(v), '\n') ||
		    json_string_length(v) != strlen(json_string_value(v)))
			return error_set_field(err, E_CONFIG, f, "must be one "
			    "line: \"KIND SCOPE NAME # comment\"");
		if (guard_table_parse(cfg->protected, json_string_value(v), f,
		    err) == -1) {
			i = strnlen(f, sizeof err->field - 1);
			memcpy(err->field, f, i);
			err->field[i] = '\0';
			return -1;
		}
	}
	return 0;
}

/* Parse the "sandbox" object. */
static int
config_parse_sandbox(struct config *cfg, const json_t *obj, sbox_error *err)
{
	char f[CONFIG_FIELD_MAX];
	const char *key, *s;
	json_t *v;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, "sandbox", "must be an object");
	json_object_foreach((json_t *)obj, key, v) {
		jsonpath_format(f, sizeof f, "sandbox.%s", key);
		if (strcmp(key, "profiles") != 0 && strcmp(key, "all_sessions") !=
		    0 && strcmp(key, "protected") != 0 && strcmp(key,
		    "report_reads") != 0)
			return error_set_field(err, E_CONFIG, f, "unknown key "
			    "(expected all_sessions, profiles, protected or "
			    "report_reads)");
	}
	if ((v = json_object_get(obj, "report_reads")) != NULL) {
		if (!json_is_boolean(v))
			return error_set_field(err, E_CONFIG,
			    "sandbox.report_reads", "must be true or false");
		cfg->report_reads = json_is_true(v);
	}
	if ((v = json_object_get(obj, "protected")) != NULL &&
	    config_parse_protected(cfg, v, err) == -1)
		return -1;
	if ((v = json_object_get(obj, "profiles")) != NULL &&
	    config_parse_profiles(cfg, v, err) == -1)
		return -1;
	if ((v = json_object_get(obj, "all_sessions")) != NULL) {
		if ((s = config_profile_ref(cfg, v, "sandbox.all_sessions", err)) == NULL)
			return -1;
		if ((cfg->all_sessions = strdup(s)) == NULL)
			return error_nomem(err);
	}
	return 0;
}

/* Parse one binding entry at field (providers also take hosts and env). */
static int
config_parse_binding(struct config *cfg, struct config_binding *b,
    const json_t *obj, const char *field, int provider, sbox_error *err)
{
	char f[CONFIG_FIELD_MAX];
	const char *key, *s;
	json_t *v;
	int rc;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, field, "must be an object");
	json_object_foreach((json_t *)obj, key, v) {
		jsonpath_format(f, sizeof f, "%s.%s", field, key);
		if (strcmp(key, "sandbox") == 0) {
			if ((s = config_profile_ref(cfg, v, f, err)) == NULL)
				return -1;
			if ((b->sandbox = strdup(s)) == NULL)
				return error_nomem(err);
		} else if (provider && (rc = config_provider_key(cfg, b, key, v,
		    f, err)) != 1) {
			if (rc == -1)
				return -1;
		} else
			return error_set_field(err, E_CONFIG, f, provider ?
			    "unknown key (expected sandbox, hosts, env, home, "
			    "account_folders, writable, signin or "
			    "sandbox_capable)" :
			    "unknown key (expected sandbox)");
	}
	return 0;
}

/* Parse a table of bindings (spaces, projects, providers, models). */
static int
config_parse_bindings(struct config *cfg, const json_t *obj, const char *name,
    struct config_binding **out, size_t *n, sbox_error *err)
{
	char f[CONFIG_FIELD_MAX];
	const char *key;
	char *k;
	json_t *v;
	int projects = strcmp(name, "projects") == 0;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, name, "must be an object");
	*out = calloc(json_object_size(obj) + 1, sizeof **out);
	if (*out == NULL)
		return error_nomem(err);
	json_object_foreach((json_t *)obj, key, v) {
		jsonpath_format(f, sizeof f, "%s.%s", name, key);
		if (key[0] == '\0')
			return error_set_field(err, E_CONFIG, f, "empty name");
		k = projects ? path_expand(key, cfg->home, f, err) : strdup(key);
		if (k == NULL)
			return error_isset(err) ? -1 : error_nomem(err);
		if (config_find_binding(*out, *n, k) != NULL) {
			free(k);
			return error_set_field(err, E_CONFIG, f,
			    "the same project is named twice");
		}
		(*out)[(*n)++].key = k;
		if (config_parse_binding(cfg, &(*out)[*n - 1], v, f,
		    strcmp(name, "providers") == 0, err) == -1)
			return -1;
	}
	return 0;
}

/* Parse the "approvals" object. */
static int
config_parse_approvals(struct config *cfg, const json_t *obj, sbox_error *err)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, "approvals", "must be an object");
	json_object_foreach((json_t *)obj, key, v) {
		char f[CONFIG_FIELD_MAX];

		jsonpath_format(f, sizeof f, "approvals.%s", key);
		if (strcmp(key, "burst") == 0 || strcmp(key, "per_minute") == 0) {
			/* run-outside requests of one session (and its child
			 * sessions): waiting at once, asked in a minute */
			if (!json_is_integer(v) || json_integer_value(v) < 1 ||
			    json_integer_value(v) > 1000)
				return error_set_field(err, E_CONFIG, f,
				    "must be an integer from 1 to 1000");
			if (key[0] == 'b')
				cfg->approvals_burst = (int)json_integer_value(v);
			else
				cfg->approvals_per_minute = (int)json_integer_value(v);
			continue;
		}
		if (strcmp(key, "timeout_s") != 0)
			return error_set_field(err, E_CONFIG, f,
			    "unknown key (expected timeout_s, burst or per_minute)");
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > 86400)
			return error_set_field(err, E_CONFIG, "approvals.timeout_s",
			    "must be an integer from 0 (no limit) to 86400");
		cfg->approvals_timeout_s = json_integer_value(v);
	}
	return 0;
}

/* Parse the "terminal" object: {"drop_osc": bool}, whether what `sbox`
 * shows of a sandbox drops the sequences that act on the person's machine
 * (default true; the CLI reads it; --drop-osc/--keep-osc win). */
static int
config_parse_terminal(struct config *cfg, const json_t *obj, sbox_error *err)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return error_set_field(err, E_CONFIG, "terminal",
		    "must be an object");
	json_object_foreach((json_t *)obj, key, v) {
		if (strcmp(key, "drop_osc") != 0) {
			char f[CONFIG_FIELD_MAX];

			jsonpath_format(f, sizeof f, "terminal.%s", key);
			return error_set_field(err, E_CONFIG, f,
			    "unknown key (expected drop_osc)");
		}
		if (!json_is_boolean(v))
			return error_set_field(err, E_CONFIG, "terminal.drop_osc",
			    "must be true or false");
		cfg->terminal_drop_osc = json_is_true(v);
	}
	return 0;
}

/* Validate a parsed config document into a new config (no file context). */
static int
config_parse_root(struct config *cfg, const json_t *root, sbox_error *err)
{
	static const char *const keys[] = { "sandbox", "resolve", "spaces",
	    "projects", "providers", "models", "approvals", "terminal", "daemon", NULL };
	const char *key;
	json_t *v;
	size_t i;

	if (!json_is_object(root))
		return error_set(err, E_CONFIG, "the top level must be an object");
	json_object_foreach((json_t *)root, key, v) {
		for (i = 0; keys[i] != NULL; i++) {
			if (strcmp(keys[i], key) == 0)
				break;
		}
		if (keys[i] == NULL)
			return error_set_field(err, E_CONFIG, key,
			    "unknown key (expected sandbox, resolve, spaces, projects, providers, models, approvals, terminal or daemon)");
	}
	/* profiles first: everything else may name them */
	if ((v = json_object_get(root, "sandbox")) != NULL &&
	    config_parse_sandbox(cfg, v, err) == -1)
		return -1;
	if ((v = json_object_get(root, "resolve")) != NULL &&
	    profile_parse_resolve(v, "resolve", &cfg->resolve, &cfg->n_resolve,
	    err) == -1)
		return -1;
#define BINDINGS(name) \
	if ((v = json_object_get(root, #name)) != NULL && \
	    config_parse_bindings(cfg, v, #name, &cfg->name, &cfg->n_##name, err) == -1) \
		return -1
	BINDINGS(spaces);
	BINDINGS(projects);
	BINDINGS(providers);
	BINDINGS(models);
#undef BINDINGS
	if ((v = json_object_get(root, "approvals")) != NULL &&
	    config_parse_approvals(cfg, v, err) == -1)
		return -1;
	if ((v = json_object_get(root, "terminal")) != NULL &&
	    config_parse_terminal(cfg, v, err) == -1)
		return -1;
	if ((v = json_object_get(root, "daemon")) != NULL &&
	    config_parse_daemon(cfg, v, err) == -1)
		return -1;
	return 0;
}

/* An "unknown key (expected a, b or c)" error gets "did you mean b?" when
 * the key (the last part of its field) is close to one of those named. */
static void
config_suggest_key(sbox_error *err)
{
	static const char head[] = "unknown key (expected ";
	char list[sizeof err->message], *names[32], *p, *tok, *save;
	const char *key, *sugg;
	size_t n = 0, len;

	if (err == NULL || strcmp(err->name, E_CONFIG) != 0 ||
	    strncmp(err->message, head, sizeof head - 1) != 0)
		return;
	snprintf(list, sizeof list, "%s", err->message + sizeof head - 1);
	if ((p = strchr(list, ')')) != NULL)
		*p = '\0';
	for (tok = strtok_r(list, ", ", &save); tok != NULL && n < 31;
	    tok = strtok_r(NULL, ", ", &save))
		if (strcmp(tok, "or") != 0)
			names[n++] = tok;
	names[n] = NULL;
	key = (p = strrchr(err->field, '.')) != NULL ? p + 1 : err->field;
	if ((sugg = suggest_closest(key, (const char *const *)names)) == NULL)
		return;
	len = strlen(err->message);
	snprintf(err->message + len, sizeof err->message - len,
	    "; did you mean %s?", sugg);
}

/* Validate an already parsed config document. */
struct config *
config_parse(const json_t *root, const char *path, const char *home,
    sbox_error *err)
{
	struct config *cfg;

	if (path == NULL)
		path = "(config)";
	cfg = calloc(1, sizeof *cfg);
	if (cfg == NULL) {
		error_nomem(err);
		return NULL;
	}
	cfg->approvals_timeout_s = -1;
	cfg->terminal_drop_osc = 1;
	cfg->output_session_mb = cfg->output_total_mb = -1;
	cfg->disk_reserve_mb = -1;
	cfg->idle_close_s = -1;
	cfg->report_reads = 1;
	home = config_home(home);
	cfg->path = strdup(path);
	cfg->home = home ? strdup(home) : NULL;
	if (cfg->path == NULL || (home != NULL && cfg->home == NULL)) {
		config_free(cfg);
		error_nomem(err);
		return NULL;
	}
	if (config_parse_root(cfg, root, err) == -1) {
		config_suggest_key(err);
		if (err != NULL && err->field[0] != '\0')
			error_context(err, "%s: %s", path, err->field);
		else
			error_context(err, "%s", path);
		config_free(cfg);
		return NULL;
	}
	return cfg;
}

/* The profile called name (built-in or custom), as a copy. */
struct profile *
profile_get(const struct config *cfg, const char *name, sbox_error *err)
{
	const struct profile *p;

	if (name != NULL && profile_is_builtin(name))
		return profile_builtin(name, err);
	if (name == NULL || (p = config_find_profile(cfg, name)) == NULL) {
		char **names = profile_list(cfg);
		const char *sugg = name ? suggest_closest(name,
		    (const char *const *)names) : NULL;

		if (sugg != NULL)
			error_set_field(err, E_PROFILE_NOT_FOUND, "profile",
			    "no profile \"%s\" (did you mean \"%s\"?)", name, sugg);
		else
			error_set_field(err, E_PROFILE_NOT_FOUND, "profile",
			    "no profile \"%s\"", name ? name : "");
		strv_free(names);
		return NULL;
	}
	return profile_copy(p, err);
}

/* The names of all profiles, built-ins first. */
char **
profile_list(const struct config *cfg)
{
	char **out = NULL;
	size_t i;

	for (i = 0; profile_builtin_names[i] != NULL; i++) {
		if (strv_append(&out, profile_builtin_names[i]) == -1)
			goto fail;
	}
	for (i = 0; cfg != NULL && i < cfg->n_profiles; i++) {
		if (strv_append(&out, cfg->profiles[i]->name) == -1)
			goto fail;
	}
	return out;
fail:
	strv_free(out);
	return NULL;
}
