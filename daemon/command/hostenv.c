/* hostenv.c: which variables a run-outside request may add to the person's
 * environment (a short allow list), and the environment the approved
 * command gets. */
#include "daemon/command/hostenv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/strv.h"

/* What a value of an allowed name may hold. */
enum hostenv_kind {
	HOSTENV_WORD,     /* [A-Za-z0-9_.+@:-]: locale, terminal, flag */
	HOSTENV_NUMBER,   /* digits */
	HOSTENV_ZONE,     /* a zone name: a WORD with '/' inside, never a path */
};

/* The only names a request may add to a run outside (an allow list: any
 * other name is dropped), each with the values it may take. None of them
 * names a file or a program, or changes what a program loads. Compared
 * exactly (case matters: the lower-case forms are not the same names). */
static const struct hostenv_allow {
	const char        *name;
	enum hostenv_kind  kind;
} hostenv_allowed[] = {
	{ "LANG", HOSTENV_WORD }, { "LANGUAGE", HOSTENV_WORD },
	{ "LC_ALL", HOSTENV_WORD }, { "LC_CTYPE", HOSTENV_WORD },
	{ "LC_NUMERIC", HOSTENV_WORD }, { "LC_TIME", HOSTENV_WORD },
	{ "LC_COLLATE", HOSTENV_WORD }, { "LC_MONETARY", HOSTENV_WORD },
	{ "LC_MESSAGES", HOSTENV_WORD }, { "LC_PAPER", HOSTENV_WORD },
	{ "LC_NAME", HOSTENV_WORD }, { "LC_ADDRESS", HOSTENV_WORD },
	{ "LC_TELEPHONE", HOSTENV_WORD }, { "LC_MEASUREMENT", HOSTENV_WORD },
	{ "LC_IDENTIFICATION", HOSTENV_WORD },
	{ "TERM", HOSTENV_WORD }, { "COLORTERM", HOSTENV_WORD },
	{ "COLUMNS", HOSTENV_NUMBER }, { "LINES", HOSTENV_NUMBER },
	{ "TZ", HOSTENV_ZONE },
	{ "NO_COLOR", HOSTENV_WORD }, { "FORCE_COLOR", HOSTENV_WORD },
	{ "CLICOLOR", HOSTENV_WORD }, { "CLICOLOR_FORCE", HOSTENV_WORD },
	{ "CI", HOSTENV_WORD }, { "SOURCE_DATE_EPOCH", HOSTENV_NUMBER },
};

/* The longest value an allowed name may take. */
#define HOSTENV_SAFE_VALUE 128

/* Is name a valid variable name ([A-Za-z_][A-Za-z0-9_]*)? */
static int
hostenv_valid_name(const char *name)
{
	const char *p;

	if (name == NULL || name[0] == '\0' || (name[0] >= '0' &&
	    name[0] <= '9'))
		return 0;
	for (p = name; *p != '\0'; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	}
	return 1;
}

/* The allow-list entry of name, or NULL. */
static const struct hostenv_allow *
hostenv_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof hostenv_allowed / sizeof hostenv_allowed[0]; i++)
		if (strcmp(hostenv_allowed[i].name, name) == 0)
			return &hostenv_allowed[i];
	return NULL;
}

/* NULL when a request may add name, else why not. */
const char *
hostenv_refused(const char *name)
{
	if (!hostenv_valid_name(name))
		return "not a valid variable name";
	if (hostenv_find(name) == NULL)
		return "not one of the names a run outside may take from a "
		    "request";
	return NULL;
}

/* NULL when a request may add name=value (len bytes), else why not. */
const char *
hostenv_refused_value(const char *name, const char *value, size_t len)
{
	const struct hostenv_allow *a;
	const char *why, *p;

	if ((why = hostenv_refused(name)) != NULL)
		return why;
	a = hostenv_find(name);
	if (value == NULL || strlen(value) != len || len > HOSTENV_SAFE_VALUE)
		return "its value is too long or holds a NUL";
	for (p = value; *p != '\0'; p++) {
		int word = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_.+@:-", *p) != NULL;
		if (a->kind == HOSTENV_NUMBER && !(*p >= '0' && *p <= '9'))
			return "its value must be a number";
		if (a->kind == HOSTENV_ZONE && *p == '/' && p != value &&
		    p[-1] != '/' && p[1] != '\0')
			continue;
		if (!word)
			return "its value could name a file";
	}
	/* a zone name is never a path of its own: "..", ":/x" */
	if (a->kind == HOSTENV_ZONE && (strstr(value, "..") != NULL ||
	    value[0] == ':'))
		return "its value could name a file";
	return NULL;
}

/* qsort comparison of two JSON strings. */
static int
hostenv_cmp(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
	    json_string_value(*(json_t *const *)b));
}

/* Sort an array of JSON strings in place. */
static void
hostenv_sort(json_t *arr)
{
	size_t n = json_array_size(arr), i;
	json_t **v;

	if (n < 2 || (v = calloc(n, sizeof *v)) == NULL)
		return;
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof *v, hostenv_cmp);
	json_array_clear(arr);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
}

/* Split a request's env into the added and the dropped variables. */
int
hostenv_filter(json_t *env, json_t **added, json_t **dropped, sbox_error *err)
{
	const char *k;
	json_t *v;

	*added = json_object();
	*dropped = json_array();
	if (*added == NULL || *dropped == NULL)
		goto oom;
	if (env == NULL || json_is_null(env))
		return 0;
	if (!json_is_object(env)) {
		error_set_field(err, E_INVALID_PARAMS, "env",
		    "env must be an object {NAME: VALUE}");
		goto fail;
	}
	if (json_object_size(env) > HOSTENV_MAX_VARS) {
		error_set_field(err, E_INVALID_PARAMS, "env", "at most %d "
		    "variables may be added to a run outside the sandbox",
		    HOSTENV_MAX_VARS);
		goto fail;
	}
	json_object_foreach(env, k, v) {
		if (!json_is_string(v) || json_string_length(v) >
		    HOSTENV_MAX_VALUE) {
			error_set_field(err, E_INVALID_PARAMS, "env", "env values "
			    "must be strings of at most %d bytes", HOSTENV_MAX_VALUE);
			goto fail;
		}
		/* Only allowed names with plain values (a NUL inside the
		 * value would cut it: refused, not cut). */
		if (hostenv_refused_value(k, json_string_value(v),
		    json_string_length(v)) != NULL) {
			if (json_array_append_new(*dropped, json_string(k)) == -1)
				goto oom;
		} else if (json_object_set(*added, k, v) == -1)
			goto oom;
	}
	hostenv_sort(*dropped);
	return 0;
oom:
	error_nomem(err);
fail:
	json_decref(*added);
	json_decref(*dropped);
	*added = *dropped = NULL;
	return -1;
}

/* Is the "NAME=VALUE" entry e one of names ("NAME=" each)? */
static int
hostenv_is(const char *e, const char *const *names)
{
	size_t i;

	for (i = 0; names[i] != NULL; i++) {
		if (strncmp(e, names[i], strlen(names[i])) == 0)
			return 1;
	}
	return 0;
}

/* Is the variable of the "NAME=VALUE" entry e one of added's names? */
static int
hostenv_in(const char *e, json_t *added)
{
	size_t n = strcspn(e, "=");
	const char *k;
	json_t *v;

	json_object_foreach(added, k, v) {
		if (strlen(k) == n && strncmp(e, k, n) == 0)
			return 1;
	}
	return 0;
}

/* The whole environment of a run outside. */
char **
hostenv_build(char *const *base, json_t *added, const char *pwd,
    sbox_error *err)
{
	static const char *const drop[] = { "PWD=", "OLDPWD=", "LISTEN_FDS=",
	    "LISTEN_PID=", "LISTEN_FDNAMES=", "NOTIFY_SOCKET=", "SBOX_CHANNEL_FD=",
	    NULL };
	char **env, *kv;
	const char *k;
	json_t *v;
	size_t i;

	if ((env = calloc(1, sizeof *env)) == NULL)
		goto oom;
	for (i = 0; base != NULL && base[i] != NULL; i++) {
		if (strchr(base[i], '=') == NULL || hostenv_is(base[i], drop))
			continue;
		if (hostenv_in(base[i], added))
			continue;   /* replaced below */
		if (strv_append(&env, base[i]) == -1)
			goto oom;
	}
	if (pwd != NULL) {
		if (asprintf(&kv, "PWD=%s", pwd) == -1 || strv_push(&env, kv) == -1)
			goto oom;
	}
	json_object_foreach(added, k, v) {
		if (asprintf(&kv, "%s=%s", k, json_string_value(v)) == -1 ||
		    strv_push(&env, kv) == -1)
			goto oom;
	}
	return env;
oom:
	strv_free(env);
	error_nomem(err);
	return NULL;
}
