/* cmd-run.c: sbox run: a one-shot session around one command. */
#include "client/client.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int cmd_session_run_params(const struct client_opts *o, struct client *cl,
    json_t *params, int detach);

/* sbox run [--sandbox P] [--project DIR] [--timeout S] -- ARGV... */
int
cmd_run(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sandbox", required_argument, NULL, 's' },
		{ "project", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	char project[PATH_MAX], **e;
	const char *sandbox = NULL, *proj = ".";
	json_t *params, *av, *env, *r;
	struct client *cl;
	sbox_error err;
	long timeout = 0;
	int ch, i, rc;

	while ((ch = getopt_long(argc, argv, "+s:p:T:", opts, NULL)) != -1) {
		if (ch == 's')
			sandbox = optarg;
		else if (ch == 'p')
			proj = optarg;
		else if (ch == 'T')
			timeout = atol(optarg);
		else
			goto usage;
	}
	if (optind >= argc)
		goto usage;
	if (realpath(proj, project) == NULL)
		return client_usage("project folder %s does not exist", proj);
	env = json_object();
	for (e = environ; e && *e; e++) {
		char *eq = strchr(*e, '=');
		if (eq == NULL || eq == *e)
			continue;
		char *name = strndup(*e, (size_t)(eq - *e));
		json_object_set_new(env, name, json_string(eq + 1));
		free(name);
	}
	params = json_pack("{s:s, s:s, s:o}", "project", project, "title",
	    "sbox run", "env", env);
	if (sandbox != NULL)
		json_object_set_new(params, "sandbox", json_string(sandbox));
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	if ((r = client_call(cl, "session.create", params, NULL, 0, &err)) == NULL) {
		client_close(cl);
		return client_fail(&err);
	}
	av = json_array();
	for (i = optind; i < argc; i++)
		json_array_append_new(av, json_string(argv[i]));
	params = json_pack("{s:O, s:o}", "session", json_object_get(r, "session"),
	    "argv", av);
	if (timeout > 0)
		json_object_set_new(params, "timeout", json_integer(timeout));
	rc = cmd_session_run_params(o, cl, params, 0);
	json_t *c = client_call(cl, "session.close", json_pack("{s:O}", "session",
	    json_object_get(r, "session")), NULL, 0, &err);
	json_decref(c);
	json_decref(r);
	client_close(cl);
	return rc;
usage:
	return client_usage("usage: sbox run [--sandbox PROFILE] [--project DIR] "
	    "[--timeout S] -- ARGV...");
}
