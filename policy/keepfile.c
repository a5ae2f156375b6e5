/* keepfile.c: the state an agent's CLI keeps in a file of the home outside
 * its account folders. Claude Code keeps ~/.claude.json: onboarding, its
 * machine and user ids, per-project counters -- and also its MCP servers,
 * its approved API keys, the tools each project allows without asking and
 * whether it trusts a project, which the host's CLI acts on. So the file
 * is an allow list of keys, as an account folder is one of names: only
 * the listed keys are copied into the sandbox's home at the start and back
 * into the host's file after each command, and only values that cannot
 * hide anything (a scalar, or one level of scalars). Everything else of
 * the host's file stays as it is and is never shown inside. */
#include "policy/keepfile.h"

#include <stdlib.h>
#include <string.h>

#include "policy/strv.h"

/* Is v a scalar, or (nested 0) an object or array of scalars? */
static int
keepfile_plain(const json_t *v, int nested)
{
	const char *k;
	json_t *e;
	size_t i;

	if (!json_is_object(v) && !json_is_array(v))
		return 1;
	if (nested)
		return 0;
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, e)
			if (!keepfile_plain(e, 1))
				return 0;
		return 1;
	}
	json_array_foreach(v, i, e)
		if (!keepfile_plain(e, 1))
			return 0;
	return 1;
}

/* Copy into out what of doc the pattern's parts from part on allow. */
static int
keepfile_walk(const json_t *doc, char **parts, size_t part, json_t *out)
{
	const char *k;
	json_t *v, *sub;

	json_object_foreach((json_t *)doc, k, v) {
		if (strcmp(parts[part], "*") != 0 && strcmp(parts[part], k) != 0)
			continue;
		if (parts[part + 1] == NULL) {
			if (keepfile_plain(v, 0) && json_object_set(out, k,
			    v) == -1)
				return -1;
			continue;
		}
		if (!json_is_object(v))
			continue;
		if ((sub = json_object_get(out, k)) == NULL) {
			if ((sub = json_object()) == NULL ||
			    json_object_set_new(out, k, sub) == -1)
				return -1;
		} else if (!json_is_object(sub))
			continue;
		if (keepfile_walk(v, parts, part + 1, sub) == -1)
			return -1;
		if (json_object_size(sub) == 0)
			json_object_del(out, k);
	}
	return 0;
}

/* A new object of what the key patterns allow of doc. */
json_t *
keepfile_filter(const json_t *doc, char *const *patterns)
{
	json_t *out = json_object();
	char *copy, *save, *tok, **parts;
	size_t i;
	int rc;

	if (out == NULL || !json_is_object(doc))
		return out;
	for (i = 0; patterns != NULL && patterns[i] != NULL; i++) {
		if ((copy = strdup(patterns[i])) == NULL) {
			json_decref(out);
			return NULL;
		}
		parts = NULL;
		rc = 0;
		for (tok = strtok_r(copy, ".", &save); tok != NULL && rc == 0;
		    tok = strtok_r(NULL, ".", &save))
			rc = strv_append(&parts, tok);
		if (rc == 0 && parts != NULL)
			rc = keepfile_walk(doc, parts, 0, out);
		strv_free(parts);
		free(copy);
		if (rc == -1) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

/* Merge kept into host; 1 changed, 0 not, -1 ENOMEM. */
int
keepfile_merge(json_t *host, const json_t *kept)
{
	const char *k;
	json_t *v, *h;
	int changed = 0, rc;

	json_object_foreach((json_t *)kept, k, v) {
		h = json_object_get(host, k);
		if (json_is_object(v) && json_is_object(h)) {
			/* member by member: the host's other members stay */
			if ((rc = keepfile_merge(h, v)) == -1)
				return -1;
			changed |= rc;
			continue;
		}
		if (h != NULL && json_equal(h, v))
			continue;
		if (json_object_set(host, k, v) == -1)
			return -1;
		changed = 1;
	}
	return changed;
}

/* What of now differs from before. */
json_t *
keepfile_changed(const json_t *now, const json_t *before)
{
	json_t *out = json_object(), *v, *b, *sub;
	const char *k;

	if (out == NULL)
		return NULL;
	json_object_foreach((json_t *)now, k, v) {
		b = json_object_get(before, k);
		if (json_is_object(v) && json_is_object(b)) {
			if ((sub = keepfile_changed(v, b)) == NULL) {
				json_decref(out);
				return NULL;
			}
			if (json_object_size(sub) == 0)
				json_decref(sub);
			else if (json_object_set_new(out, k, sub) == -1) {
				json_decref(out);
				return NULL;
			}
			continue;
		}
		if ((b == NULL || !json_equal(v, b)) &&
		    json_object_set(out, k, v) == -1) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

/* The key patterns of file in account_keep, or NULL. */
char **
keepfile_patterns(char *const *account_keep, const char *file, int *ok)
{
	char **out = NULL;
	size_t i, n = strlen(file);

	for (i = 0; account_keep != NULL && account_keep[i] != NULL; i++)
		if (strncmp(account_keep[i], file, n) == 0 &&
		    account_keep[i][n] == '\t' && account_keep[i][n + 1] != '\0' &&
		    strv_append(&out, account_keep[i] + n + 1) == -1)
			*ok = 0;
	return out;
}
