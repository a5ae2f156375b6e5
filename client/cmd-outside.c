/* cmd-outside.c: sbox session outside (ask to run one command outside the
 * sandbox) and sbox session log (the session's timeline), and the text
 * helpers that show what an agent wrote without letting it drive the
 * terminal. */
#include "client/client.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Append n bytes to a growing string; -1 on ENOMEM. */
static int
cmd_outside_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t ncap = (*cap + n + 1) * 2;
		char *nb = realloc(*buf, ncap);
		if (nb == NULL)
			return -1;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

/* Append s made safe to print (client/text.c). */
static int
cmd_outside_put_clean(char **buf, size_t *len, size_t *cap, const char *s)
{
	char *t = text_safe(s);
	int rc = cmd_outside_put(buf, len, cap, t, strlen(t));

	free(t);
	return rc;
}

/* A string with control and direction-changing characters escaped. */
char *
cmd_outside_text(const char *s)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (cmd_outside_put(&buf, &len, &cap, "", 0) == -1 ||
	    cmd_outside_put_clean(&buf, &len, &cap, s != NULL ? s : "") == -1) {
		free(buf);
		return strdup("?");
	}
	return buf;
}

/* Does an argument need quotes to read as one word? */
static int
cmd_outside_needs_quotes(const char *a)
{
	if (*a == '\0')
		return 1;
	for (; *a != '\0'; a++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_@%+=:,./-", *a) == NULL &&
		    !((unsigned char)*a & 0x80))
			return 1;
	}
	return 0;
}

/* argv as one shell-like line (quoted where needed). */
char *
cmd_outside_argv_text(const json_t *argv)
{
	char *buf = NULL, *t;
	size_t len = 0, cap = 0, i, n;
	const char *a, *q;
	json_t *v;
	int rc = cmd_outside_put(&buf, &len, &cap, "", 0);

	json_array_foreach(argv, i, v) {
		a = json_string_value(v) ? json_string_value(v) : "";
		if (i > 0)
			rc |= cmd_outside_put(&buf, &len, &cap, " ", 1);
		if (!cmd_outside_needs_quotes(a)) {
			rc |= cmd_outside_put_clean(&buf, &len, &cap, a);
			continue;
		}
		rc |= cmd_outside_put(&buf, &len, &cap, "'", 1);
		for (q = a; *q != '\0'; q += n) {
			if (*q == '\'') {
				rc |= cmd_outside_put(&buf, &len, &cap, "'\\''", 4);
				n = 1;
				continue;
			}
			/* up to the next quote, made safe as a whole */
			n = strcspn(q, "'");
			if ((t = text_safen(q, n)) == NULL)
				rc = -1;
			else
				rc |= cmd_outside_put(&buf, &len, &cap, t, strlen(t));
			free(t);
		}
		rc |= cmd_outside_put(&buf, &len, &cap, "'", 1);
	}
	if (rc != 0) {
		free(buf);
		return strdup("?");
	}
	return buf;
}

/* Print exactly what a run-outside request runs (an approval.requested
 * event or a request record), each line after indent: the command line,
 * the absolute program (marked when the sandbox could have written it),
 * the folder (marked when the sandbox can write it: programs that read
 * their settings from it run what the sandbox wrote), every variable added
 * and every name dropped. */
void
cmd_outside_print_what(const json_t *req, const char *indent)
{
	const char *program = json_string_value(json_object_get(req,
	    "program"));
	json_t *env = json_object_get(req, "env"), *v, *one;
	const char *k;
	char *t, *names = NULL;
	size_t i, len = 0, cap = 0;

	/* What the request wrote (argv, values: maybe long) first; the
	 * facts sboxd fixed last, next to the question. */
	t = cmd_outside_argv_text(json_object_get(req, "argv"));
	printf("%s%s\n", indent, t);
	free(t);
	json_object_foreach(env, k, v) {
		one = json_array();
		json_array_append_new(one, json_sprintf("%s=%s", k,
		    json_string_value(v) ? json_string_value(v) : ""));
		t = cmd_outside_argv_text(one);
		printf("%s  adds %s\n", indent, t);
		free(t);
		json_decref(one);
	}
	if (program != NULL) {
		t = cmd_outside_text(program);
		printf("%s  runs %s\n", indent, t);
		if (json_is_true(json_object_get(req, "program_writable")))
			printf("%s  !! written by the sandbox: %s lies in a "
			    "folder the sandbox can write\n", indent, t);
		free(t);
	}
	t = cmd_outside_text(json_string_value(json_object_get(req, "cwd")));
	printf("%s  in %s%s\n", indent, t, json_is_true(json_object_get(req,
	    "cwd_writable")) ? "  (the sandbox can write this folder)" : "");
	free(t);
	json_array_foreach(json_object_get(req, "env_dropped"), i, v) {
		char name[68];
		/* Dropped names are not passed: a long one is shown cut. */
		snprintf(name, sizeof name, "%.64s%s", json_string_value(v) ?
		    json_string_value(v) : "?", json_string_length(v) > 64 ?
		    "..." : "");
		if (len > 0)
			cmd_outside_put(&names, &len, &cap, ", ", 2);
		cmd_outside_put_clean(&names, &len, &cap, name);
	}
	if (len > 0)
		printf("%s  drops %s (not passed: they could change what runs)\n",
		    indent, names);
	free(names);
}

/* A store time (NAME_at_ms of a record) as local "YYYY-MM-DD HH:MM:SS". */
void
cmd_outside_time(const json_t *rec, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(rec, key);
	time_t t;
	struct tm tm;

	if (!json_is_integer(v)) {
		snprintf(buf, len, "%-19s", "-");
		return;
	}
	t = (time_t)(json_integer_value(v) / 1000);
	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

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
		t = cmd_outside_text(json_string_value(json_object_get(e, "cwd")));
		printf("%26s in %s\n", "", t);
		free(t);
	}
	if (reason != NULL) {
		t = cmd_outside_text(reason);
		printf("%26s reason: \"%s\"\n", "", t);
		free(t);
	}
	if (decision != NULL) {
		t = cmd_outside_text(by);
		printf("%26s %s by %s\n", "", text_show(decision), by ? t :
		    "nobody yet");
		free(t);
	}
	json_array_foreach(json_object_get(e, "refused"), i, v) {
		t = cmd_outside_text(json_string_value(json_object_get(v,
		    "host")));
		printf("%26s blocked: host %s:%lld (%s)\n", "", t,
		    (long long)json_integer_value(json_object_get(v, "port")),
		    text_member(v, "rule", "refused"));
		free(t);
	}
	json_array_foreach(json_object_get(blocked, "files"), i, v) {
		t = cmd_outside_text(json_string_value(json_object_get(v,
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
		cmd_outside_time(e, json_is_integer(json_object_get(e,
		    "started_at_ms")) ? "started_at_ms" : "requested_at_ms",
		    when, sizeof when);
		seq = json_object_get(e, "seq");
		if (json_is_integer(seq))
			snprintf(num, sizeof num, "#%lld", (long long)
			    json_integer_value(seq));
		else
			snprintf(num, sizeof num, "-");
		cmd_outside_log_state(e, state, sizeof state);
		cmd = cmd_outside_argv_text(json_object_get(e, "argv"));
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
