/* cmd-run.c: sbox run: a one-shot session around one command. It never
 * runs a command unsandboxed without saying so: with nothing in the config
 * choosing a profile, it uses `workspace` (and says so). */
#include "client/client.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Did nothing in the config choose a profile for this project (and
 * provider, when not NULL)? Asks sandbox.resolve (host clients only;
 * inside a sandbox the daemon narrows to the parent anyway, so the answer
 * is "no"). */
int
cmd_run_is_default(struct client *cl, const char *project,
    const char *provider)
{
	const char *by, *prov;
	sbox_error err;
	json_t *r;
	int def;

	error_clear(&err);
	r = client_call(cl, "sandbox.resolve", json_pack("{s:s, s:s?}",
	    "project", project, "provider", provider), NULL, 0, &err);
	if (r == NULL)
		return 0;
	by = json_string_value(json_object_get(r, "chosen_by"));
	prov = json_string_value(json_object_get(r, "provenance"));
	if (by != NULL)
		def = strcmp(by, "default") == 0;
	else
		def = prov != NULL && strstr(prov, ", by default") != NULL;
	json_decref(r);
	return def;
}

/* Print, on stderr, which sandbox the command gets and why. */
static void
cmd_run_note(const json_t *session, int by_default, const char *env_sb)
{
	if (by_default)
		fprintf(stderr, "sbox: sandbox workspace (the default for sbox run; "
		    "choose with --sandbox or in the config)\n");
	else if (env_sb != NULL && json_is_true(json_object_get(session,
	    "sandboxed"))) {
		if (isatty(2))
			fprintf(stderr, "sbox: sandbox %s (from SBOX_SANDBOX)\n",
			    text_show(env_sb));
	} else
		exec_note_profile(session, 0);
}

/* sbox run [--sandbox P] [--project DIR] [--timeout S] [-v] [--no-ask]
 * [--drop-osc|--keep-osc] -- ARGV... */
int
cmd_run(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sandbox", required_argument, NULL, 's' },
		{ "project", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-ask", no_argument, NULL, 'A' },
		{ "drop-osc", no_argument, NULL, 'O' },
		{ "keep-osc", no_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	char project[PATH_MAX], *end;
	const char *sandbox = NULL, *proj = ".", *env_sb = NULL;
	json_t *params, *av, *r, *c;
	struct client_opts ro = *o;
	struct client *cl;
	sbox_error err;
	long timeout = 0;
	int ch, i, rc, verbose = 0, by_default = 0;

	while ((ch = getopt_long(argc, argv, "+s:p:T:v", opts, NULL)) != -1) {
		if (ch == 's')
			sandbox = optarg;
		else if (ch == 'p')
			proj = optarg;
		else if (ch == 'v')
			verbose = 1;
		else if (ch == 'A')
			ro.no_ask = 1;
		else if (ch == 'O' || ch == 'K')
			ro.osc = ch == 'O' ? 1 : 2;
		else if (ch == 'T') {
			timeout = strtol(optarg, &end, 10);
			if (*end != '\0' || timeout < 0)
				return client_usage("--timeout takes seconds, not "
				    "\"%s\"", optarg);
		} else
			return client_usage("bad option for 'sbox run'");
	}
	if (optind >= argc)
		return client_usage("sbox run needs a command: sbox run -- ARGV...");
	if (realpath(proj, project) == NULL)
		return client_usage("project folder %s does not exist", proj);
	if (sandbox == NULL && (env_sb = getenv("SBOX_SANDBOX")) != NULL &&
	    env_sb[0] != '\0')
		sandbox = env_sb;
	else
		env_sb = NULL;
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL)
		return client_fail(&err);
	if (sandbox == NULL && cmd_run_is_default(cl, project, NULL)) {
		sandbox = "workspace";
		by_default = 1;
	}
	if (strcmp(project, "/") == 0 && (sandbox == NULL ||
	    strcmp(sandbox, "none") != 0)) {
		client_close(cl);
		error_set(&err, E_INVALID_PARAMS, "cannot use / as the project "
		    "folder of a sandbox (it would grant the whole file system): "
		    "cd into a project, or pass --project DIR");
		return client_fail(&err);
	}
	/* one_shot: a session sboxd may have made ahead serves it */
	params = json_pack("{s:s, s:s, s:o, s:b}", "project", project, "title",
	    "sbox run", "env", environ_json(), "one_shot", 1);
	if (sandbox != NULL)
		json_object_set_new(params, "sandbox", json_string(sandbox));
	if ((r = client_call(cl, "session.create", params, NULL, 0, &err)) == NULL) {
		client_close(cl);
		return client_fail(&err);
	}
	exec_quiet_env_warning(r);
	client_print_warnings(r);
	exec_folder_warnings(cl, r);
	cmd_run_note(r, by_default, env_sb);
	if (verbose)
		fprintf(stderr, "sbox: session %s (%s)\n", text_member(r,
		    "session", "?"), text_member(r, "provenance", "?"));
	av = json_array();
	for (i = optind; i < argc; i++)
		json_array_append_new(av, json_string(argv[i]));
	params = json_pack("{s:O, s:o}", "session", json_object_get(r, "session"),
	    "argv", av);
	if (timeout > 0)
		json_object_set_new(params, "timeout", json_integer(timeout));
	ro.one_shot = 1;	/* the session is closed below */
	rc = exec_run_params(&ro, cl, params, 0, r);
	c = client_call(cl, "session.close", json_pack("{s:O}", "session",
	    json_object_get(r, "session")), NULL, 0, &err);
	json_decref(c);
	json_decref(r);
	client_close(cl);
	return rc;
}
