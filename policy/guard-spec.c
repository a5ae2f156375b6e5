/* guard-spec.c: the file guard's spec as JSON, the form in which sboxd
 * sends it to sbox-init (which validates it: it comes over the control
 * socket). */
#include "policy/guard.h"
#include "policy/exclude.h"
#include "policy/plan.h"
#include "policy/strv.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const guard_spec_access[] = { "hidden", "ro", "rw" };

/* The path rules as one flat array [path, access, rule, path, ...]: no
 * object a rule (sbox-init parses it before any command may run, and a
 * JSON object costs it several times its array's time). */
static json_t *
guard_spec_rules_json(const struct guard_spec *s)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < s->n_rules; i++)
		if (json_array_append_new(a, json_string(s->rules[i].path)) < 0 ||
		    json_array_append_new(a, json_string(guard_spec_access[
		    s->rules[i].access])) < 0 ||
		    json_array_append_new(a, json_string(s->rules[i].rule)) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* The protected names as one string, a line each: "KIND SCOPE NAME
 * COMMENT" (a name holds no space, '#' or newline, a comment no control
 * character: what guard_entry_add accepted splits back exactly). */
static json_t *
guard_spec_table_json(const struct guard_table *t)
{
	size_t i, len = 0, at = 0;
	json_t *j;
	char *buf;
	int n;

	for (i = 0; i < t->n; i++)
		len += strlen(t->e[i].name) + strlen(t->e[i].comment) + 32;
	if ((buf = malloc(len + 1)) == NULL)
		return NULL;
	buf[0] = '\0';
	for (i = 0; i < t->n; i++) {
		n = snprintf(buf + at, len + 1 - at, "%s %s %s%s %s\n",
		    guard_kind_name(t->e[i].kind),
		    guard_scope_name(t->e[i].scope), t->e[i].name,
		    t->e[i].is_dir ? "/" : "", t->e[i].comment);
		if (n < 0 || (size_t)n > len - at) {
			free(buf);
			return NULL;
		}
		at += (size_t)n;
	}
	j = json_stringn(buf, at);
	free(buf);
	return j;
}

static int guard_abs_ok(const char *p, size_t len);

/* Is pat a writable pattern: relative, no "." or ".." component, no
 * empty one but a final '/', not too long? */
static int
guard_spec_pattern_ok(const char *pat)
{
	size_t n = strlen(pat);
	const char *c;

	if (n == 0 || n > GUARD_NAME_MAX || pat[0] == '/' ||
	    strstr(pat, "//") != NULL)
		return 0;
	for (c = pat; c != NULL && *c != '\0'; c = strchr(c, '/')) {
		if (*c == '/' && *++c == '\0')
			break;
		if (strncmp(c, "./", 2) == 0 || strcmp(c, ".") == 0 ||
		    strncmp(c, "../", 3) == 0 || strcmp(c, "..") == 0)
			return 0;
	}
	return 1;
}

/* Add an account folder with its writable patterns. */
int
guard_spec_add_account(struct guard_spec *s, const char *root,
    char *const *writable, sbox_error *err)
{
	struct guard_account *a;
	size_t i, n = 0;
	int ok = 1;

	if (root == NULL || !guard_abs_ok(root, strlen(root)) ||
	    strcmp(root, "/") == 0)
		return error_set(err, E_INVALID_PARAMS, "guard: an account "
		    "folder is an absolute normalised path below /");
	if (s->n_accounts >= GUARD_ACCOUNTS_MAX)
		return error_set(err, E_LIMIT, "guard: more than %d account "
		    "folders", GUARD_ACCOUNTS_MAX);
	for (i = 0; writable != NULL && writable[i] != NULL; i++, n++)
		if (!guard_spec_pattern_ok(writable[i]))
			return error_set(err, E_INVALID_PARAMS, "guard: \"%s\" "
			    "is not a writable pattern of an account folder "
			    "(relative, no . or .. parts)", writable[i]);
	if (n > GUARD_WRITABLE_MAX)
		return error_set(err, E_LIMIT, "guard: more than %d writable "
		    "patterns in %s", GUARD_WRITABLE_MAX, root);
	if ((a = realloc(s->accounts, (s->n_accounts + 1) * sizeof *a)) ==
	    NULL)
		return error_nomem(err);
	s->accounts = a;
	a += s->n_accounts;
	a->root = strdup(root);
	a->writable = writable != NULL && writable[0] != NULL ?
	    strv_copy(writable, &ok) : calloc(1, sizeof(char *));
	if (a->root == NULL || a->writable == NULL || !ok) {
		free(a->root);
		strv_free(a->writable);
		return error_nomem(err);
	}
	s->n_accounts++;
	return 0;
}

/* The account folders as [{root, writable}], or NULL when there are
 * none. */
static json_t *
guard_spec_accounts_json(const struct guard_spec *s)
{
	json_t *a;
	size_t i;

	if (s->n_accounts == 0 || (a = json_array()) == NULL)
		return NULL;
	for (i = 0; i < s->n_accounts; i++)
		json_array_append_new(a, json_pack("{s:s,s:o}", "root",
		    s->accounts[i].root, "writable",
		    strv_json(s->accounts[i].writable)));
	return a;
}

/* Parse "accounts" (absent: none) into s. */
static int
guard_spec_accounts(struct guard_spec *s, json_t *a, sbox_error *err)
{
	json_t *v, *w, *e;
	char **pats;
	size_t i, k;
	int rc;

	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > GUARD_ACCOUNTS_MAX)
		return error_set(err, E_INVALID_PARAMS, "guard: accounts (at "
		    "most %d)", GUARD_ACCOUNTS_MAX);
	json_array_foreach(a, i, v) {
		w = json_object_get(v, "writable");
		if (!json_is_object(v) || !json_is_string(json_object_get(v,
		    "root")) || !json_is_array(w) || json_array_size(w) >
		    GUARD_WRITABLE_MAX)
			return error_set(err, E_INVALID_PARAMS, "guard: "
			    "accounts[%zu] is {root, writable: [at most %d "
			    "patterns]}", i, GUARD_WRITABLE_MAX);
		if ((pats = calloc(json_array_size(w) + 1, sizeof *pats)) ==
		    NULL)
			return error_nomem(err);
		json_array_foreach(w, k, e) {
			if (!json_is_string(e) || strlen(json_string_value(e)) !=
			    json_string_length(e)) {
				strv_free(pats);
				return error_set(err, E_INVALID_PARAMS, "guard: "
				    "accounts[%zu].writable[%zu]", i, k);
			}
			pats[k] = (char *)json_string_value(e);
		}
		rc = guard_spec_add_account(s, json_string_value(json_object_get(
		    v, "root")), pats, err);
		free(pats);	/* (the strings are the JSON's) */
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The spec as JSON. */
json_t *
guard_spec_to_json(const struct guard_spec *s)
{
	json_t *roots = json_array(), *j;
	size_t i;

	for (i = 0; roots != NULL && s->roots != NULL && s->roots[i] != NULL;
	    i++)
		json_array_append_new(roots, json_string(s->roots[i]));
	j = json_pack("{s:o?,s:s,s:o?,s:o?,s:o?,s:b,s:o?,s:o?}", "roots",
	    roots, "home", s->home ? s->home : "/", "protected",
	    guard_spec_table_json(&s->table), "missing", strv_json(
	    s->missing), "rules", guard_spec_rules_json(s), "supervise",
	    s->supervise, "exclude", s->exclude ? strv_json(s->exclude) : NULL,
	    "nosock", s->nosock ? strv_json(s->nosock) : NULL);
	if (j != NULL && s->private_dirs != NULL && json_object_set_new(j,
	    "private", strv_json(s->private_dirs)) < 0) {
		json_decref(j);
		return NULL;
	}
	if (j != NULL && s->n_accounts > 0 && json_object_set_new(j,
	    "accounts", guard_spec_accounts_json(s)) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* An absolute path without "//", "/./", "/../", a trailing '/' or NUL. */
static int
guard_abs_ok(const char *p, size_t len)
{
	if (len == 0 || len > GUARD_PATH_MAX || p[0] != '/' ||
	    strlen(p) != len)
		return 0;
	if (len == 1)
		return 1;
	return p[len - 1] != '/' && strstr(p, "//") == NULL &&
	    strstr(p, "/./") == NULL && strstr(p, "/../") == NULL &&
	    !(len >= 2 && strcmp(p + len - 2, "/.") == 0) &&
	    !(len >= 3 && strcmp(p + len - 3, "/..") == 0);
}

/* A list of the spec's absolute paths from JSON (absent: none). */
static int
guard_spec_paths(char ***out, const char *key, json_t *a, sbox_error *err)
{
	size_t i, n;
	json_t *v;

	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_array(a) || (n = json_array_size(a)) > GUARD_MISSING_MAX)
		return error_set(err, E_INVALID_PARAMS, "guard: %s (at most "
		    "%d absolute paths)", key, GUARD_MISSING_MAX);
	if ((*out = calloc(n + 1, sizeof **out)) == NULL)
		return error_nomem(err);
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || !guard_abs_ok(json_string_value(v),
		    json_string_length(v)))
			return error_set(err, E_INVALID_PARAMS, "guard: %s[%zu] "
			    "is not an absolute normalised path", key, i);
		if (((*out)[i] = strdup(json_string_value(v))) == NULL)
			return error_nomem(err);
	}
	return 0;
}

/* Append a path rule (one past the bounds is skipped); 0 or -1. */
int
guard_spec_add_rule(struct guard_spec *s, const char *path,
    enum guard_access access, const char *rule)
{
	struct guard_rule *r;

	if (s->n_rules >= GUARD_RULES_MAX || !guard_abs_ok(path, strlen(path)) ||
	    strlen(rule) > GUARD_RULE_MAX)
		return 0; /* skipped: a report lost, nothing enforced less */
	if ((r = realloc(s->rules, (s->n_rules + 1) * sizeof *r)) == NULL)
		return -1;
	s->rules = r;
	r += s->n_rules;
	r->access = access;
	r->path = strdup(path);
	r->rule = strdup(rule);
	if (r->path == NULL || r->rule == NULL) {
		free(r->path);
		free(r->rule);
		return -1;
	}
	s->n_rules++;
	return 0;
}

/* Add rule number i (path, access, rule as received: lengths given, a NUL
 * inside refused) to the spec after checking it; 0 or -1 with err. */
static int
guard_spec_rule(struct guard_spec *s, size_t i, const char *p, size_t plen,
    const char *access, const char *r, size_t rlen, sbox_error *err)
{
	size_t k;

	for (k = 0; access != NULL && k < 3; k++)
		if (strcmp(access, guard_spec_access[k]) == 0)
			break;
	if (p == NULL || !guard_abs_ok(p, plen) || access == NULL || k == 3 ||
	    r == NULL || rlen > GUARD_RULE_MAX || strlen(r) != rlen)
		return error_set(err, E_INVALID_PARAMS, "guard: rules[%zu] "
		    "is not path, access (hidden|ro|rw), rule", i);
	if (guard_spec_add_rule(s, p, (enum guard_access)k, r) < 0)
		return error_nomem(err);
	return 0;
}

/* The spec's path rules from their flat JSON array (absent: none). */
static int
guard_spec_rules(struct guard_spec *s, json_t *a, sbox_error *err)
{
	json_t *p, *r;
	size_t i, n;

	if (a == NULL)
		return 0;
	if (!json_is_array(a) || (n = json_array_size(a)) % 3 != 0 ||
	    n / 3 > GUARD_RULES_MAX)
		return error_set(err, E_INVALID_PARAMS, "guard: rules (at most "
		    "%d, as [path, access, rule, ...])", GUARD_RULES_MAX);
	for (i = 0; i < n; i += 3) {
		p = json_array_get(a, i);
		r = json_array_get(a, i + 2);
		if (guard_spec_rule(s, i / 3, json_string_value(p),
		    json_string_length(p), json_string_value(json_array_get(a,
		    i + 1)), json_string_value(r), json_string_length(r),
		    err) < 0)
			return -1;
	}
	return 0;
}

/* The spec's path rules from the bulk: len bytes of NUL-terminated
 * strings, path, access, rule for each. */
static int
guard_spec_rules_bulk(struct guard_spec *s, const char *b, size_t len,
    sbox_error *err)
{
	const char *f[3], *end = b + len, *z;
	size_t i, k;

	if (len > 0 && b[len - 1] != '\0')
		return error_set(err, E_INVALID_PARAMS, "guard: the rules do not "
		    "end with their last string's NUL");
	for (i = 0; b < end; i++) {
		if (i >= GUARD_RULES_MAX)
			return error_set(err, E_INVALID_PARAMS, "guard: rules (at "
			    "most %d)", GUARD_RULES_MAX);
		for (k = 0; k < 3; k++) {
			if (b >= end)
				return error_set(err, E_INVALID_PARAMS, "guard: "
				    "rules[%zu] is not path, access, rule", i);
			f[k] = b;
			z = memchr(b, '\0', (size_t)(end - b));
			b = z + 1;
		}
		if (guard_spec_rule(s, i, f[0], strlen(f[0]), f[1], f[2],
		    strlen(f[2]), err) < 0)
			return -1;
	}
	return 0;
}

/* The protected names from their lines, len bytes ("KIND SCOPE NAME
 * COMMENT", the comment possibly empty), each checked by guard_entry_add. */
static int
guard_spec_table(struct guard_table *t, const char *text, size_t len,
    sbox_error *err)
{
	char *buf, *line, *next, *f[3];
	size_t lineno = 0;
	int i, rc = 0;

	if (text == NULL || memchr(text, '\0', len) != NULL)
		return error_set(err, E_INVALID_PARAMS, "guard: protected is "
		    "not its lines");
	if ((buf = strndup(text, len)) == NULL)
		return error_nomem(err);
	for (line = buf; rc == 0 && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) == NULL) {
			rc = -1;	/* every line ends */
			break;
		}
		*next++ = '\0';
		for (i = 0; i < 3; i++) {
			f[i] = line;
			if ((line = strchr(line, ' ')) == NULL)
				break;
			*line++ = '\0';
		}
		rc = i < 3 || guard_entry_add(t, f[0], f[1], f[2], line, err) < 0 ?
		    -1 : 0;
		lineno++;
	}
	free(buf);
	if (rc < 0)
		return error_set(err, E_INVALID_PARAMS, "guard: protected[%zu] is "
		    "not a valid entry", lineno);
	return 0;
}

/* The rule that decides path: the longest matching one, later on a tie. */
const struct guard_rule *
guard_spec_explain(const struct guard_spec *s, const char *path)
{
	const struct guard_rule *best = NULL;
	size_t i, n, bn = 0;

	for (i = 0; i < s->n_rules; i++) {
		n = strlen(s->rules[i].path);
		if (n == 1) {
			if (path[0] != '/')
				continue;
			n = 0;
		} else if (strncmp(path, s->rules[i].path, n) != 0 ||
		    (path[n] != '\0' && path[n] != '/'))
			continue;
		if (best == NULL || n >= bn) {
			best = &s->rules[i];
			bn = n;
		}
	}
	return best;
}

/* Parse and validate a spec (what sbox-init receives). */
int
guard_spec_from_json(struct guard_spec *s, json_t *j, sbox_error *err)
{
	return guard_spec_from_msg(s, j, NULL, 0, err);
}

/* Parse and validate a spec whose bulk, when "bulk" [n1, n2] says so, is
 * the first n1 + n2 of the len bytes at bulk (guard_spec_bulk_out). */
int
guard_spec_from_msg(struct guard_spec *s, json_t *j, const char *bulk,
    size_t len, sbox_error *err)
{
	json_t *roots = json_object_get(j, "roots");
	json_t *home = json_object_get(j, "home");
	json_t *prot = json_object_get(j, "protected");
	json_t *sup = json_object_get(j, "supervise"), *v;
	json_t *bk = json_object_get(j, "bulk");
	json_int_t n1 = 0, n2 = 0;
	size_t i, nr;
	int rc;

	memset(s, 0, sizeof *s);
	if (bk != NULL && (json_unpack(bk, "[II!]", &n1, &n2) < 0 || n1 < 0 ||
	    n2 < 0 || bulk == NULL || (size_t)n1 > len ||
	    (size_t)n2 > len - (size_t)n1 || prot != NULL ||
	    json_object_get(j, "rules") != NULL))
		return error_set(err, E_INVALID_PARAMS, "guard: bulk is [the "
		    "protected names' bytes, the rules' bytes] of what came "
		    "with the message, and replaces protected and rules");
	if (!json_is_array(roots) || (nr = json_array_size(roots)) >
	    GUARD_ROOTS_MAX || !json_is_string(home) ||
	    !guard_abs_ok(json_string_value(home), json_string_length(home)) ||
	    (bk == NULL && !json_is_string(prot)) || !json_is_boolean(sup))
		return error_set(err, E_INVALID_PARAMS, "guard: roots (at most "
		    "%d absolute paths), home, protected and supervise",
		    GUARD_ROOTS_MAX);
	s->supervise = json_is_true(sup);
	if ((s->roots = calloc(nr + 1, sizeof *s->roots)) == NULL ||
	    (s->home = strdup(json_string_value(home))) == NULL)
		goto nomem;
	json_array_foreach(roots, i, v) {
		if (!json_is_string(v) || !guard_abs_ok(json_string_value(v),
		    json_string_length(v))) {
			guard_spec_free(s);
			return error_set(err, E_INVALID_PARAMS, "guard: roots[%zu] "
			    "is not an absolute normalised path", i);
		}
		if ((s->roots[i] = strdup(json_string_value(v))) == NULL)
			goto nomem;
	}
	rc = bk != NULL ? guard_spec_rules_bulk(s, bulk + n1, (size_t)n2, err) :
	    guard_spec_rules(s, json_object_get(j, "rules"), err);
	if (rc < 0 || guard_spec_paths(&s->missing, "missing",
	    json_object_get(j, "missing"), err) < 0 ||
	    guard_spec_paths(&s->nosock, "nosock", json_object_get(j, "nosock"),
	    err) < 0 || guard_spec_paths(&s->private_dirs, "private",
	    json_object_get(j, "private"), err) < 0 || exclude_from_json(&s->exclude, json_object_get(j,
	    "exclude"), err) < 0 || guard_spec_accounts(s, json_object_get(j,
	    "accounts"), err) < 0) {
		guard_spec_free(s);
		return -1;
	}
	rc = bk != NULL ? guard_spec_table(&s->table, bulk, (size_t)n1, err) :
	    guard_spec_table(&s->table, json_string_value(prot),
	    json_string_length(prot), err);
	if (rc < 0) {
		guard_spec_free(s);
		return -1;
	}
	return 0;
nomem:
	guard_spec_free(s);
	return error_nomem(err);
}

/* Move the bulk of a spec's JSON (guard_spec_to_json's) out: "protected"
 * and "rules" are replaced by "bulk": [n1, n2], and *buf (malloc'd) holds
 * the n1 bytes of the protected names' lines, then the n2 bytes of the
 * rules as NUL-terminated strings (path, access, rule for each). jansson
 * parses long strings at ~20 ns a byte; these are copied. 0 or -1. */
int
guard_spec_bulk_out(json_t *j, char **buf, size_t *len, sbox_error *err)
{
	json_t *prot = json_object_get(j, "protected");
	json_t *rules = json_object_get(j, "rules"), *v;
	size_t n1, n2 = 0, i;
	char *b;

	*buf = NULL;
	*len = 0;
	if (!json_is_string(prot) || (rules != NULL && !json_is_array(rules)))
		return error_set(err, E_INTERNAL, "guard: no protected names");
	n1 = json_string_length(prot);
	json_array_foreach(rules, i, v) {
		if (!json_is_string(v) || strlen(json_string_value(v)) !=
		    json_string_length(v))
			return error_set(err, E_INTERNAL, "guard: rules[%zu]", i);
		n2 += json_string_length(v) + 1;
	}
	if ((b = malloc(n1 + n2 + 1)) == NULL)
		return error_nomem(err);
	memcpy(b, json_string_value(prot), n1);
	*len = n1;
	json_array_foreach(rules, i, v) {
		memcpy(b + *len, json_string_value(v), json_string_length(v) + 1);
		*len += json_string_length(v) + 1;
	}
	if (json_object_set_new(j, "bulk", json_pack("[II]", (json_int_t)n1,
	    (json_int_t)n2)) < 0) {
		free(b);
		*len = 0;
		return error_nomem(err);
	}
	json_object_del(j, "protected");
	json_object_del(j, "rules");
	*buf = b;
	return 0;
}

/* Release what the spec owns. */
void
guard_spec_free(struct guard_spec *s)
{
	size_t i;

	for (i = 0; s->roots != NULL && s->roots[i] != NULL; i++)
		free(s->roots[i]);
	free(s->roots);
	for (i = 0; s->missing != NULL && s->missing[i] != NULL; i++)
		free(s->missing[i]);
	free(s->missing);
	for (i = 0; s->nosock != NULL && s->nosock[i] != NULL; i++)
		free(s->nosock[i]);
	free(s->nosock);
	strv_free(s->private_dirs);
	for (i = 0; i < s->n_accounts; i++) {
		free(s->accounts[i].root);
		strv_free(s->accounts[i].writable);
	}
	free(s->accounts);
	for (i = 0; s->exclude != NULL && s->exclude[i] != NULL; i++)
		free(s->exclude[i]);
	free(s->exclude);
	for (i = 0; i < s->n_rules; i++) {
		free(s->rules[i].path);
		free(s->rules[i].rule);
	}
	free(s->rules);
	free(s->home);
	guard_table_free(&s->table);
	memset(s, 0, sizeof *s);
}

/* Append the protected paths of a JSON array to the spec's missing ones
 * (all checked first: none is added when one is invalid). */
int
guard_spec_add_missing(struct guard_spec *s, json_t *a, sbox_error *err)
{
	size_t i, n, have = 0;
	json_t *v;
	char **m;

	while (s->missing != NULL && s->missing[have] != NULL)
		have++;
	if (!json_is_array(a) || have > GUARD_MISSING_MAX ||
	    (n = json_array_size(a)) > GUARD_MISSING_MAX - have)
		return error_set(err, E_INVALID_PARAMS, "guard: missing (at most "
		    "%d absolute paths)", GUARD_MISSING_MAX);
	json_array_foreach(a, i, v)
		if (!json_is_string(v) || !guard_abs_ok(json_string_value(v),
		    json_string_length(v)))
			return error_set(err, E_INVALID_PARAMS, "guard: missing[%zu] "
			    "is not an absolute normalised path", i);
	if ((m = realloc(s->missing, (have + n + 1) * sizeof *m)) == NULL)
		return error_nomem(err);
	s->missing = m;
	m[have] = NULL;
	json_array_foreach(a, i, v) {
		if ((m[have] = strdup(json_string_value(v))) == NULL)
			return error_nomem(err);
		m[++have] = NULL;
	}
	return 0;
}
