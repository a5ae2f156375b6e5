/* exec.c: running a command in a session with the terminal's own stdio, and
 * turning its result into sbox's exit status. Shared by `session exec`,
 * `session send` and `run`. */
#include "client/client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	if (json_object_get(result, "error") != NULL)
		fprintf(stderr, "sbox: %s\n",
		    json_string_value(json_object_get(result, "error")));
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
