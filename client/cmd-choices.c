/* cmd-choices.c: sbox session status ID, sbox session choices [...], and
 * sbox session send ID --sandbox P --stdin (one message under a narrower
 * sandbox: a child session of ID with profile P, no wider than ID's, which
 * runs the script and is closed after). */
#include "client/client.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A string member of o, or def. */
static const char *
cmd_choices_s(const json_t *o, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : def;
}

/* Print a session.status result. */
static void
cmd_choices_print_status(const json_t *r)
{
	const json_t *sb = json_object_get(r, "sandbox"), *e;
	char *argv;
	size_t i;
	int nref = 0, nallowed = 0;

	printf("%-10s %s\n", "session", text_member(r, "session", "?"));
	printf("%-10s %s%s\n", "state", text_member(r, "state", "?"),
	    json_is_true(json_object_get(r, "live")) ? "" : " (not live)");
	printf("%-10s %s (%s)\n", "sandbox", text_member(r, "profile", "?"),
	    text_member(r, "provenance", ""));
	printf("%-10s %s: %s\n", "runs here", json_is_true(json_object_get(r,
	    "runs_here")) ? "yes" : "no", text_member(sb, "detail", ""));
	printf("%-10s %s\n", "network", text_member(r, "network", "?"));
	json_array_foreach(json_object_get(r, "env_dropped"), i, e)
		printf("%s%s%s", i == 0 ? "env        not passed into the "
		    "sandbox: " : ", ", json_string_value(e) ?
		    json_string_value(e) : "?", i + 1 == json_array_size(
		    json_object_get(r, "env_dropped")) ? "\n" : "");
	/* hosts allowed since their refusal (session allow-host) are not
	 * refused any more: listed apart */
	json_array_foreach(json_object_get(r, "refused"), i, e) {
		char when[32];

		if (json_is_true(json_object_get(e, "allowed")))
			continue;
		/* times for people: local, as every listing shows them */
		outside_text_time(e, "last_at_ms", when, sizeof when);
		printf("%-10s %s:%lld (%lldx, %s) %s\n", nref++ == 0 ? "refused" :
		    "", text_member(e, "host", "?"),
		    (long long)json_integer_value(json_object_get(e, "port")),
		    (long long)json_integer_value(json_object_get(e, "count")),
		    when, text_member(e, "reason", ""));
	}
	if (nref == 0)
		printf("%-10s none\n", "refused");
	json_array_foreach(json_object_get(r, "refused"), i, e) {
		char when[32];

		if (!json_is_true(json_object_get(e, "allowed")))
			continue;
		outside_text_time(e, "last_at_ms", when, sizeof when);
		printf("%-10s %s:%lld (allowed later; refused %lldx before, last "
		    "%s)\n", nallowed++ == 0 ? "allowed" : "",
		    text_member(e, "host", "?"),
		    (long long)json_integer_value(json_object_get(e, "port")),
		    (long long)json_integer_value(json_object_get(e, "count")),
		    when);
	}
	if (json_array_size(json_object_get(r, "running")) == 0)
		printf("%-10s none\n", "running");
	json_array_foreach(json_object_get(r, "running"), i, e) {
		argv = outside_text_argv(json_object_get(e, "argv"));
		printf("%-10s %lld %s%s\n", i == 0 ? "running" : "",
		    (long long)json_integer_value(json_object_get(e, "command")),
		    argv ? argv : "?", json_is_true(json_object_get(e, "detach")) ?
		    " (background)" : "");
		free(argv);
	}
}

/* sbox session status ID [--json]. */
int
cmd_choices_status(const struct client_opts *o, int argc, char **argv)
{
	struct client_opts mo = *o;
	json_t *r;
	int rc = EXIT_OK;

	if (argc == 3 && strcmp(argv[2], "--json") == 0)
		mo.json = 1;
	else if (argc != 2 || argv[1][0] == '-')
		return client_usage("usage: sbox session status ID [--json]");
	if ((r = client_call_once(&mo, "session.status", json_pack("{s:s}",
	    "session", argv[1]), &rc)) == NULL)
		return rc;
	if (mo.json)
		client_print_json(r);
	else
		cmd_choices_print_status(r);
	json_decref(r);
	return EXIT_OK;
}

/* Print a session.choices result. */
static void
cmd_choices_print(const json_t *r)
{
	const json_t *l;
	char what[300];
	size_t i;

	json_array_foreach(json_object_get(r, "levels"), i, l) {
		const char *name = text_member(l, "name", NULL);

		snprintf(what, sizeof what, "%s%s%s", text_member(l, "level", "?"),
		    name ? " " : "", name ? name : "");
		printf("%-2s %-40s %s\n", json_is_true(json_object_get(l, "wins")) ?
		    "=>" : "", what, text_member(l, "profile", "-"));
	}
	if (json_is_string(json_object_get(r, "refused")))
		printf("refused: %s\n", text_member(r, "refused", ""));
	else
		printf("%s\nnetwork %s, run outside %s\n",
		    text_member(r, "provenance", "?"),
		    text_member(r, "network", "?"),
		    text_member(r, "run_outside", "?"));
}

/* sbox session choices [--project DIR] [--provider P] [--model M]
 * [--space S] [--sandbox P] [--json]. */
int
cmd_choices_choices(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ "provider", required_argument, NULL, 'P' },
		{ "model", required_argument, NULL, 'm' },
		{ "space", required_argument, NULL, 's' },
		{ "sandbox", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct client_opts mo = *o;
	json_t *params = json_object(), *r;
	char cwd[4096];
	int ch, rc = EXIT_OK;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		const char *key = ch == 'p' ? "project" : ch == 'P' ? "provider" :
		    ch == 'm' ? "model" : ch == 's' ? "space" : ch == 'b' ?
		    "sandbox" : NULL;

		if (ch == 'j') {
			mo.json = 1;
			continue;
		}
		if (key == NULL) {
			json_decref(params);
			return client_usage("usage: sbox session choices [--project "
			    "DIR] [--provider P] [--model M] [--space S] "
			    "[--sandbox P] [--json]");
		}
		if (ch == 'p' && optarg[0] != '/' && getcwd(cwd, sizeof cwd) &&
		    strlen(cwd) + strlen(optarg) + 2 < sizeof cwd) {
			strcat(cwd, "/");
			strcat(cwd, optarg);
			json_object_set_new(params, key, json_string(cwd));
		} else
			json_object_set_new(params, key, json_string(optarg));
	}
	if (optind != argc) {
		json_decref(params);
		return client_usage("usage: sbox session choices [...]: no "
		    "arguments beyond the options");
	}
	if ((r = client_call_once(&mo, "session.choices", params, &rc)) == NULL)
		return rc;
	if (mo.json)
		client_print_json(r);
	else
		cmd_choices_print(r);
	json_decref(r);
	return EXIT_OK;
}

/* Read all of stdin (at most 16 MiB) as a string; NULL when too long. */
static char *
cmd_choices_stdin(void)
{
	char buf[65536], *script = NULL, *ns;
	size_t len = 0, n;

	while (!feof(stdin) && (n = fread(buf, 1, sizeof buf, stdin)) > 0) {
		if (len + n > 16 * 1024 * 1024 ||
		    (ns = realloc(script, len + n + 1)) == NULL) {
			free(script);
			return NULL;
		}
		script = ns;
		memcpy(script + len, buf, n);
		len += n;
	}
	if (script == NULL)
		return strdup("");
	script[len] = '\0';
	return script;
}

/* sbox session send ID --sandbox P --stdin: the script runs in a child
 * session of ID with profile P (refused when P is wider than ID's), which
 * is closed afterwards. */
int
cmd_choices_send(const struct client_opts *o, int argc, char **argv)
{
	const char *id = argc > 1 ? argv[1] : NULL, *profile = NULL;
	json_t *info, *created, *params;
	struct client_opts so = *o;
	struct client *cl;
	sbox_error err;
	char *script;
	int i, rc, fd, stdin_ok = 0;

	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--stdin") == 0)
			stdin_ok = 1;
		else if (strcmp(argv[i], "--sandbox") == 0 && i + 1 < argc)
			profile = argv[++i];
		else if (strncmp(argv[i], "--sandbox=", 10) == 0)
			profile = argv[i] + 10;
		else if (strcmp(argv[i], "--no-ask") == 0)
			so.no_ask = 1;
		else
			break;
	}
	if (!stdin_ok && !isatty(0))	/* a pipe or a file: --stdin implied */
		stdin_ok = 1;
	if (id == NULL || id[0] == '-' || i != argc || !stdin_ok || !profile)
		return client_usage("usage: sbox session send ID [--sandbox "
		    "PROFILE] [--stdin] [--no-ask] (the script on stdin)");
	ask_keep_terminal();
	if ((script = cmd_choices_stdin()) == NULL)
		return client_usage("the script is too long");
	if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		free(script);
		return client_fail(&err);
	}
	info = client_call(cl, "session.info", json_pack("{s:s}", "session", id),
	    NULL, 0, &err);
	created = info == NULL ? NULL : client_call(cl, "session.create",
	    json_pack("{s:s, s:s, s:s, s:s}", "project", cmd_choices_s(info,
	    "project", ""), "sandbox", profile, "within", id, "title",
	    "one message"), NULL, 0, &err);
	json_decref(info);
	if (created == NULL) {
		free(script);
		client_close(cl);
		return client_fail(&err);
	}
	params = json_pack("{s:s, s:[s, s, s]}", "session",
	    cmd_choices_s(created, "session", ""), "argv", "sh", "-c", script);
	free(script);
	so.one_shot = 1;	/* the child session is closed below */
	rc = exec_run_params(&so, cl, params, 0, NULL);
	json_decref(client_call(cl, "session.close", json_pack("{s:s}",
	    "session", cmd_choices_s(created, "session", "")), NULL, 0, &err));
	json_decref(created);
	client_close(cl);
	return rc;
}
