/* cmd-session.c: sbox session create|list|info|close|exec|send|allow-host
 * (outside and log are in cmd-outside.c). */
#include "client/client.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* Our environment as a JSON object (the sandbox takes what its profile allows). */
static json_t *
cmd_session_environ(void)
{
	json_t *env = json_object();
	char **e, *eq, *name;

	for (e = environ; e && *e; e++) {
		if ((eq = strchr(*e, '=')) == NULL || eq == *e)
			continue;
		name = strndup(*e, (size_t)(eq - *e));
		if (name != NULL)
			json_object_set_new(env, name, json_string(eq + 1));
		free(name);
	}
	return env;
}

/* Connect, call one method, print the result (or fail); returns the exit code. */
static int
cmd_session_simple(const struct client_opts *o, const char *method,
    json_t *params, void (*print)(const json_t *))
{
	struct client *cl;
	sbox_error err;
	json_t *r;

	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	r = client_call(cl, method, params, NULL, 0, &err);
	client_close(cl);
	if (r == NULL)
		return client_fail(&err);
	if (o->json || print == NULL)
		client_print_json(r);
	else
		print(r);
	json_decref(r);
	return EXIT_OK;
}

/* Print one session record as "key: value" lines. */
static void
cmd_session_print_info(const json_t *r)
{
	static const char *keys[] = { "session", "title", "project", "profile",
	    "provenance", "state", "sandboxed", "network", "scratch", "provider",
	    "model", "space", "parent", "container_pid", "running", NULL };
	json_t *v;
	int i;

	for (i = 0; keys[i] != NULL; i++) {
		if ((v = json_object_get(r, keys[i])) == NULL || json_is_null(v))
			continue;
		if (json_is_string(v))
			printf("%-13s %s\n", keys[i], json_string_value(v));
		else if (json_is_boolean(v))
			printf("%-13s %s\n", keys[i], json_is_true(v) ? "yes" : "no");
		else if (json_is_integer(v))
			printf("%-13s %lld\n", keys[i], (long long)json_integer_value(v));
	}
}

/* Print the session list as a table. */
static void
cmd_session_print_list(const json_t *r)
{
	json_t *s;
	size_t i;

	printf("%-16s  %-10s  %-8s  %s\n", "SESSION", "PROFILE", "STATE", "PROJECT");
	json_array_foreach(json_object_get(r, "sessions"), i, s)
		printf("%-16s  %-10s  %-8s  %s\n",
		    json_string_value(json_object_get(s, "id")),
		    json_string_value(json_object_get(s, "profile")),
		    json_string_value(json_object_get(s, "state")),
		    json_string_value(json_object_get(s, "project")));
}

/* sbox session create --project DIR [--sandbox P] [--title T] ... */
static int
cmd_session_create(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "project", required_argument, NULL, 'p' },
		{ "sandbox", required_argument, NULL, 's' },
		{ "title", required_argument, NULL, 't' },
		{ "provider", required_argument, NULL, 'P' },
		{ "model", required_argument, NULL, 'm' },
		{ "space", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *params = json_object(), *r;
	struct client *cl;
	char *project = NULL;
	sbox_error err;
	int ch;

	while ((ch = getopt_long(argc, argv, "+p:s:t:P:m:S:", opts, NULL)) != -1) {
		const char *key = ch == 's' ? "sandbox" : ch == 't' ? "title" :
		    ch == 'P' ? "provider" : ch == 'm' ? "model" : ch == 'S' ?
		    "space" : NULL;
		if (ch == 'p') {
			free(project);
			if ((project = realpath(optarg, NULL)) == NULL)
				project = strdup(optarg);
		}
		else if (key != NULL)
			json_object_set_new(params, key, json_string(optarg));
		else {
			json_decref(params);
			return client_usage("usage: sbox session create --project DIR "
			    "[--sandbox PROFILE|none] [--title T] [--provider P] "
			    "[--model M] [--space S]");
		}
	}
	if (project == NULL || optind != argc) {
		json_decref(params);
		free(project);
		return client_usage("usage: sbox session create --project DIR "
		    "[--sandbox PROFILE|none] [--title T] [--provider P] "
		    "[--model M] [--space S]");
	}
	json_object_set_new(params, "project", json_string(project));
	json_object_set_new(params, "env", cmd_session_environ());
	free(project);
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	r = client_call(cl, "session.create", params, NULL, 0, &err);
	client_close(cl);
	if (r == NULL)
		return client_fail(&err);
	if (o->json)
		client_print_json(r);
	else
		printf("%s\n", json_string_value(json_object_get(r, "session")));
	json_decref(r);
	return EXIT_OK;
}

/* Parse the options of exec (cwd, env, detach, timeout) into params. */
static int
cmd_session_exec_opts(int argc, char **argv, json_t *params, int *detach)
{
	static const struct option opts[] = {
		{ "cwd", required_argument, NULL, 'C' },
		{ "env", required_argument, NULL, 'e' },
		{ "detach", no_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *env = json_object();
	char *eq, *end;
	long t;
	int ch;

	while ((ch = getopt_long(argc, argv, "+C:e:dT:", opts, NULL)) != -1) {
		switch (ch) {
		case 'C':
			json_object_set_new(params, "cwd", json_string(optarg));
			break;
		case 'e':
			if ((eq = strchr(optarg, '=')) == NULL || eq == optarg) {
				json_decref(env);
				return -1;
			}
			*eq = '\0';
			json_object_set_new(env, optarg, json_string(eq + 1));
			*eq = '=';
			break;
		case 'd':
			*detach = 1;
			break;
		case 'T':
			t = strtol(optarg, &end, 10);
			if (*end != '\0' || t < 0) {
				json_decref(env);
				return -1;
			}
			json_object_set_new(params, "timeout", json_integer(t));
			break;
		default:
			json_decref(env);
			return -1;
		}
	}
	if (json_object_size(env) > 0)
		json_object_set_new(params, "env", env);
	else
		json_decref(env);
	return 0;
}

/* Run a prepared command.exec: with the terminal, or detached. */
int
cmd_session_run_params(const struct client_opts *o, struct client *cl,
    json_t *params, int detach)
{
	sbox_error err;
	json_t *r;
	int status;

	error_clear(&err);
	if (detach) {
		json_object_set_new(params, "detach", json_true());
		json_object_set_new(params, "stdio", json_string("none"));
		if ((r = client_call(cl, "command.exec", params, NULL, 0,
		    &err)) == NULL)
			return client_fail(&err);
		if (o->json)
			client_print_json(r);
		else
			printf("%lld\n", (long long)json_integer_value(
			    json_object_get(r, "command")));
		json_decref(r);
		return EXIT_OK;
	}
	if ((r = exec_with_terminal(cl, params, &err)) == NULL)
		return client_fail(&err);
	exec_print_blocked(r);
	if (o->json) {
		json_t *out = json_deep_copy(r);
		client_print_json(out);
		json_decref(out);
	}
	status = exec_status(r);
	json_decref(r);
	return status;
}

/* sbox session exec ID [--cwd DIR] [--env N=V]... [--detach] -- ARGV... */
static int
cmd_session_exec(const struct client_opts *o, int argc, char **argv)
{
	json_t *params = json_object(), *av = json_array();
	struct client *cl;
	sbox_error err;
	int detach = 0, i, rc;

	if (argc < 2 || argv[1][0] == '-')
		goto usage;
	json_object_set_new(params, "session", json_string(argv[1]));
	optind = 0;
	if (cmd_session_exec_opts(argc - 1, argv + 1, params, &detach) == -1)
		goto usage;
	for (i = optind + 1; i < argc; i++)
		json_array_append_new(av, json_string(argv[i]));
	if (json_array_size(av) == 0)
		goto usage;
	json_object_set_new(params, "argv", av);
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	rc = cmd_session_run_params(o, cl, params, detach);
	client_close(cl);
	return rc;
usage:
	json_decref(params);
	json_decref(av);
	return client_usage("usage: sbox session exec ID [--cwd DIR] "
	    "[--env NAME=VALUE]... [--detach] [--timeout S] -- ARGV...");
}

/* sbox session send ID --stdin: run the shell script read from stdin. */
static int
cmd_session_send(const struct client_opts *o, int argc, char **argv)
{
	char buf[65536], *script = NULL;
	size_t len = 0, n;
	struct client *cl;
	sbox_error err;
	json_t *params;
	int rc, fd;

	if (argc != 3 || strcmp(argv[2], "--stdin") != 0)
		return client_usage("usage: sbox session send ID --stdin");
	while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) {
		char *ns = realloc(script, len + n + 1);
		if (ns == NULL || len + n > 16 * 1024 * 1024) {
			free(ns ? ns : script);
			return client_usage("the script is too long");
		}
		script = ns;
		memcpy(script + len, buf, n);
		len += n;
	}
	if (script == NULL)
		script = strdup("");
	script[len] = '\0';
	/* The script came on stdin: the command reads /dev/null. */
	if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	params = json_pack("{s:s, s:[s, s, s]}", "session", argv[1], "argv",
	    "sh", "-c", script);
	free(script);
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	rc = cmd_session_run_params(o, cl, params, 0);
	client_close(cl);
	return rc;
}

/* sbox session SUBCOMMAND ... */
int
cmd_session(const struct client_opts *o, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";

	if (strcmp(sub, "create") == 0)
		return cmd_session_create(o, argc - 1, argv + 1);
	if (strcmp(sub, "exec") == 0)
		return cmd_session_exec(o, argc - 1, argv + 1);
	if (strcmp(sub, "send") == 0 && argc > 3 && (strcmp(argv[3],
	    "--sandbox") == 0 || (argc > 4 && strcmp(argv[4], "--sandbox") == 0)))
		return cmd_choices_send(o, argc - 1, argv + 1);	/* cmd-choices.c */
	if (strcmp(sub, "send") == 0)
		return cmd_session_send(o, argc - 1, argv + 1);
	if (strcmp(sub, "status") == 0)
		return cmd_choices_status(o, argc - 1, argv + 1);
	if (strcmp(sub, "choices") == 0)
		return cmd_choices_choices(o, argc - 1, argv + 1);
	if (strcmp(sub, "outside") == 0)
		return cmd_outside_run(o, argc - 1, argv + 1);
	if (strcmp(sub, "log") == 0)
		return cmd_outside_log(o, argc - 1, argv + 1);
	if (strcmp(sub, "list") == 0 && (argc == 2 || (argc == 3 &&
	    strcmp(argv[2], "--all") == 0)))
		return cmd_session_simple(o, "session.list", json_pack("{s:b}",
		    "all", argc == 3), cmd_session_print_list);
	if (strcmp(sub, "info") == 0 && argc == 3)
		return cmd_session_simple(o, "session.info", json_pack("{s:s}",
		    "session", argv[2]), cmd_session_print_info);
	if (strcmp(sub, "close") == 0 && argc == 3)
		return cmd_session_simple(o, "session.close", json_pack("{s:s}",
		    "session", argv[2]), NULL);
	if (strcmp(sub, "allow-host") == 0 && (argc == 4 || (argc == 5 &&
	    strcmp(argv[4], "--save") == 0)))
		return cmd_session_simple(o, "session.allow_host",
		    json_pack("{s:s, s:s, s:b}", "session", argv[2], "host",
		    argv[3], "save", argc == 5), NULL);
	return client_usage("usage: sbox session create|list|info|close|exec|"
	    "send|outside|log|allow-host ...; see 'sbox help session'");
}
