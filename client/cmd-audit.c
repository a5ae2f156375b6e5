/* cmd-audit.c: sbox audit [--session ID] [--since TIME] [--decision D]
 * [--json]: every request to run a command outside the sandbox, what was
 * decided, by whom, and how the command ended. */
#include "client/client.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --since: "30m", "2h", "7d" (that long ago), unix ms, or an ISO-8601 UTC
 * time passed on to the daemon. NULL when it is none of those. */
static json_t *
cmd_audit_since(const char *s)
{
	char *end;
	long long n = strtoll(s, &end, 10);
	long long unit = 0;

	if (end == s || n < 0)
		return NULL;
	if (*end == '\0')
		return json_integer(n);
	if (strcmp(end, "s") == 0)
		unit = 1000;
	else if (strcmp(end, "m") == 0)
		unit = 60 * 1000;
	else if (strcmp(end, "h") == 0)
		unit = 3600 * 1000;
	else if (strcmp(end, "d") == 0)
		unit = 24 * 3600 * 1000;
	if (unit != 0)
		return json_integer((long long)time(NULL) * 1000 - n * unit);
	if (*end == '-')   /* a date: the daemon parses it */
		return json_string(s);
	return NULL;
}

/* The result of a request in a few words. */
static void
cmd_audit_result(const json_t *a, char *buf, size_t len)
{
	json_t *code = json_object_get(a, "exit_code");
	json_t *sig = json_object_get(a, "signal");
	json_t *ms = json_object_get(a, "duration_ms");
	const char *decision = json_string_value(json_object_get(a, "decision"));

	if (decision == NULL || strcmp(decision, "allow_once") != 0)
		snprintf(buf, len, "not run");
	else if (json_is_integer(sig) && json_integer_value(sig) > 0)
		snprintf(buf, len, "killed by signal %lld", (long long)
		    json_integer_value(sig));
	else if (json_is_integer(code))
		snprintf(buf, len, "exit %lld", (long long)json_integer_value(code));
	else
		snprintf(buf, len, "%s", json_string_value(json_object_get(a,
		    "command_state")) ? json_string_value(json_object_get(a,
		    "command_state")) : "running");
	if (json_is_integer(ms)) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, " (%lld ms)", (long long)
		    json_integer_value(ms));
	}
}

/* Print audit.list as readable entries. */
static void
cmd_audit_print(const json_t *r)
{
	char when[32], res[64];
	char *reason, *by;
	json_t *a;
	size_t i;

	if (json_array_size(json_object_get(r, "approvals")) == 0)
		printf("no run-outside request\n");
	json_array_foreach(json_object_get(r, "approvals"), i, a) {
		outside_text_time(a, "requested_at_ms", when, sizeof when);
		cmd_audit_result(a, res, sizeof res);
		reason = outside_text_escape(json_string_value(json_object_get(a,
		    "reason")));
		by = outside_text_escape(json_string_value(json_object_get(a,
		    "decided_by")));
		printf("#%lld  %s  session %s  %s  %s\n", (long long)
		    json_integer_value(json_object_get(a, "approval")), when,
		    text_member(a, "session", "?"),
		    text_member(a, "decision", "?"), text_show(res));
		outside_text_print_what(a, "    ");
		printf("    \"%s\"\n", reason);
		if (json_string_value(json_object_get(a, "decided_by")) != NULL)
			printf("    decided by %s%s\n", by, strcmp(by,
			    "terminal") == 0 ? " (the person at the terminal "
			    "that asked)" : "");
		free(reason);
		free(by);
	}
}

/* sbox audit [--session ID] [--since TIME] [--decision D] [--json]. */
int
cmd_audit(const struct client_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "since", required_argument, NULL, 'S' },
		{ "decision", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	json_t *params = json_object(), *since, *r;
	struct client_opts jo = *o;
	struct client *cl;
	sbox_error err;
	int ch;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "+s:S:d:j", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			json_object_set_new(params, "session", json_string(optarg));
			break;
		case 'S':
			if ((since = cmd_audit_since(optarg)) == NULL)
				goto usage;
			json_object_set_new(params, "since", since);
			break;
		case 'd':
			json_object_set_new(params, "decision", json_string(optarg));
			break;
		case 'j':
			jo.json = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	error_clear(&err);
	if ((cl = client_connect(&jo, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	r = client_call(cl, "audit.list", params, NULL, 0, &err);
	client_close(cl);
	if (r == NULL)
		return client_fail(&err);
	if (jo.json)
		client_print_json(r);
	else
		cmd_audit_print(r);
	json_decref(r);
	return EXIT_OK;
usage:
	json_decref(params);
	return client_usage("usage: sbox audit [--session ID] [--since TIME] "
	    "[--decision D] [--json]\n  TIME: 30m, 2h, 7d ago, unix ms, or "
	    "2026-01-02[T03:04:05Z]");
}
