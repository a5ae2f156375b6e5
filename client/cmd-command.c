/* cmd-command.c: sbox command list|read|wait|kill|follow: the commands and
 * background jobs of a session, by their id (the number `session exec
 * --detach` prints, the same in `session log`). */
#include "client/client.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "protocol/base64.h"

/* A command id argument; -1 when it is not a positive number. */
static long long
cmd_command_id(const char *s)
{
	char *end;
	long long id = strtoll(s, &end, 10);

	return (*end != '\0' || id <= 0) ? -1 : id;
}

/* Write the kept output of a result (base64 stdout/stderr) to our own
 * (through the filter of show). */
static void
cmd_command_write_output(const json_t *r, struct ttyshow *show)
{
	static const char *keys[] = { "stdout", "stderr" };
	unsigned char *raw;
	const char *b64;
	size_t i, n;

	for (i = 0; i < 2; i++) {
		if ((b64 = json_string_value(json_object_get(r, keys[i]))) == NULL ||
		    (raw = base64_decode(b64, strlen(b64), &n)) == NULL)
			continue;
		ttyshow_write(show, (int)i, raw, n);
		free(raw);
	}
}

/* Print the session's commands as a table. */
static void
cmd_command_print_list(const json_t *r)
{
	char state[64];
	json_t *c;
	size_t i;

	printf("%-8s %-5s %-14s %s\n", "COMMAND", "SEQ", "STATE", "ARGV");
	json_array_foreach(json_object_get(r, "commands"), i, c) {
		char *av = outside_text_argv(json_object_get(c, "argv"));
		json_t *code = json_object_get(c, "exit_code");
		snprintf(state, sizeof state, "%s%s", json_string_value(
		    json_object_get(c, "state")) ? json_string_value(
		    json_object_get(c, "state")) : "?", json_is_true(
		    json_object_get(c, "outside")) ? " (outside)" : "");
		if (json_is_integer(code))
			snprintf(state + strlen(state), sizeof state - strlen(state),
			    " %lld", (long long)json_integer_value(code));
		printf("%-8lld %-5lld %-14s %s\n", (long long)json_integer_value(
		    json_object_get(c, "command")), (long long)json_integer_value(
		    json_object_get(c, "seq")), text_show(state), av ? av : "");
		free(av);
	}
}

/* A signal by number (1-64) or name (KILL, SIGKILL, kill); -1 when it is
 * neither. */
static long long
cmd_command_signal(const char *v, char **end)
{
	const char *name = v, *abbrev;
	long long n;
	int i;

	n = strtoll(v, end, 10);
	if (v[0] != '\0' && **end == '\0')
		return n > 0 && n <= 64 ? n : -1;
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (i = 1; i < 65; i++)
		if ((abbrev = sigabbrev_np(i)) != NULL &&
		    strcasecmp(abbrev, name) == 0)
			return i;
	return -1;
}

/* sbox command list|read|wait|kill ... */
int
cmd_command(const struct client_opts *o, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";
	struct client *cl;
	json_t *params, *r;
	long long id = -1, sig = 15;
	const char *method;
	sbox_error err;
	char *end;
	int i, rc = EXIT_OK;
	struct ttyshow show;

	if (strcmp(sub, "list") == 0) {
		if (argc != 3)
			return client_usage("sbox command list takes one session id");
		method = "command.list";
		params = json_pack("{s:s}", "session", argv[2]);
	} else if (strcmp(sub, "follow") == 0) {
		if (argc != 3 || (id = cmd_command_id(argv[2])) == -1)
			return client_usage("sbox command follow takes a command id "
			    "(the number 'sbox command list' shows)");
		return cmd_command_follow(o, id);
	} else if (strcmp(sub, "read") == 0 || strcmp(sub, "wait") == 0 ||
	    strcmp(sub, "kill") == 0) {
		for (i = 2; i < argc; i++) {
			if ((strcmp(argv[i], "--signal") == 0 && i + 1 < argc) ||
			    strncmp(argv[i], "--signal=", 9) == 0) {
				const char *v = argv[i][8] == '=' ? argv[i] + 9 :
				    argv[++i];
				if (sub[0] != 'k' || (sig = cmd_command_signal(v,
				    &end)) == -1)
					return client_usage("--signal takes a signal "
					    "name or number (KILL, SIGTERM, 9), not \"%s\"",
					    v);
			} else if (id == -1 && (id = cmd_command_id(argv[i])) == -1)
				return client_usage("\"%s\" is not a command id (the "
				    "number 'sbox command list' shows)", argv[i]);
			else if (id != -1 && cmd_command_id(argv[i]) != id)
				return client_usage("unexpected argument \"%s\"",
				    argv[i]);
		}
		if (id == -1)
			return client_usage("sbox command %s takes a command id", sub);
		method = sub[0] == 'r' ? "command.read" : sub[0] == 'w' ?
		    "command.wait" : "command.kill";
		params = json_pack("{s:I}", "command", (json_int_t)id);
		if (sub[0] == 'k')
			json_object_set_new(params, "signal", json_integer(sig));
	} else
		return client_usage("sbox command needs a subcommand: list, read, "
		    "wait, kill, follow");
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL) {
		json_decref(params);
		return client_fail(&err);
	}
	r = client_call(cl, method, params, NULL, 0, &err);
	/* (asked while connected: the config says whether to filter) */
	ttyshow_init(&show, r != NULL && !o->json && (sub[0] == 'r' ||
	    sub[0] == 'w') && (isatty(1) || isatty(2)) && exec_tty_drops(o, cl));
	if (r != NULL && o->json && json_is_string(json_object_get(r, "session"))) {
		/* say whether it ran in a sandbox, as every --json result does */
		json_t *info = client_call(cl, "session.info", json_pack("{s:O}",
		    "session", json_object_get(r, "session")), NULL, 0, &err);
		exec_mark_sandboxed(r, info);
		json_decref(info);
		error_clear(&err);
	}
	client_close(cl);
	if (r == NULL)
		return client_fail(&err);
	if (sub[0] == 'w')
		rc = exec_status(r);
	if (o->json) {
		exec_add_text(r);
		client_print_json(r);
	} else if (sub[0] == 'l')
		cmd_command_print_list(r);
	else if (sub[0] == 'k')
		printf("sent signal %lld to command %lld\n", sig, id);
	else {
		cmd_command_write_output(r, &show);
		ttyshow_end(&show);
		if (sub[0] == 'r' && json_is_integer(json_object_get(r,
		    "running_ms")))
			fprintf(stderr, "sbox: command %lld is running (%lld s)\n", id,
			    (long long)json_integer_value(json_object_get(r,
			    "running_ms")) / 1000);
		else if (sub[0] == 'r')
			fprintf(stderr, "sbox: command %lld %s\n", id,
			    text_member(r, "state", "ended"));
	}
	json_decref(r);
	return rc;
}
