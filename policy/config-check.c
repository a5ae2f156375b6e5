/* config-check.c: every error of a config file, not only the first (for
 * `sbox config check`): parse, note the error, take the key it names out of
 * the document, parse again. */
#include "policy/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/hostpat.h"
#include "policy/strv.h"

#define CONFIG_CHECK_MAX 64

/* Remove the member a JSON path ("sandbox.profiles.a.hosts[1]") names;
 * object keys may hold dots (project folders): the longest key that fits
 * wins. Returns 0, or -1 when the path names nothing. */
static int
config_check_remove(json_t *node, const char *rest)
{
	const char *key, *best = NULL;
	size_t len, blen = 0;
	json_t *v;
	char *end;
	long idx;

	while (*rest != '\0') {
		if (json_is_array(node)) {
			if (*rest != '[')
				return -1;
			idx = strtol(rest + 1, &end, 10);
			if (*end != ']' || idx < 0 ||
			    (size_t)idx >= json_array_size(node))
				return -1;
			rest = end + 1;
			if (*rest == '\0')
				return json_array_remove(node, (size_t)idx);
			node = json_array_get(node, (size_t)idx);
		} else if (json_is_object(node)) {
			best = NULL;
			blen = 0;
			json_object_foreach(node, key, v) {
				len = strlen(key);
				if (len > blen && strncmp(rest, key, len) == 0 &&
				    (rest[len] == '\0' || rest[len] == '.' ||
				    rest[len] == '[')) {
					best = key;
					blen = len;
				}
			}
			if (best == NULL)
				return -1;
			if (rest[blen] == '\0')
				return json_object_del(node, best);
			node = json_object_get(node, best);
			rest += blen;
		} else
			return -1;
		if (*rest == '.')
			rest++;
	}
	return -1;
}

/* Check the config file at path (NULL: the default) and append each error
 * to errors as {"field", "message"}; returns how many (a file that cannot
 * be read or is not JSON is one error), or -1 with err without a home. */
int
config_check(const char *path, const char *home, json_t *errors,
    sbox_error *err)
{
	struct config *cfg;
	json_error_t jerr;
	json_t *root;
	char *def = NULL;
	sbox_error e;
	int n = 0;

	if (path == NULL && (path = def = config_default_path(home)) == NULL)
		return error_set(err, E_CONFIG, "no home folder: cannot find the "
		    "config");
	cfg = config_load_home(path, home, err);
	if (cfg != NULL || err->field[0] == '\0' || (root = json_load_file(path,
	    JSON_REJECT_DUPLICATES, &jerr)) == NULL) {
		if (cfg == NULL)
			json_array_append_new(errors, json_pack("{s:n, s:s}",
			    "field", "message", err->message));
		config_free(cfg);
		free(def);
		return cfg == NULL;
	}
	/* the file is JSON (an error names a key): take keys out one by one */
	e = *err;
	while (n < CONFIG_CHECK_MAX) {
		json_array_append_new(errors, json_pack("{s:s, s:s}", "field",
		    e.field, "message", e.message));
		n++;
		if (config_check_remove(root, e.field) == -1)
			break;
		error_clear(&e);
		if ((cfg = config_parse(root, path, home, &e)) != NULL) {
			config_free(cfg);
			break;
		}
		if (e.field[0] == '\0') {
			json_array_append_new(errors, json_pack("{s:n, s:s}", "field",
			    "message", e.message));
			n++;
			break;
		}
	}
	json_decref(root);
	free(def);
	return n;
}

/* Append a note "what: text" to notes. */
static void
config_check_note(json_t *notes, const char *what, const char *text)
{
	char *s;

	if (asprintf(&s, "%s%s%s", what ? what : "", what ? ": " : "", text) == -1)
		return;
	json_array_append_new(notes, json_string(s));
	free(s);
}

/* Notes for a list of host patterns: a "*.d" without "d" (subdomains only). */
static void
config_check_wildcards(char *const *hosts, const char *what, json_t *notes)
{
	char buf[1500];
	struct hostpat hp;
	size_t i;

	for (i = 0; hosts != NULL && hosts[i] != NULL; i++) {
		if (hostpat_parse(hosts[i], &hp, NULL) == -1 || !hp.wildcard ||
		    strv_contains(hosts, hp.name))
			continue;
		snprintf(buf, sizeof buf, "\"%s\" matches the subdomains of %s "
		    "only, not %s itself: add \"%s\" too if it is meant",
		    hosts[i], hp.name, hp.name, hp.name);
		config_check_note(notes, what, buf);
	}
}

/* Notes on a profile: hosts that have no effect in its network mode, and
 * "*.d" patterns without "d". A new array of strings. */
json_t *
config_check_profile_notes(const struct profile *p)
{
	json_t *notes = json_array();
	char what[300];

	if (notes == NULL || p == NULL)
		return notes;
	snprintf(what, sizeof what, "profile %s", p->name);
	if (p->sandboxed && p->hosts != NULL && p->hosts[0] != NULL &&
	    p->network == PROFILE_NET_NONE)
		config_check_note(notes, what, "its hosts have no effect: its "
		    "network is \"none\" (use \"network\": \"hosts\" to reach "
		    "only these hosts, or \"registries\")");
	else if (p->sandboxed && p->hosts != NULL && p->hosts[0] != NULL &&
	    p->network == PROFILE_NET_INTERNET)
		config_check_note(notes, what, "its hosts have no effect: its "
		    "network is \"internet\" (every public host)");
	config_check_wildcards(p->hosts, what, notes);
	return notes;
}

/* Notes on a valid config (see config_check_profile_notes; providers'
 * hosts too): appended to notes, how many. */
int
config_check_notes(const char *path, const char *home, json_t *notes)
{
	struct config *cfg;
	sbox_error err;
	char what[300];
	size_t i, before = json_array_size(notes);

	error_clear(&err);
	if ((cfg = config_load_home(path, home, &err)) == NULL)
		return 0;
	for (i = 0; i < cfg->n_profiles; i++) {
		json_t *one = config_check_profile_notes(cfg->profiles[i]);

		json_array_extend(notes, one);
		json_decref(one);
	}
	for (i = 0; i < cfg->n_providers; i++) {
		if (cfg->providers[i].builtin)
			continue;	/* the shipped file's are not the user's */
		snprintf(what, sizeof what, "provider %s", cfg->providers[i].key);
		config_check_wildcards(cfg->providers[i].hosts, what, notes);
	}
	config_free(cfg);
	return (int)(json_array_size(notes) - before);
}
