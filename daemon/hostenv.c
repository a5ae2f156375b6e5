/* hostenv.c: which variables a run-outside request may add to the person's
 * environment, and the environment the approved command gets. */
#include "daemon/hostenv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/strv.h"

enum hostenv_match { HOSTENV_EXACT, HOSTENV_PREFIX, HOSTENV_SUFFIX };

/* Names a request may never add (compared without regard to case, since
 * some programs read the lower-case form). Each says why. */
static const struct hostenv_rule {
	enum hostenv_match match;
	const char        *text;
	const char        *why;
} hostenv_rules[] = {
	{ HOSTENV_PREFIX, "LD_", "loads libraries into the program" },
	{ HOSTENV_PREFIX, "DYLD_", "loads libraries into the program" },
	{ HOSTENV_EXACT, "GCONV_PATH", "loads libraries into the program" },
	{ HOSTENV_PREFIX, "GLIBC_", "changes how the C library behaves" },
	{ HOSTENV_PREFIX, "MALLOC_", "changes how the C library behaves" },
	{ HOSTENV_EXACT, "LOCPATH", "changes how the C library behaves" },
	{ HOSTENV_EXACT, "NLSPATH", "changes how the C library behaves" },
	{ HOSTENV_EXACT, "HOSTALIASES", "changes name resolution" },
	{ HOSTENV_EXACT, "RESOLV_HOST_CONF", "changes name resolution" },
	{ HOSTENV_EXACT, "LOCALDOMAIN", "changes name resolution" },
	{ HOSTENV_EXACT, "PATH", "picks the programs that run" },
	{ HOSTENV_PREFIX, "GIT_", "changes what git runs and where" },
	{ HOSTENV_EXACT, "ENV", "a shell runs it at start" },
	{ HOSTENV_PREFIX, "BASH_", "a shell runs it at start" },
	{ HOSTENV_EXACT, "BASHOPTS", "changes how the shell behaves" },
	{ HOSTENV_EXACT, "SHELLOPTS", "changes how the shell behaves" },
	{ HOSTENV_EXACT, "IFS", "changes how the shell behaves" },
	{ HOSTENV_EXACT, "PS4", "changes how the shell behaves" },
	{ HOSTENV_EXACT, "PROMPT_COMMAND", "a shell runs it" },
	{ HOSTENV_EXACT, "CDPATH", "changes how the shell behaves" },
	{ HOSTENV_EXACT, "GLOBIGNORE", "changes how the shell behaves" },
	{ HOSTENV_EXACT, "ZDOTDIR", "a shell runs files from it" },
	{ HOSTENV_EXACT, "SHELL", "picks the programs that run" },
	{ HOSTENV_EXACT, "EDITOR", "picks the programs that run" },
	{ HOSTENV_EXACT, "VISUAL", "picks the programs that run" },
	{ HOSTENV_EXACT, "PAGER", "picks the programs that run" },
	{ HOSTENV_EXACT, "MANPAGER", "picks the programs that run" },
	{ HOSTENV_EXACT, "BROWSER", "picks the programs that run" },
	{ HOSTENV_PREFIX, "LESS", "less runs programs it names" },
	{ HOSTENV_SUFFIX, "_ASKPASS", "picks the programs that run" },
	{ HOSTENV_EXACT, "HOME", "picks the configuration programs read" },
	{ HOSTENV_PREFIX, "XDG_", "picks the configuration programs read" },
	{ HOSTENV_EXACT, "TMPDIR", "picks where programs write and run files" },
	{ HOSTENV_PREFIX, "PYTHON", "loads code into Python" },
	{ HOSTENV_PREFIX, "PERL", "loads code into Perl" },
	{ HOSTENV_PREFIX, "RUBY", "loads code into Ruby" },
	{ HOSTENV_PREFIX, "GEM_", "loads code into Ruby" },
	{ HOSTENV_PREFIX, "BUNDLE_", "loads code into Ruby" },
	{ HOSTENV_PREFIX, "NODE_", "loads code into Node.js" },
	{ HOSTENV_PREFIX, "NPM_CONFIG_", "changes what npm runs" },
	{ HOSTENV_PREFIX, "YARN_", "changes what yarn runs" },
	{ HOSTENV_PREFIX, "JAVA_", "loads code into Java" },
	{ HOSTENV_EXACT, "CLASSPATH", "loads code into Java" },
	{ HOSTENV_PREFIX, "DOTNET_", "loads code into .NET" },
	{ HOSTENV_PREFIX, "CORECLR_", "loads code into .NET" },
	{ HOSTENV_PREFIX, "COMPLUS_", "loads code into .NET" },
	{ HOSTENV_PREFIX, "CARGO_", "changes what cargo runs" },
	{ HOSTENV_PREFIX, "RUSTC", "picks the programs that run" },
	{ HOSTENV_PREFIX, "LUA_", "loads code into Lua" },
	{ HOSTENV_PREFIX, "PHP", "loads code into PHP" },
	{ HOSTENV_EXACT, "TCLLIBPATH", "loads code into Tcl" },
	{ HOSTENV_EXACT, "MAKEFLAGS", "changes what make runs" },
	{ HOSTENV_EXACT, "MAKEFILES", "changes what make runs" },
	{ HOSTENV_PREFIX, "PIP_", "changes what pip installs and runs" },
	{ HOSTENV_PREFIX, "DOCKER_", "changes what docker talks to" },
	{ HOSTENV_EXACT, "KUBECONFIG", "picks a configuration that runs programs" },
	{ HOSTENV_PREFIX, "AWS_", "picks a configuration that runs programs" },
	{ HOSTENV_PREFIX, "SSH_", "changes ssh and its agent" },
	{ HOSTENV_EXACT, "GNUPGHOME", "picks your keys" },
	{ HOSTENV_PREFIX, "TERMINFO", "feeds terminal descriptions to programs" },
	{ HOSTENV_PREFIX, "SSL_", "changes which certificates are trusted" },
	{ HOSTENV_PREFIX, "CURL_", "changes which certificates are trusted" },
	{ HOSTENV_SUFFIX, "_CA_BUNDLE", "changes which certificates are trusted" },
	{ HOSTENV_SUFFIX, "_CA_CERTS", "changes which certificates are trusted" },
	{ HOSTENV_SUFFIX, "_PROXY", "sends your traffic elsewhere" },
	{ HOSTENV_SUFFIX, "_OPTIONS", "passes options to a program" },
	{ HOSTENV_SUFFIX, "_OPTS", "passes options to a program" },
	{ HOSTENV_SUFFIX, "FLAGS", "passes options to a compiler or tool" },
	{ HOSTENV_SUFFIX, "_PATH", "a search path programs load code from" },
	{ HOSTENV_SUFFIX, "_HOME", "picks a tool's folder or configuration" },
	{ HOSTENV_SUFFIX, "_CONFIG", "picks a configuration" },
	{ HOSTENV_SUFFIX, "_CONFIG_FILE", "picks a configuration" },
	{ HOSTENV_EXACT, "CC", "picks the programs that run" },
	{ HOSTENV_EXACT, "CXX", "picks the programs that run" },
	{ HOSTENV_EXACT, "CPP", "picks the programs that run" },
	{ HOSTENV_EXACT, "LD", "picks the programs that run" },
	{ HOSTENV_EXACT, "AR", "picks the programs that run" },
	{ HOSTENV_PREFIX, "GO", "changes what go builds and runs" },
	{ HOSTENV_PREFIX, "MAVEN_", "changes what maven runs" },
	{ HOSTENV_PREFIX, "GRADLE_", "changes what gradle runs" },
	{ HOSTENV_PREFIX, "CONDA", "changes which Python runs" },
	{ HOSTENV_EXACT, "VIRTUAL_ENV", "changes which Python runs" },
	{ HOSTENV_PREFIX, "POETRY_", "changes what poetry runs" },
	{ HOSTENV_PREFIX, "PIPENV_", "changes what pipenv runs" },
	{ HOSTENV_PREFIX, "UV_", "changes what uv installs and runs" },
	{ HOSTENV_PREFIX, "R_", "loads code into R" },
	{ HOSTENV_PREFIX, "SBOX_", "belongs to sbox" },
	{ HOSTENV_PREFIX, "LISTEN_", "belongs to the service manager" },
	{ HOSTENV_EXACT, "NOTIFY_SOCKET", "belongs to the service manager" },
};

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

/* Does name match one rule of the table (without regard to case)? */
static int
hostenv_rule_matches(const struct hostenv_rule *r, const char *name)
{
	size_t n = strlen(name), t = strlen(r->text);

	switch (r->match) {
	case HOSTENV_EXACT:
		return strcasecmp(name, r->text) == 0;
	case HOSTENV_PREFIX:
		return n >= t && strncasecmp(name, r->text, t) == 0;
	case HOSTENV_SUFFIX:
		return n >= t && strcasecmp(name + n - t, r->text) == 0;
	}
	return 0;
}

/* NULL when a request may add name, else why not. */
const char *
hostenv_refused(const char *name)
{
	size_t i;

	if (!hostenv_valid_name(name))
		return "not a valid variable name";
	for (i = 0; i < sizeof hostenv_rules / sizeof hostenv_rules[0]; i++) {
		if (hostenv_rule_matches(&hostenv_rules[i], name))
			return hostenv_rules[i].why;
	}
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
		/* A NUL inside the value would cut it: refused, not cut. */
		if (hostenv_refused(k) != NULL || strlen(json_string_value(v)) !=
		    json_string_length(v)) {
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
