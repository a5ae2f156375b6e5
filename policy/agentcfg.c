/* agentcfg.c: the paths an agent's settings file names (agentcfg.h). Each
 * string value is decided by gitconfig_value_paths, as a git config value
 * of no special key: the same words, interpreters and `cd` rules. */
#include "policy/agentcfg.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gitconfig.h"
#include "policy/path.h"
#include "policy/strv.h"

#define AGENTCFG_DEPTH_MAX 64
#define AGENTCFG_KEY_MAX   400

/* One file's walk. */
struct agentcfg_walk {
	const struct agentcfg_where *w;
	char *const              *data;
	struct agentcfg_named    *out;
	char                     *dir;  /* the file's folder */
	sbox_error               *err;
};

/* Does the dotted key path key match the pattern pat ('*': one part)? */
static int
agentcfg_key_match(const char *pat, const char *key)
{
	size_t n;

	for (;;) {
		n = strcspn(pat, ".");
		if (n == 1 && pat[0] == '*') {
			if (*key == '\0' || *key == '.')
				return 0;
			key += strcspn(key, ".");
		} else {
			if (strncmp(pat, key, n) != 0 || (key[n] != '\0' &&
			    key[n] != '.'))
				return 0;
			key += n;
		}
		pat += n;
		if (*pat == '\0')
			return 1;	/* the key or something below it */
		if (*key == '\0')
			return 0;
		pat++;
		key++;
	}
}

/* Is the key path a data key of the provider? */
static int
agentcfg_is_data(const struct agentcfg_walk *k, const char *key)
{
	size_t i;

	for (i = 0; k->data != NULL && k->data[i] != NULL; i++)
		if (agentcfg_key_match(k->data[i], key))
			return 1;
	return 0;
}

/* The value v with the agents' own variables spelled out into buf
 * ($CLAUDE_PROJECT_DIR and ${...}: the project; $CODEX_HOME and
 * $CLAUDE_CONFIG_DIR: their account folders). */
static const char *
agentcfg_subst(const struct agentcfg_walk *k, const char *v, char *buf,
    size_t cap)
{
	static const char *const vars[] = { "CLAUDE_PROJECT_DIR",
	    "GEMINI_PROJECT_DIR", "CODEX_HOME", "CLAUDE_CONFIG_DIR", NULL };
	char home_codex[4096], home_claude[4096];
	const char *val[4], *name;
	size_t o = 0, i, n;
	int brace;

	snprintf(home_codex, sizeof home_codex, "%s/.codex", k->w->home ?
	    k->w->home : "");
	snprintf(home_claude, sizeof home_claude, "%s/.claude", k->w->home ?
	    k->w->home : "");
	val[0] = val[1] = k->w->project;
	val[2] = home_codex;
	val[3] = home_claude;
	while (*v != '\0' && o + 1 < cap) {
		if (*v == '$') {
			brace = v[1] == '{';
			name = v + 1 + brace;
			for (i = 0; vars[i] != NULL; i++) {
				n = strlen(vars[i]);
				if (strncmp(name, vars[i], n) == 0 && (!brace ||
				    name[n] == '}') && val[i] != NULL &&
				    (brace || !(name[n] == '_' ||
				    (name[n] >= 'A' && name[n] <= 'Z'))))
					break;
			}
			if (vars[i] != NULL) {
				n = strlen(val[i]);
				if (o + n + 1 >= cap)
					break;
				memcpy(buf + o, val[i], n);
				o += n;
				v = name + strlen(vars[i]) + brace;
				continue;
			}
		}
		buf[o++] = *v++;
	}
	buf[o] = '\0';
	return buf;
}

/* Add path (named by the setting by) to the walk's output, once. */
static int
agentcfg_add(struct agentcfg_walk *k, const char *path, const char *by)
{
	struct agentcfg_named *o = k->out;
	size_t i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->paths[i], path) == 0)
			return 0;
	if (o->n >= AGENTCFG_NAMED_MAX)
		return error_set(k->err, E_LIMIT, "the agents' settings name "
		    "more than %d paths", AGENTCFG_NAMED_MAX);
	if (strv_append(&o->paths, path) < 0 || strv_append(&o->by, by) < 0)
		return error_nomem(k->err);
	o->n++;
	return 0;
}

/* Decide one string value at the key path key (mkey: its form for the
 * data patterns, array indexes as parts). */
static int
agentcfg_value(struct agentcfg_walk *k, const char *key, const char *mkey,
    const char *value)
{
	char sub[GITCONFIG_VALUE_MAX + 1], by[AGENTCFG_SETTING_MAX];
	struct gitconfig_where gw = { 0 };
	const char *bases[2];
	char **paths = NULL;
	size_t i, b;
	int rc = 0;

	if (agentcfg_is_data(k, mkey))
		return 0;	/* (a longer value: its first GITCONFIG_VALUE_MAX
			   bytes are decided, as a git config value's) */
	agentcfg_subst(k, value, sub, sizeof sub);
	bases[0] = k->w->project;
	bases[1] = k->dir;
	for (b = 0; rc == 0 && b < 2; b++) {
		if (bases[b] == NULL || bases[b][0] != '/')
			continue;
		gw.top = gw.gitdir = bases[b];
		gw.home = k->w->home;
		rc = gitconfig_value_paths(&gw, "agent.value", sub, NULL, &paths,
		    k->err);
	}
	snprintf(by, sizeof by, "%s: %s", k->w->file, key[0] ? key :
	    "(the whole file)");
	for (i = 0; rc == 0 && paths != NULL && paths[i] != NULL; i++)
		rc = agentcfg_add(k, paths[i], by);
	strv_free(paths);
	return rc;
}

/* Walk a JSON value at the key path key (display form: a.b[2]) and mkey
 * (match form: a.b.2). */
static int
agentcfg_json(struct agentcfg_walk *k, json_t *v, const char *key,
    const char *mkey, int depth)
{
	char nk[AGENTCFG_KEY_MAX], nm[AGENTCFG_KEY_MAX];
	const char *name;
	json_t *e;
	size_t i;

	if (depth > AGENTCFG_DEPTH_MAX)	/* what lies deeper cannot be
					   skipped: refuse the file */
		return error_set(k->err, E_LIMIT, "%s nests deeper than %d "
		    "levels: what it names cannot be known", k->w->file,
		    AGENTCFG_DEPTH_MAX);
	if (json_is_string(v))
		return agentcfg_value(k, key, mkey, json_string_value(v));
	if (json_is_object(v)) {
		json_object_foreach(v, name, e) {
			snprintf(nk, sizeof nk, "%s%s%s", key, key[0] ? "." : "",
			    name);
			snprintf(nm, sizeof nm, "%s%s%s", mkey, mkey[0] ? "." : "",
			    name);
			if (agentcfg_json(k, e, nk, nm, depth + 1) < 0)
				return -1;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e) {
			snprintf(nk, sizeof nk, "%s[%zu]", key, i);
			snprintf(nm, sizeof nm, "%s%s%zu", mkey, mkey[0] ? "." : "",
			    i);
			if (agentcfg_json(k, e, nk, nm, depth + 1) < 0)
				return -1;
		}
	}
	return 0;
}

/* Read a string literal at *p (a quote of q; triple: three of them) into
 * buf (escapes of basic strings undone, roughly); *p moves past it. */
static void
agentcfg_literal(const char **p, const char *end, char q, int triple,
    char *buf, size_t cap)
{
	const char *s = *p + (triple ? 3 : 1);
	size_t o = 0;

	while (s < end) {
		if (triple ? (end - s >= 3 && s[0] == q && s[1] == q &&
		    s[2] == q) : *s == q) {
			s += triple ? 3 : 1;
			break;
		}
		if (!triple && *s == '\n')
			break;	/* an unterminated one ends with its line */
		if (q == '"' && *s == '\\' && s + 1 < end) {
			s++;
			if (o + 1 < cap)
				buf[o++] = *s == 'n' ? '\n' : *s == 't' ? '\t' :
				    *s;
			s++;
			continue;
		}
		if (o + 1 < cap)
			buf[o++] = *s;
		s++;
	}
	buf[o] = '\0';
	*p = s;
}

/* The scanner for TOML and for JSON that jansson refuses: every string
 * literal, with the `[table]` and `key =` (or `"key":`) it belongs to. */
static int
agentcfg_scan(struct agentcfg_walk *k, const char *text, size_t len,
    int toml)
{
	char table[AGENTCFG_KEY_MAX] = "", key[AGENTCFG_KEY_MAX] = "";
	char full[AGENTCFG_KEY_MAX * 2 + 2], *lit;
	const char *p = text, *end = text + len, *q;
	int line_start = 1, triple;
	size_t n;

	if ((lit = malloc(GITCONFIG_VALUE_MAX + 1)) == NULL)
		return error_nomem(k->err);
	while (p < end) {
		if (*p == '\n') {
			line_start = 1;
			p++;
			continue;
		}
		if (*p == ' ' || *p == '\t' || *p == '\r') {
			p++;
			continue;
		}
		if ((toml && *p == '#') || (!toml && *p == '/' && p + 1 < end &&
		    p[1] == '/')) {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (!toml && *p == '/' && p + 1 < end && p[1] == '*') {
			for (p += 2; p + 1 < end && !(p[0] == '*' && p[1] == '/');
			    p++)
				;
			p += 2;
			continue;
		}
		if (toml && line_start && *p == '[') {
			q = p;
			while (q < end && *q == '[')
				q++;
			n = strcspn(q, "]\n");
			if (q + n > end)
				n = (size_t)(end - q);
			snprintf(table, sizeof table, "%.*s", (int)n, q);
			key[0] = '\0';
			p = q + n;
			line_start = 0;
			continue;
		}
		if (*p == '"' || (toml && *p == '\'')) {
			triple = end - p >= 3 && p[1] == *p && p[2] == *p;
			agentcfg_literal(&p, end, *p, triple, lit,
			    GITCONFIG_VALUE_MAX + 1);
			for (q = p; q < end && (*q == ' ' || *q == '\t'); q++)
				;
			if (q < end && (*q == (toml ? '=' : ':') ||
			    (toml && *q == '.'))) {
				snprintf(key, sizeof key, "%s", lit); /* a key */
			} else {
				snprintf(full, sizeof full, "%s%s%s", table,
				    table[0] && key[0] ? "." : "", key);
				if (agentcfg_value(k, full, full, lit) < 0) {
					free(lit);
					return -1;
				}
			}
			line_start = 0;
			continue;
		}
		if (toml && line_start) {	/* a bare key = */
			n = strcspn(p, "=\n");
			if (p + n < end && p[n] == '=') {
				while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
					n--;
				snprintf(key, sizeof key, "%.*s", (int)n, p);
			}
		}
		line_start = 0;
		p++;
	}
	free(lit);
	return 0;
}

/* Every path a settings text names. */
int
agentcfg_parse(const char *text, size_t len, int toml,
    const struct agentcfg_where *w, char *const *data,
    struct agentcfg_named *out, sbox_error *err)
{
	struct agentcfg_walk k = { w, data, out, NULL, err };
	json_error_t je;
	json_t *j = NULL;
	char *slash;
	int rc;

	if (w == NULL || w->file == NULL || w->file[0] != '/')
		return error_set(err, E_INTERNAL, "agentcfg: no file");
	if (len > AGENTCFG_FILE_MAX)
		len = AGENTCFG_FILE_MAX;
	if ((k.dir = strdup(w->file)) == NULL)
		return error_nomem(err);
	if ((slash = strrchr(k.dir, '/')) != NULL)
		*(slash == k.dir ? slash + 1 : slash) = '\0';
	if (!toml)
		j = json_loadb(text, len, JSON_DECODE_ANY, &je);
	rc = j != NULL ? agentcfg_json(&k, j, "", "", 0) :
	    agentcfg_scan(&k, text, len, toml);
	json_decref(j);
	free(k.dir);
	return rc;
}

/* Release what out owns. */
void
agentcfg_named_free(struct agentcfg_named *out)
{
	strv_free(out->paths);
	strv_free(out->by);
	memset(out, 0, sizeof *out);
}
