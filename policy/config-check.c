/* config-check.c: every error of a config file, not only the first (for
 * `sbox config check`): parse, note the error, take the key it names out of
 * the document, parse again. */
#include "policy/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
