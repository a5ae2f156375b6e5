/* init-spawnreq.c: a spawn message from sboxd, parsed and checked before
 * anything is forked: argv, env, cwd, stdio, a terminal's size, the
 * channel, the timeout and the rlimits (only those listed here). */
#include "daemon/init/init-msg.h"
#include "daemon/init/init-spawnreq.h"
#include "protocol/ctl.h"

#include <stdlib.h>
#include <string.h>

/* The rlimits a spawn message may set. */
static const struct {
	const char *key;
	int         resource;
} init_spawnreq_rlimits[INIT_NRLIMITS] = {
	{ "nofile", RLIMIT_NOFILE },
	{ "fsize",  RLIMIT_FSIZE },
	{ "as",     RLIMIT_AS },
	{ "nproc",  RLIMIT_NPROC },
	{ "core",   RLIMIT_CORE },
};

/* An array of NUL-free strings (1..max entries, total <= CTL_MSG_MAX) as a
 * NULL-terminated vector pointing into the JSON; NULL when invalid. */
static char **
init_spawnreq_strv(json_t *a, size_t min, size_t max, int need_eq)
{
	size_t i, n;
	char **v;
	json_t *s;

	if (!json_is_array(a) || (n = json_array_size(a)) < min || n > max)
		return NULL;
	if ((v = calloc(n + 1, sizeof *v)) == NULL)
		return NULL;
	json_array_foreach(a, i, s) {
		if (!json_is_string(s) ||
		    strlen(json_string_value(s)) != json_string_length(s) ||
		    (need_eq && (strchr(json_string_value(s), '=') == NULL ||
		    json_string_value(s)[0] == '='))) {
			free(v);
			return NULL;
		}
		v[i] = (char *)json_string_value(s);
	}
	return v;
}

/* Check a spawn message; fills r or returns a reason (see the header). */
const char *
init_spawnreq_parse(json_t *msg, int nfds, struct init_spawnreq *r)
{
	const char *stdio, *key;
	json_t *lim, *v;
	sbox_error err;
	size_t i;

	memset(r, 0, sizeof *r);
	r->id = json_object_get(msg, "id");
	if (!json_is_integer(r->id) || (r->idv = json_integer_value(r->id)) <
	    0 || r->idv > INIT_ID_MAX)
		return "id must be a non-negative integer";
	if ((r->argv = init_spawnreq_strv(json_object_get(msg, "argv"), 1,
	    CTL_ARGV_MAX, 0)) == NULL || r->argv[0][0] == '\0')
		return "argv must be 1 to 4096 strings, the first not empty";
	v = json_object_get(msg, "env");
	if (v == NULL)
		v = json_array();
	else
		json_incref(v);
	r->env = init_spawnreq_strv(v, 0, CTL_ENV_MAX, 1);
	json_decref(v);
	if (r->env == NULL)
		return "env must be up to 4096 NAME=VALUE strings";
	r->cwd = "/";
	if (json_object_get(msg, "cwd") != NULL &&
	    (r->cwd = init_msg_get_path(msg, "cwd")) == NULL)
		return "cwd must be an absolute path";
	stdio = init_msg_get_str(msg, "stdio", 8);
	if (stdio == NULL || (strcmp(stdio, "fds") != 0 &&
	    strcmp(stdio, "none") != 0 && strcmp(stdio, "tty") != 0))
		return "stdio must be \"fds\", \"tty\" or \"none\"";
	r->use_fds = strcmp(stdio, "fds") == 0;
	r->tty = strcmp(stdio, "tty") == 0;
	error_clear(&err);
	if (r->tty && ttysize_parse(json_object_get(msg, "tty"), "tty",
	    &r->size, &err) < 0)
		return "stdio \"tty\" needs tty {rows, cols}, each 1 to 4096";
	v = json_object_get(msg, "channel");
	if (v != NULL && !json_is_boolean(v))
		return "channel must be a boolean";
	r->channel = json_is_true(v);
	if (r->channel && !r->use_fds && !r->tty)
		return "channel needs stdio \"fds\" or \"tty\"";
	if (nfds != (r->use_fds ? 3 : 0) + r->channel)
		return "stdio \"fds\" takes exactly 3 descriptors, \"tty\" "
		    "and \"none\" 0 (one more with a channel)";
	v = json_object_get(msg, "timeout_ms");
	if (v != NULL && (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > ((json_int_t)1 << 40)))
		return "timeout_ms must be a non-negative integer";
	r->timeout_ms = v ? (long long)json_integer_value(v) : 0;
	v = json_object_get(msg, "kill_group");
	if (v != NULL && !json_is_boolean(v))
		return "kill_group must be a boolean";
	r->kill_group = json_is_true(v);
	lim = json_object_get(msg, "limits");
	if (lim != NULL && !json_is_object(lim))
		return "limits must be an object";
	json_object_foreach(lim, key, v) {
		for (i = 0; i < INIT_NRLIMITS; i++)
			if (strcmp(key, init_spawnreq_rlimits[i].key) == 0)
				break;
		if (i == INIT_NRLIMITS)
			return "unknown limit";
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return "limits must be non-negative integers";
		r->lim_res[r->nlimits] = init_spawnreq_rlimits[i].resource;
		r->lim_val[r->nlimits++] = (rlim_t)json_integer_value(v);
	}
	return NULL;
}
