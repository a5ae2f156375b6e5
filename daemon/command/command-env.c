/* command-env.c: what a command starts with: its environment (the
 * session's, the variables the request may add, the proxy's for a run
 * outside taken out) and its folder (inside the project, normalised). */
#include "daemon/command/command-env.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include "daemon/command/command-io.h"
#include "daemon/rpc-call.h"
#include "daemon/container/container.h"
#include "daemon/container/diskguard.h"
#include "daemon/events.h"
#include "daemon/command/hostexec.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "policy/envfilter.h"
#include "policy/policy.h"
#include "policy/path.h"
#include "policy/strv.h"
#include "store/store.h"

/* An outside run does not go through the session's proxy (it listens in
 * the sandbox's network): drop the proxy variables the session set. */
static void
command_env_unproxy(char **env)
{
	static const char *const names[] = { "HTTP_PROXY=", "HTTPS_PROXY=",
	    "ALL_PROXY=", "NO_PROXY=", "http_proxy=", "https_proxy=",
	    "all_proxy=", "no_proxy=", NULL };
	size_t i, j, k;

	for (i = j = 0; env[i] != NULL; i++) {
		for (k = 0; names[k] != NULL; k++) {
			if (strncmp(env[i], names[k], strlen(names[k])) == 0)
				break;
		}
		if (names[k] != NULL)
			free(env[i]);
		else
			env[j++] = env[i];
	}
	env[j] = NULL;
}

/* The environment of a command: the session's, then the request's. */
char **
command_env(const struct command_params *p, sbox_error *err)
{
	char **env = NULL, **extra = NULL, **e;
	const char *k;
	json_t *v;
	int ok = 1;

	if (p->target != NULL) {
		/* A run outside: exactly the environment the person was shown. */
		if ((env = strv_copy(p->target->env, &ok)) == NULL || !ok)
			goto oom;
		return env;
	}
	env = strv_copy(p->s->env, &ok);
	if (!ok)
		goto oom;
	/* An empty environment is still one (NULL means failure here). */
	if (env == NULL && (env = calloc(1, sizeof *env)) == NULL)
		goto oom;
	if (p->outside)
		command_env_unproxy(env);
	if (p->env == NULL)
		return env;
	json_object_foreach(p->env, k, v) {
		char *kv;
		if (!json_is_string(v) || k[0] == '\0' || strchr(k, '=') != NULL) {
			strv_free(env);
			strv_free(extra);
			error_set_field(err, E_INVALID_PARAMS, "env",
			    "env values must be strings with valid names (%s)", k);
			return NULL;
		}
		if (asprintf(&kv, "%s=%s", k, json_string_value(v)) == -1 ||
		    strv_push(&extra, kv) == -1)
			goto oom;
	}
	if (!p->outside && p->s->plan->sandboxed) {
		char **kept = envfilter_command(extra, p->s->profile, err);
		strv_free(extra);
		if (kept == NULL) {
			strv_free(env);
			return NULL;
		}
		extra = kept;
	}
	for (e = extra; e && *e; e++) {
		size_t n = strcspn(*e, "=") + 1;
		char **o;
		for (o = env; o && *o; o++) {
			if (strncmp(*o, *e, n) == 0) {
				free(*o);
				*o = strdup(*e);
				break;
			}
		}
		if ((o == NULL || *o == NULL) && strv_append(&env, *e) == -1)
			goto oom;
	}
	strv_free(extra);
	return env;
oom:
	strv_free(env);
	strv_free(extra);
	error_nomem(err);
	return NULL;
}

/* The working folder: absolute, or relative to the project; normalised. */
char *
command_cwd(const struct command_params *p, sbox_error *err)
{
	const char *base = p->outside || p->s->plan->cwd == NULL ?
	    p->s->project : p->s->plan->cwd;
	char *out;

	if (p->target != NULL)
		return strdup(p->target->dir);
	if (p->cwd == NULL || p->cwd[0] == '\0')
		return strdup(base);
	/* spelled without '.', '..' or '//' (answers show it as it is) */
	if ((out = path_resolve(p->s->project, p->cwd)) == NULL)
		error_nomem(err);
	return out;
}
