/* exec.c: running a command in a session with the terminal's own stdio, and
 * turning its result into sbox's exit status. Shared by `session exec`,
 * `session send` and `run`. */
#include "client/client.h"
#include "protocol/base64.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t exec_interrupted;

/* SIGINT/SIGTERM/SIGHUP while a command runs: ask the daemon to stop it. */
static void
exec_on_signal(int sig)
{
	exec_interrupted = sig;
}

/* Print what the sandbox refused during the command, one line each. */
void
exec_print_blocked(const json_t *result)
{
	json_t *blocked = json_object_get(result, "blocked"), *v;
	size_t i;

	json_array_foreach(json_object_get(blocked, "files"), i, v)
		fprintf(stderr, "sbox: blocked: %s\n",
		    json_string_value(json_object_get(v, "message")));
	json_array_foreach(json_object_get(blocked, "hosts"), i, v) {
		const char *rule = json_string_value(json_object_get(v, "rule"));
		const char *why = json_string_value(json_object_get(v, "reason"));

		/* the rule and reason as the proxy gave them, nothing guessed */
		fprintf(stderr, "sbox: blocked: connection to %s:%lld refused "
		    "(%s)%s%s\n", json_string_value(json_object_get(v, "host")),
		    (long long)json_integer_value(json_object_get(v, "port")),
		    rule && *rule ? rule : "the sandbox's network rules",
		    why && *why ? ": " : "", why && *why ? why : "");
	}
}

/* The exit status for a command result: its code, or 128+signal. */
int
exec_status(const json_t *result)
{
	json_t *sig = json_object_get(result, "signal");
	json_t *code = json_object_get(result, "exit_code");

	if (json_is_true(json_object_get(result, "timed_out")))
		fprintf(stderr, "sbox: the command timed out and was killed\n");
	if (json_is_string(json_object_get(result, "error"))) {
		const char *msg = json_string_value(json_object_get(result,
		    "error"));
		const char *prog = json_string_value(json_array_get(
		    json_object_get(result, "argv"), 0));
		/* name the program ("cannot run the command: No such file") */
		if (prog != NULL && strstr(msg, prog) == NULL)
			fprintf(stderr, "sbox: %s: %s\n", prog, msg);
		else
			fprintf(stderr, "sbox: %s\n", msg);
	}
	if (json_is_integer(sig) && json_integer_value(sig) > 0)
		return 128 + (int)json_integer_value(sig);
	if (json_is_integer(code))
		return (int)json_integer_value(code);
	return EXIT_FAILED;
}

/* Run params (a command.exec request) with our stdin/stdout/stderr and wait;
 * returns the result (caller owns) or NULL with err. Signals we get while
 * waiting cancel the command (the daemon kills it). */
json_t *
exec_with_terminal(struct client *cl, json_t *params, sbox_error *err)
{
	return exec_call_with_terminal(cl, "command.exec", params, err);
}

/* The same for any method that runs a command with passed fds
 * (command.exec, command.run_outside). */
json_t *
exec_call_with_terminal(struct client *cl, const char *method, json_t *params,
    sbox_error *err)
{
	struct sigaction sa, old_int, old_term, old_hup;
	int fds[3] = { 0, 1, 2 };
	long long id;
	json_t *r = NULL;
	int cancelled = 0;

	json_object_set_new(params, "stdio", json_string("fds"));
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = exec_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	if ((id = client_send(cl, method, params, fds, 3, err)) == -1)
		goto out;
	for (;;) {
		struct pollfd pfd = { client_fd(cl), POLLIN, 0 };
		if (exec_interrupted && !cancelled) {
			cancelled = 1;
			if (client_notify(cl, "$/cancelRequest", json_pack("{s:I}",
			    "id", (json_int_t)id), err) == -1)
				goto out;
		}
		if (poll(&pfd, 1, 200) < 0 && errno != EINTR) {
			error_set_errno(err, E_UNAVAILABLE, errno, "poll");
			goto out;
		}
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (client_pump(cl, err) == -1)
			goto out;
		if ((r = client_try_reply(cl, id, err)) != NULL ||
		    error_isset(err))
			break;
	}
out:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return r;
}

/* On a terminal (stderr), say which profile a session has and where it came
 * from (always when `always`); a session that is not sandboxed gets a
 * warning line instead, on a terminal or when `always`. */
void
exec_note_profile(const json_t *session, int always)
{
	const char *prov = json_string_value(json_object_get(session,
	    "provenance"));
	const char *prof = json_string_value(json_object_get(session, "profile"));

	if (!always && !isatty(2))
		return;
	if (prov == NULL)
		prov = prof ? prof : "?";
	if (json_is_false(json_object_get(session, "sandboxed")))
		client_warn("not sandboxed (%s): commands run with your own rights",
		    prov);
	else
		fprintf(stderr, "sbox: sandbox %s\n", prov);
}

/* Add "sandboxed" (and "profile") of a session to a --json result. */
void
exec_mark_sandboxed(json_t *result, const json_t *session)
{
	json_t *sb = json_object_get(session, "sandboxed");

	if (!json_is_object(result) || !json_is_boolean(sb))
		return;
	json_object_set(result, "sandboxed", sb);
	if (json_is_string(json_object_get(session, "profile")))
		json_object_set(result, "profile", json_object_get(session,
		    "profile"));
}

/* Add the output of a pipes result as text (stdout_text, stderr_text) when
 * it is UTF-8; the base64 fields stay. */
void
exec_add_text(json_t *result)
{
	static const char *keys[][2] = { { "stdout", "stdout_text" },
	    { "stderr", "stderr_text" } };
	unsigned char *raw;
	const char *b64;
	size_t i, n;

	for (i = 0; i < 2; i++) {
		if ((b64 = json_string_value(json_object_get(result,
		    keys[i][0]))) == NULL)
			continue;
		if ((raw = base64_decode(b64, strlen(b64), &n)) == NULL)
			continue;
		json_t *t = json_stringn((const char *)raw, n);
		if (t != NULL)
			json_object_set_new(result, keys[i][1], t);
		free(raw);
	}
}

/* Warn about folders a session's profile grants that do not exist (the
 * sandbox silently goes without them); appends the warnings to the
 * session's "warnings" array (made when missing). */
void
exec_folder_warnings(struct client *cl, json_t *session)
{
	static const char *kinds[][2] = { { "read_write", "read-write" },
	    { "read_only", "read-only" } };
	json_t *info, *folders, *w, *v;
	struct stat st;
	sbox_error err;
	size_t i, k;
	char *msg;

	error_clear(&err);
	info = client_call(cl, "session.info", json_pack("{s:O}", "session",
	    json_object_get(session, "session")), NULL, 0, &err);
	folders = json_object_get(json_object_get(info, "resolved_profile"),
	    "folders");
	if ((w = json_object_get(session, "warnings")) == NULL) {
		w = json_array();
		json_object_set_new(session, "warnings", w);
	}
	for (k = 0; k < 2 && json_is_true(json_object_get(info, "sandboxed"));
	    k++) {
		json_array_foreach(json_object_get(folders, kinds[k][0]), i, v) {
			const char *path = json_string_value(v);
			if (path == NULL || stat(path, &st) == 0)
				continue;
			if (asprintf(&msg, "the folder %s that profile %s grants %s "
			    "does not exist: the sandbox goes without it", path,
			    json_string_value(json_object_get(info, "profile")),
			    kinds[k][1]) == -1)
				continue;
			client_warn("%s", msg);
			json_array_append_new(w, json_string(msg));
			free(msg);
		}
	}
	json_decref(info);
}
