/* cmd-outside.c: sbox session outside (ask to run one command outside the
 * sandbox) and sbox session log (the session's timeline); what an agent
 * wrote is shown through outside-text.c. */
#include "client/client.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sbox session outside ID --reason TEXT [--cwd DIR] [--env NAME=VALUE]...
 * -- ARGV...: ask, wait, run with the terminal's stdio; the command's
 * status, or 77 when denied. */
int
cmd_outside_run(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reason", required_argument, NULL, 'r' },
		{ "cwd", required_argument, NULL, 'C' },
		{ "env", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *params, *av, *r, *env;
	char *eq;
	struct client *cl;
	sbox_error err;
	int ch, i, status, declined;

	if (argc < 2 || argv[1][0] == '-')
		goto usage_early;
	params = json_pack("{s:s}", "session", argv[1]);
	av = json_array();
	optind = 0;
	while ((ch = getopt_long(argc - 1, argv + 1, "+r:C:e:", opts,
	    NULL)) != -1) {
		if (ch == 'e') {
			if ((eq = strchr(optarg, '=')) == NULL || eq == optarg)
				goto usage;
			if ((env = json_object_get(params, "env")) == NULL) {
				env = json_object();
				json_object_set_new(params, "env", env);
			}
			*eq = '\0';
			json_object_set_new(env, optarg, json_string(eq + 1));
			*eq = '=';
		} else if (ch == 'r')
			json_object_set_new(params, "reason", json_string(optarg));
		else if (ch == 'C')
			json_object_set_new(params, "cwd", json_string(optarg));
		else
			goto usage;
	}
	for (i = optind + 1; i < argc; i++)
		json_array_append_new(av, json_string(argv[i]));
	if (json_array_size(av) == 0 || json_object_get(params,
	    "reason") == NULL)
		goto usage;
	json_object_set_new(params, "argv", av);
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	r = ask_outside_call(o, cl, params, &declined, &err);
	client_close(cl);
	if (r == NULL)
		return client_fail(&err);
	if (o->json)
		client_print_json(r);
	status = exec_status(r);
	json_decref(r);
	return status;
usage:
	json_decref(params);
	json_decref(av);
usage_early:
	return client_usage("usage: sbox session outside ID --reason TEXT "
	    "[--cwd DIR] [--env NAME=VALUE]... -- ARGV...");
}

/* Print the lines under a timeline entry: folder, reason, decision,
 * what the sandbox refused. */
static void
cmd_outside_log_details(const json_t *e)
{
	const char *reason = json_string_value(json_object_get(e, "reason"));
	const char *decision = json_string_value(json_object_get(e, "decision"));
	const char *by = json_string_value(json_object_get(e, "decided_by"));
	json_t *blocked = json_object_get(e, "blocked"), *v;
	char *t;
	size_t i;

	if (json_is_true(json_object_get(e, "outside"))) {
		t = outside_text_escape(json_string_value(json_object_get(e, "cwd")));
		printf("%26s in %s\n", "", t);
		free(t);
	}
	if (reason != NULL) {
		t = outside_text_escape(reason);
		printf("%26s reason: \"%s\"\n", "", t);
		free(t);
	}
	if (decision != NULL) {
		t = outside_text_escape(by);
		printf("%26s %s by %s\n", "", text_show(decision), by ? t :
		    "nobody yet");
		free(t);
	}
	json_array_foreach(json_object_get(e, "refused"), i, v) {
		t = outside_text_escape(json_string_value(json_object_get(v,
		    "host")));
		printf("%26s blocked: host %s:%lld (%s)\n", "", t,
		    (long long)json_integer_value(json_object_get(v, "port")),
		    text_member(v, "rule", "refused"));
		free(t);
	}
	json_array_foreach(json_object_get(blocked, "files"), i, v) {
		t = outside_text_escape(json_string_value(json_object_get(v,
		    "message")));
		printf("%26s blocked: %s\n", "", t);
		free(t);
	}
}

/* How an entry ended, in a few words ("exited 0", "killed 9", "not run"). */
static void
cmd_outside_log_state(const json_t *e, char *buf, size_t len)
{
	const char *state = json_string_value(json_object_get(e, "state"));
	json_t *code = json_object_get(e, "exit_code");
	json_t *sig = json_object_get(e, "signal");
	json_t *ms = json_object_get(e, "duration_ms");

	if (state == NULL)
		state = "?";
	if (strcmp(state, "exited") == 0 && json_is_integer(code))
		snprintf(buf, len, "exited %lld", (long long)
		    json_integer_value(code));
	else if (strcmp(state, "killed") == 0 && json_is_integer(sig))
		snprintf(buf, len, "killed %lld", (long long)
		    json_integer_value(sig));
	else
		snprintf(buf, len, "%s", strcmp(state, "not_run") == 0 ?
		    "not run" : state);
	if (json_is_integer(ms)) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, " (%lld ms)", (long long)
		    json_integer_value(ms));
	}
}

/* Print a session.log result as a readable timeline. */
static void
cmd_outside_log_print(const json_t *r)
{
	json_t *e, *seq;
	char when[32], state[64], num[16];
	char *cmd;
	size_t i;

	json_array_foreach(json_object_get(r, "commands"), i, e) {
		int outside = json_is_true(json_object_get(e, "outside"));
		outside_text_time(e, json_is_integer(json_object_get(e,
		    "started_at_ms")) ? "started_at_ms" : "requested_at_ms",
		    when, sizeof when);
		seq = json_object_get(e, "seq");
		if (json_is_integer(seq))
			snprintf(num, sizeof num, "#%lld", (long long)
			    json_integer_value(seq));
		else
			snprintf(num, sizeof num, "-");
		cmd_outside_log_state(e, state, sizeof state);
		cmd = outside_text_argv(json_object_get(e, "argv"));
		printf("%s %-5s %s%-20s %s\n", when, num,
		    outside ? "OUTSIDE " : "", text_show(state), cmd);
		free(cmd);
		cmd_outside_log_details(e);
	}
}

/* sbox session log ID [--json]: the session's timeline. */
int
cmd_outside_log(const struct client_opts *o, int argc, char **argv)
{
	struct client_opts jo = *o;
	struct client *cl;
	sbox_error err;
	json_t *r;

	if (argc == 3 && strcmp(argv[2], "--json") == 0)
		jo.json = 1;
	else if (argc != 2)
		return client_usage("usage: sbox session log ID [--json]");
	error_clear(&err);
	if ((cl = client_connect(&jo, &err)) == NULL)
		return client_fail(&err);
	r = client_call(cl, "session.log", json_pack("{s:s}", "session",
	    argv[1]), NULL, 0, &err);
	client_close(cl);
	if (r == NULL)
		return client_fail(&err);
	if (jo.json)
		client_print_json(r);
	else
		cmd_outside_log_print(r);
	json_decref(r);
	return EXIT_OK;
}
