/* envfilter.c: the clean sandbox environment and secret-name filtering. */
#include "policy/envfilter.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/strv.h"

static const char *const envfilter_secret_suffixes[] = {
	"_API_KEY", "_APIKEY", "_KEY", "_TOKEN", "_PASSWD", "_PASS",
	"_PASSPHRASE", "_CREDENTIALS", "_CREDENTIAL", "_PAT", "_AUTH",
	"_COOKIE", "_DSN", "DATABASE_URL", "_PRIVATE_KEY", NULL
};
static const char *const envfilter_secret_words[] = {
	"SECRET", "PASSWORD", NULL
};
static const char *const envfilter_secret_prefixes[] = {
	"AWS_", "AZURE_", NULL
};
static const char *const envfilter_secret_names[] = {
	"TOKEN", "API_KEY", "APIKEY", "SSH_AUTH_SOCK", "SSH_AGENT_PID",
	"GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "KRB5CCNAME",
	"GOOGLE_APPLICATION_CREDENTIALS", "KUBECONFIG", "DOCKER_AUTH_CONFIG",
	"NETRC", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", NULL
};
static const char *const envfilter_base[] = {
	"PATH", "LANG", "LANGUAGE", "TERM", "COLORTERM", "TZ", NULL
};

/* True when the variable name looks like it holds a secret. */
int
envfilter_is_secret(const char *name)
{
	char up[256];
	size_t i, n, sl;

	n = strlen(name);
	if (n >= sizeof up)
		return 1;	/* absurd names: fail closed */
	for (i = 0; i <= n; i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	for (i = 0; envfilter_secret_names[i] != NULL; i++) {
		if (strcmp(up, envfilter_secret_names[i]) == 0)
			return 1;
	}
	for (i = 0; envfilter_secret_prefixes[i] != NULL; i++) {
		if (strncmp(up, envfilter_secret_prefixes[i],
		    strlen(envfilter_secret_prefixes[i])) == 0)
			return 1;
	}
	for (i = 0; envfilter_secret_words[i] != NULL; i++) {
		if (strstr(up, envfilter_secret_words[i]) != NULL)
			return 1;
	}
	for (i = 0; envfilter_secret_suffixes[i] != NULL; i++) {
		sl = strlen(envfilter_secret_suffixes[i]);
		if (n >= sl && strcmp(up + n - sl, envfilter_secret_suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

/* True when name is in names (exact, or a "PREFIX*" entry). */
int
envfilter_named(char *const *names, const char *name)
{
	size_t i, n;

	for (i = 0; names != NULL && names[i] != NULL; i++) {
		n = strlen(names[i]);
		if (n > 0 && names[i][n - 1] == '*') {
			if (strncmp(name, names[i], n - 1) == 0)
				return 1;
		} else if (strcmp(name, names[i]) == 0)
			return 1;
	}
	return 0;
}

/* True when s is a valid profile env entry. */
int
envfilter_name_valid(const char *s)
{
	size_t i;

	if (s == NULL || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 1; s[i] != '\0'; i++) {
		if (s[i] == '*' && s[i + 1] == '\0')
			return 1;
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	}
	return i <= 255;
}

/* Length of the name part of "NAME=VALUE" (0 when there is no '='). */
static size_t
envfilter_name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq == NULL ? 0 : (size_t)(eq - entry);
}

/* The value of name in env, or NULL. */
static const char *
envfilter_get(char *const *env, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	}
	return NULL;
}

/* Set NAME=VALUE in *env, replacing an earlier NAME; -1 on ENOMEM. */
static int
envfilter_set(char ***env, const char *name, const char *value)
{
	size_t i, n = strlen(name);
	char *s;

	if (asprintf(&s, "%s=%s", name, value) == -1)
		return -1;
	for (i = 0; *env != NULL && (*env)[i] != NULL; i++) {
		if (strncmp((*env)[i], name, n) == 0 && (*env)[i][n] == '=') {
			free((*env)[i]);
			(*env)[i] = s;
			return 0;
		}
	}
	return strv_push(env, s);
}

/* True when the client variable belongs to the clean base set. */
static int
envfilter_is_base(const char *name)
{
	size_t i;

	if (strncmp(name, "LC_", 3) == 0)
		return 1;
	for (i = 0; envfilter_base[i] != NULL; i++) {
		if (strcmp(name, envfilter_base[i]) == 0)
			return 1;
	}
	return 0;
}

/* The sandbox environment for profile p. */
char **
envfilter_apply(char *const *client_env, const struct profile *p,
    const char *home, const char *user, sbox_error *err)
{
	char **out = NULL, name[256];
	size_t i, n;
	int rc = 0;

	for (i = 0; client_env != NULL && client_env[i] != NULL; i++) {
		n = envfilter_name_len(client_env[i]);
		if (n == 0 || n >= sizeof name)
			continue;
		memcpy(name, client_env[i], n);
		name[n] = '\0';
		if (envfilter_is_base(name) || envfilter_named(p->env, name))
			rc |= envfilter_set(&out, name, client_env[i] + n + 1);
	}
	if (envfilter_get(out, "PATH") == NULL)
		rc |= envfilter_set(&out, "PATH", "/usr/local/bin:/usr/bin:/bin");
	if (home == NULL)
		home = envfilter_get(client_env, "HOME");
	if (user == NULL)
		user = envfilter_get(client_env, "USER");
	if (home != NULL)
		rc |= envfilter_set(&out, "HOME", home);
	if (user != NULL) {
		rc |= envfilter_set(&out, "USER", user);
		rc |= envfilter_set(&out, "LOGNAME", user);
	}
	rc |= envfilter_set(&out, "TMPDIR", "/tmp");
	for (i = 0; p->env_values != NULL && p->env_values[i] != NULL; i++) {
		n = envfilter_name_len(p->env_values[i]);
		if (n == 0 || n >= sizeof name)
			continue;
		memcpy(name, p->env_values[i], n);
		name[n] = '\0';
		rc |= envfilter_set(&out, name, p->env_values[i] + n + 1);
	}
	if (rc != 0) {
		strv_free(out);
		error_nomem(err);
		return NULL;
	}
	return out;
}

/* A copy of a per-command environment without unnamed secret variables. */
char **
envfilter_command(char *const *env, const struct profile *p, sbox_error *err)
{
	char **out = NULL, name[256];
	size_t i, n;

	out = calloc(1, sizeof *out);
	if (out == NULL) {
		error_nomem(err);
		return NULL;
	}
	for (i = 0; env != NULL && env[i] != NULL; i++) {
		n = envfilter_name_len(env[i]);
		if (n == 0 || n >= sizeof name)
			continue;
		memcpy(name, env[i], n);
		name[n] = '\0';
		if (envfilter_is_secret(name) && !envfilter_named(p->env, name))
			continue;
		if (envfilter_set(&out, name, env[i] + n + 1) == -1) {
			strv_free(out);
			error_nomem(err);
			return NULL;
		}
	}
	return out;
}
