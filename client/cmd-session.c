/* cmd-session.c: sbox session create|list|info|close|exec|send|allow-host
 * (outside and log are in cmd-outside.c; a prepared command.exec runs
 * through exec-run.c). */
#include "client/client.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	    "model", "space", "parent", "container_pid", "running",
	    "close_reason", NULL };
	json_t *v;
	int i;

	for (i = 0; keys[i] != NULL; i++) {
		if ((v = json_object_get(r, keys[i])) == NULL || json_is_null(v))
			continue;
		if (json_is_string(v))
			printf("%-13s %s\n", keys[i], text_show(
			    json_string_value(v)));
		else if (json_is_boolean(v))
			printf("%-13s %s\n", keys[i], json_is_true(v) ? "yes" : "no");
		else if (json_is_integer(v))
			printf("%-13s %lld\n", keys[i], (long long)json_integer_value(v));
	}
	for (i = 0; i < 2; i++) {	/* times for people: local */
		char when[32];
		const char *k = i == 0 ? "created_at_ms" : "closed_at_ms";
		if (!json_is_integer(json_object_get(r, k)))
			continue;
		outside_text_time(r, k, when, sizeof when);
		printf("%-13s %s\n", i == 0 ? "created" : "closed", when);
	}
}

/* Print the session list as a table. */
static void
cmd_session_print_list(const json_t *r)
{
	json_t *s, *idle;
	char when[24];
	size_t i;

	printf("%-16s  %-10s  %-8s  %-6s  %s\n", "SESSION", "PROFILE", "STATE",
	    "IDLE", "PROJECT");
	json_array_foreach(json_object_get(r, "sessions"), i, s) {
		idle = json_object_get(s, "idle_s");
		if (!json_is_integer(idle))
			snprintf(when, sizeof when, "-");
		else if (json_integer_value(idle) < 60)
			snprintf(when, sizeof when, "%llds",
			    (long long)json_integer_value(idle));
		else if (json_integer_value(idle) < 3600)
			snprintf(when, sizeof when, "%lldm",
			    (long long)json_integer_value(idle) / 60);
		else
			snprintf(when, sizeof when, "%lldh",
			    (long long)json_integer_value(idle) / 3600);
		printf("%-16s  %-10s  %-8s  %-6s  %s\n",
		    text_member(s, "session", "?"),
		    text_member(s, "profile", "?"),
		    text_member(s, "state", "?"), when,
		    text_member(s, "project", "?"));
	}
}

/* The notification callback of cmd_session_hold: stop once the held
 * session is closed (by anyone). */
static int
cmd_session_hold_cb(const char *method, json_t *params, void *arg)
{
	const char *id = arg;
	const char *s = json_string_value(json_object_get(params, "session"));

	return strcmp(method, "events.event") == 0 && s != NULL &&
	    strcmp(s, id) == 0;
}

/* --close-with-client: stay connected (stdout closed once the id is out,
 * so a reader sees its end) until the session closes; a signal or a kill
 * of this sbox ends the connection, and sboxd closes the session with it. */
static void
cmd_session_hold(struct client *cl, const char *id)
{
	sbox_error err;
	json_t *r;
	int fd;

	fflush(stdout);
	if ((fd = open("/dev/null", O_WRONLY)) >= 0) {
		dup2(fd, 1);
		close(fd);
	}
	error_clear(&err);
	client_on_notify(cl, cmd_session_hold_cb, (void *)id);
	r = client_call(cl, "events.subscribe", json_pack("{s:[s]}", "topics",
	    "session.closed"), NULL, 0, &err);
	if (r != NULL)
		client_wait(cl, &err);
	json_decref(r);
	client_close(cl);
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
		{ "worktree", required_argument, NULL, 'w' },
		{ "close-with-client", no_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *params = json_object(), *r;
	int with_client = 0;
	const char *env_sb = NULL, *branch = NULL;
	struct client *cl;
	char *project = NULL;
	sbox_error err;
	int ch;

	while ((ch = getopt_long(argc, argv, "+p:s:t:P:m:S:w:", opts, NULL)) != -1) {
		const char *key = ch == 's' ? "sandbox" : ch == 't' ? "title" :
		    ch == 'P' ? "provider" : ch == 'm' ? "model" : ch == 'S' ?
		    "space" : NULL;
		if (ch == 'p') {
			free(project);
			if ((project = realpath(optarg, NULL)) == NULL)
				project = strdup(optarg);
		} else if (ch == 'w')
			branch = optarg;
		else if (ch == 'X')
			with_client = 1;
		else if (key != NULL)
			json_object_set_new(params, key, json_string(optarg));
		else {
			json_decref(params);
			free(project);
			return client_usage("bad option for 'sbox session create'");
		}
	}
	if (project == NULL && branch != NULL)	/* the repository: here */
		project = realpath(".", NULL);
	else if (project == NULL)	/* the project here: git's top, or "." */
		project = worktree_top(".");
	if (project == NULL || optind != argc) {
		json_decref(params);
		free(project);
		if (optind != argc)
			return client_usage("unexpected argument \"%s\"",
			    argv[optind]);
		return client_usage("the current folder is gone: pass --project DIR");
	}
	json_object_set_new(params, "env", environ_json());
	/* SBOX_SANDBOX chooses below --sandbox, above the config */
	if (json_object_get(params, "sandbox") == NULL &&
	    (env_sb = getenv("SBOX_SANDBOX")) != NULL && env_sb[0] != '\0')
		json_object_set_new(params, "sandbox", json_string(env_sb));
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		free(project);
		return client_fail(&err);
	}
	if (branch != NULL) {	/* a new worktree of the project, on branch */
		char *wt;

		if (worktree_add(project, branch, &wt, &err) < 0) {
			json_decref(params);
			free(project);
			client_close(cl);
			return client_fail(&err);
		}
		fprintf(stderr, "sbox: worktree %s on branch %s (remove it with "
		    "'sbox session close ID --remove-worktree')\n", wt, branch);
		free(project);
		project = wt;
	}
	json_object_set_new(params, "project", json_string(project));
	if (with_client)
		json_object_set_new(params, "close_with_client", json_true());
	r = client_call(cl, "session.create", params, NULL, 0, &err);
	if (r == NULL) {
		client_close(cl);
		if (branch != NULL) {	/* nothing half made is left */
			sbox_error e2;
			error_clear(&e2);
			worktree_remove(project, &e2);
		}
		free(project);
		return client_fail(&err);
	}
	free(project);
	exec_quiet_env_warning(r);
	client_print_warnings(r);
	exec_folder_warnings(cl, r);
	if (!with_client)
		client_close(cl);
	if (env_sb != NULL && env_sb[0] != '\0' && isatty(2) &&
	    json_is_true(json_object_get(r, "sandboxed")))
		fprintf(stderr, "sbox: sandbox %s (from SBOX_SANDBOX)\n",
		    text_show(env_sb));
	else
		exec_note_profile(r, 0);
	if (o->json)
		client_print_json(r);
	else
		printf("%s\n", text_member(r, "session", "?"));
	if (with_client)
		cmd_session_hold(cl, json_string_value(json_object_get(r,
		    "session")));
	json_decref(r);
	return EXIT_OK;
}

static void cmd_session_print_closed(const json_t *r);

/* sbox session close ID --remove-worktree: close, then remove the linked
 * worktree that was its project (client/worktree.c). */
static int
cmd_session_close_worktree(const struct client_opts *o, const char *id)
{
	json_t *info, *r;
	char *project;
	sbox_error err;
	int rc = EXIT_OK;

	if ((info = client_call_once(o, "session.info", json_pack("{s:s}",
	    "session", id), &rc)) == NULL)
		return rc;
	project = strdup(json_string_value(json_object_get(info, "project")) ?
	    json_string_value(json_object_get(info, "project")) : "");
	json_decref(info);
	if ((r = client_call_once(o, "session.close", json_pack("{s:s}",
	    "session", id), &rc)) == NULL) {
		free(project);
		return rc;
	}
	if (!o->json)
		cmd_session_print_closed(r);
	error_clear(&err);
	if (worktree_remove(project, &err) < 0) {
		free(project);
		json_decref(r);
		return client_fail(&err);
	}
	if (o->json) {
		json_object_set_new(r, "worktree_removed", json_string(project));
		client_print_json(r);
	} else
		printf("worktree %s removed\n", project);
	free(project);
	json_decref(r);
	return EXIT_OK;
}

/* Parse the options of exec (cwd, env, detach, timeout into params;
 * --no-ask into no_ask, -t/--tty and --no-tty into tty, --drop-osc and
 * --keep-osc into osc). */
static int
cmd_session_exec_opts(int argc, char **argv, json_t *params, int *detach,
    int *no_ask, int *tty, int *osc)
{
	static const struct option opts[] = {
		{ "cwd", required_argument, NULL, 'C' },
		{ "env", required_argument, NULL, 'e' },
		{ "detach", no_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "no-ask", no_argument, NULL, 'A' },
		{ "tty", no_argument, NULL, 't' },
		{ "no-tty", no_argument, NULL, 'N' },
		{ "drop-osc", no_argument, NULL, 'O' },
		{ "keep-osc", no_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *env = json_object();
	char *eq, *end;
	long t;
	int ch;

	while ((ch = getopt_long(argc, argv, "+C:e:dT:t", opts, NULL)) != -1) {
		switch (ch) {
		case 't':
			*tty = 2;
			break;
		case 'N':
			*tty = 0;
			break;
		case 'O':
			*osc = 1;
			break;
		case 'K':
			*osc = 2;
			break;
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
		case 'A':
			*no_ask = 1;
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

/* Connect (with o), run the command.exec params (taken) with ro, close:
 * sbox's exit status. */
static int
cmd_session_connect_run(const struct client_opts *o,
    const struct client_opts *ro, json_t *params, int detach)
{
	struct client *cl;
	sbox_error err;
	int rc;

	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	rc = exec_run_params(ro, cl, params, detach, NULL);
	client_close(cl);
	return rc;
}

/* sbox session exec ID [--cwd DIR] [--env N=V]... [--detach] -- ARGV... */
static int
cmd_session_exec(const struct client_opts *o, int argc, char **argv)
{
	json_t *params = json_object(), *av = json_array();
	struct client_opts eo = *o;
	int detach = 0, i;

	if (argc < 2 || argv[1][0] == '-')
		goto usage;
	json_object_set_new(params, "session", json_string(argv[1]));
	optind = 0;
	eo.tty = 1;	/* when stdin and stdout are terminals */
	if (cmd_session_exec_opts(argc - 1, argv + 1, params, &detach,
	    &eo.no_ask, &eo.tty, &eo.osc) == -1)
		goto usage;
	for (i = optind + 1; i < argc; i++)
		json_array_append_new(av, json_string(argv[i]));
	if (json_array_size(av) == 0)
		goto usage;
	json_object_set_new(params, "argv", av);
	return cmd_session_connect_run(o, &eo, params, detach);
usage:
	json_decref(params);
	json_decref(av);
	return client_usage("usage: sbox session exec ID [--cwd DIR] "
	    "[--env NAME=VALUE]... [--detach] [--timeout S] [--no-ask] "
	    "[-t|--tty|--no-tty] [--drop-osc|--keep-osc] -- ARGV...");
}

/* sbox session shell ID [--cwd DIR] [--env NAME=VALUE]...: an interactive
 * shell on a terminal of the sandbox (bash when the sandbox has it, else
 * sh). */
static int
cmd_session_shell(const struct client_opts *o, int argc, char **argv)
{
	json_t *params = json_object();
	struct client_opts so = *o;
	int detach = 0;

	if (argc < 2 || argv[1][0] == '-')
		goto usage;
	json_object_set_new(params, "session", json_string(argv[1]));
	optind = 0;
	so.tty = 2;
	so.no_ask = 1;	/* a person at a shell sees what was refused */
	if (cmd_session_exec_opts(argc - 1, argv + 1, params, &detach,
	    &so.no_ask, &so.tty, &so.osc) == -1 || detach || optind + 1 != argc ||
	    so.tty != 2)
		goto usage;
	if (!exec_tty_possible()) {
		json_decref(params);
		return client_usage("sbox session shell needs a terminal "
		    "(stdin and stdout); for a script use 'sbox session send "
		    "ID --stdin'");
	}
	json_object_set_new(params, "argv", json_pack("[s, s, s]", "sh", "-c",
	    "if command -v bash >/dev/null 2>&1; then exec bash; fi; "
	    "exec sh"));
	return cmd_session_connect_run(o, &so, params, 0);
usage:
	json_decref(params);
	return client_usage("usage: sbox session shell ID [--cwd DIR] "
	    "[--env NAME=VALUE]... [--drop-osc|--keep-osc]");
}

/* sbox session send ID [--stdin] [--no-ask]: run the shell script read
 * from stdin (--stdin only needed when stdin is a terminal). */
static int
cmd_session_send(const struct client_opts *o, int argc, char **argv)
{
	char buf[65536], *script = NULL;
	struct client_opts so = *o;
	size_t len = 0, n;
	json_t *params;
	int fd, i, stdin_ok = 0;

	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--stdin") == 0)
			stdin_ok = 1;
		else if (strcmp(argv[i], "--no-ask") == 0)
			so.no_ask = 1;
		else
			break;
	}
	/* the script comes on stdin: --stdin is implied when it is not a
	 * terminal (a pipe or a file) */
	if (!stdin_ok && !isatty(0))
		stdin_ok = 1;
	if (argc < 2 || argv[1][0] == '-' || i != argc)
		return client_usage("usage: sbox session send ID [--stdin] "
		    "[--no-ask]");
	if (!stdin_ok)
		return client_usage("sbox session send reads the script from "
		    "stdin, which is a terminal: pipe the script in (or pass "
		    "--stdin to type it, ending with Ctrl-D)");
	ask_keep_terminal();
	while (!feof(stdin) && (n = fread(buf, 1, sizeof buf, stdin)) > 0) {
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
	return cmd_session_connect_run(o, &so, params, 0);
}

/* Does a send command line choose a profile (--sandbox)? */
static int
cmd_session_send_sandbox(int argc, char **argv)
{
	int i;

	for (i = 2; i < argc; i++)
		if (strcmp(argv[i], "--sandbox") == 0 ||
		    strncmp(argv[i], "--sandbox=", 10) == 0)
			return 1;
	return 0;
}

/* Print what session.close answered. */
static void
cmd_session_print_closed(const json_t *r)
{
	printf("session %s closed\n", text_member(r, "session", "?"));
}

/* Print what session.allow_host answered. */
static void
cmd_session_print_allowed(const json_t *r)
{
	printf("%s may now pass the proxy of session %s%s\n",
	    text_member(r, "host", "?"), text_member(r, "session", "?"),
	    json_is_true(json_object_get(r, "saved")) ? " (saved in the "
	    "profile)" : "");
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
	if (strcmp(sub, "shell") == 0)
		return cmd_session_shell(o, argc - 1, argv + 1);
	if (strcmp(sub, "send") == 0 && cmd_session_send_sandbox(argc - 1,
	    argv + 1))
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
	if (strcmp(sub, "list") == 0) {
		if (argc > 3 || (argc == 3 && strcmp(argv[2], "--all") != 0))
			return client_usage("unexpected argument \"%s\"", argv[2]);
		return cmd_session_simple(o, "session.list", json_pack("{s:b}",
		    "all", argc == 3), cmd_session_print_list);
	}
	if (strcmp(sub, "close") == 0 && argc == 4 &&
	    strcmp(argv[3], "--remove-worktree") == 0)
		return cmd_session_close_worktree(o, argv[2]);
	if (strcmp(sub, "info") == 0 || strcmp(sub, "close") == 0) {
		if (argc != 3)
			return client_usage("sbox session %s takes one session id",
			    sub);
		return cmd_session_simple(o, sub[0] == 'i' ? "session.info" :
		    "session.close", json_pack("{s:s}", "session", argv[2]),
		    sub[0] == 'i' ? cmd_session_print_info :
		    cmd_session_print_closed);
	}
	if (strcmp(sub, "allow-host") == 0) {
		int save = 0, i, n = 0;
		const char *pos[2] = { NULL, NULL };
		for (i = 2; i < argc; i++) {
			if (strcmp(argv[i], "--save") == 0)
				save = 1;
			else if (n < 2)
				pos[n++] = argv[i];
			else
				return client_usage("unexpected argument \"%s\"",
				    argv[i]);
		}
		if (n != 2)
			return client_usage("sbox session allow-host takes a session "
			    "id and a host");
		return cmd_session_simple(o, "session.allow_host",
		    json_pack("{s:s, s:s, s:b}", "session", pos[0], "host",
		    pos[1], "save", save), cmd_session_print_allowed);
	}
	return client_usage("sbox session needs a subcommand: create, list, "
	    "info, close, exec, shell, send, outside, log, allow-host");
}
