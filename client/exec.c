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
static void (*exec_sent_cb)(struct client *, void *);
static void *exec_sent_arg;

/* SIGINT/SIGTERM/SIGHUP while a command runs: ask the daemon to stop it. */
static void
exec_on_signal(int sig)
{
	exec_interrupted = sig;
}

/* What a person can do about a refused host, by its rule (host already
 * escaped for the terminal); sid is NULL for a one-shot session. */
static char *
exec_host_advice(const char *rule, const char *host, const char *sid,
    const char *why)
{
	/* the kinds of address no setting lets through (proxy-addr.c) */
	static const char *const never[] = { "metadata address",
	    "loopback address", "link-local address", "multicast address",
	    "unspecified address", "broadcast address", "this network address",
	    NULL };
	char *s = NULL;
	int rc, i;

	for (i = 0; why != NULL && never[i] != NULL; i++)
		if (strcmp(rule, "non-public addresses") == 0 &&
		    strstr(why, never[i]) != NULL)
			return asprintf(&s, "no setting allows it: sbox never "
			    "connects to a %s (private_hosts does not apply); if "
			    "\"%s\" should be a public host, check what it "
			    "resolves to (the config's \"resolve\", /etc/hosts, "
			    "DNS)", never[i], host) == -1 ? NULL : s;
	if (strcmp(rule, "network allowlist") == 0 && sid != NULL)
		rc = asprintf(&s, "a person can allow it: sbox session allow-host "
		    "%s %s (--save keeps it in a custom profile)", sid, host);
	else if (strcmp(rule, "network allowlist") == 0)
		rc = asprintf(&s, "a person can allow it: answer y when sbox asks "
		    "at a terminal, or add \"%s\" to the \"hosts\" of a custom "
		    "profile in the config", host);
	else if (strcmp(rule, "non-public addresses") == 0)
		rc = asprintf(&s, "allowing the host does not change this; a "
		    "person can add \"%s\" to the \"private_hosts\" of a custom "
		    "profile (loopback and metadata addresses stay refused)", host);
	else if (strcmp(rule, "network: none") == 0)
		rc = asprintf(&s, "a person can choose a profile with network "
		    "access (for example --sandbox workspace)");
	else if (strcmp(rule, "Host header check") == 0)
		rc = asprintf(&s, "nothing for a person to allow: send a Host "
		    "header equal to the request target");
	else
		rc = asprintf(&s, "a person can see the profile's network rules "
		    "with sbox sandbox show");
	return rc == -1 ? NULL : s;
}

/* What a person can do about a refused file write (sid NULL for a one-shot
 * session; never: the profile's run_outside is "never"). */
static char *
exec_file_advice(const char *sid, const char *profile, int never)
{
	char *s = NULL;
	int rc;

	if (never)
		rc = asprintf(&s, "profile %s never runs a command outside the "
		    "sandbox: a person can run it themselves", profile);
	else if (sid != NULL)
		rc = asprintf(&s, "a person can run the command outside the "
		    "sandbox, with approval: sbox session outside %s --reason WHY "
		    "-- COMMAND", sid);
	else
		rc = asprintf(&s, "a person can run the command outside the "
		    "sandbox, with approval: answer y when sbox asks at a terminal");
	return rc == -1 ? NULL : s;
}

/* Set an entry's "explanation" from a sentence and its advice (both freed). */
static void
exec_set_explanation(json_t *entry, char *what, char *advice)
{
	if (what != NULL && advice != NULL)
		json_object_set_new(entry, "explanation", json_sprintf("%s; %s",
		    what, advice));
	free(what);
	free(advice);
}

/* Add to each entry of a result's blocked.hosts and blocked.files an
 * "explanation": what was refused, by which rule, and what a person can do
 * (info is the session record; one_shot: the session closes after this
 * command, so no advice names it). Text from the sandbox is escaped. */
void
exec_explain_blocked(json_t *result, const json_t *info, int one_shot)
{
	json_t *blocked = json_object_get(result, "blocked"), *v;
	const char *sid = one_shot ? NULL : json_string_value(json_object_get(
	    info, "session"));
	const char *prof = json_string_value(json_object_get(info, "profile"));
	const char *ro = json_string_value(json_object_get(json_object_get(info,
	    "resolved_profile"), "run_outside"));
	char *what, *host, *t1, *t2;
	size_t i;

	json_array_foreach(json_object_get(blocked, "files"), i, v) {
		t1 = outside_text_escape(json_string_value(json_object_get(v,
		    "message")));
		t2 = outside_text_escape(json_string_value(json_object_get(v,
		    "reason")));
		if (asprintf(&what, "%s%s%s%s", t1, t2[0] ? " (" : "", t2,
		    t2[0] ? ")" : "") == -1)
			what = NULL;
		exec_set_explanation(v, what, exec_file_advice(sid, prof ? prof :
		    "?", ro != NULL && strcmp(ro, "never") == 0));
		free(t1);
		free(t2);
	}
	json_array_foreach(json_object_get(blocked, "hosts"), i, v) {
		const char *rule = json_string_value(json_object_get(v, "rule"));
		const char *why = json_string_value(json_object_get(v, "reason"));

		if (rule == NULL || rule[0] == '\0')
			rule = "the sandbox's network rules";
		host = outside_text_escape(json_string_value(json_object_get(v,
		    "host")));
		t2 = outside_text_escape(why);
		/* the rule and reason as the proxy gave them, nothing guessed */
		if (asprintf(&what, "connection to %s:%lld refused by rule \"%s\"%s"
		    "%s", host, (long long)json_integer_value(json_object_get(v,
		    "port")), rule, t2[0] ? ": " : "", t2) == -1)
			what = NULL;
		exec_set_explanation(v, what, exec_host_advice(rule, host, sid,
		    why));
		free(host);
		free(t2);
	}
	/* allowed hosts the proxy could not reach: the cause it saw */
	json_array_foreach(json_object_get(blocked, "unreachable"), i, v) {
		host = outside_text_escape(json_string_value(json_object_get(v,
		    "host")));
		t2 = outside_text_escape(json_string_value(json_object_get(v,
		    "cause")));
		json_object_set_new(v, "explanation", json_sprintf("connection "
		    "to %s:%lld failed: %s", host, (long long)json_integer_value(
		    json_object_get(v, "port")), t2));
		free(host);
		free(t2);
	}
}

/* Print what the sandbox refused during the command, one line each (the
 * explanation when exec_explain_blocked added one), but for what was shown
 * while it ran ("shown": exec_live_mark). */
void
exec_print_blocked(const json_t *result)
{
	json_t *blocked = json_object_get(result, "blocked"), *v;
	const char *ex;
	size_t i;

	json_array_foreach(json_object_get(blocked, "files"), i, v) {
		if (json_is_true(json_object_get(v, "shown")))
			continue;
		if ((ex = json_string_value(json_object_get(v, "explanation"))) ==
		    NULL)
			ex = json_string_value(json_object_get(v, "message"));
		fprintf(stderr, "sbox: blocked: %s\n", ex ? text_show(ex) : "?");
	}
	json_array_foreach(json_object_get(blocked, "hosts"), i, v) {
		if (json_is_true(json_object_get(v, "shown")))
			continue;
		if ((ex = json_string_value(json_object_get(v, "explanation"))) !=
		    NULL)
			fprintf(stderr, "sbox: blocked: %s\n", text_show(ex));
		else
			fprintf(stderr, "sbox: blocked: connection to %s:%lld "
			    "refused\n", text_member(v, "host", "?"),
			    (long long)json_integer_value(json_object_get(v,
			    "port")));
	}
	json_array_foreach(json_object_get(blocked, "unreachable"), i, v) {
		if (!json_is_true(json_object_get(v, "shown")) && (ex =
		    json_string_value(json_object_get(v, "explanation"))) != NULL)
			fprintf(stderr, "sbox: blocked: %s\n", ex);
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
			fprintf(stderr, "sbox: %s: %s\n", text_show(prog),
			    text_show(msg));
		else
			fprintf(stderr, "sbox: %s\n", text_show(msg));
	}
	if (json_is_integer(sig) && json_integer_value(sig) > 0)
		return 128 + (int)json_integer_value(sig);
	if (json_is_integer(code))
		return (int)json_integer_value(code);
	return EXIT_FAILED;
}

/* Was the last command run with the terminal interrupted (SIGINT, SIGTERM,
 * SIGHUP: the person asked it to stop)? */
int
exec_was_interrupted(void)
{
	return exec_interrupted != 0;
}

/* Note that the person stopped the command with a signal to sbox (0:
 * not), for exec_was_interrupted (exec-tty.c). */
void
exec_note_interrupted(int sig)
{
	exec_interrupted = sig;
}

/* Call cb(cl, arg) once, after the next exec_call_with_terminal's request
 * went out and before it waits. */
void
exec_after_send(void (*cb)(struct client *, void *), void *arg)
{
	exec_sent_cb = cb;
	exec_sent_arg = arg;
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
	/* into a sandbox: our terminal through pipes (exec-relay.c) */
	int relay = strcmp(method, "command.exec") == 0;
	struct exec_relay rl;
	struct pollfd pfd[4];
	long long id;
	json_t *r = NULL;
	int cancelled = 0, n;

	exec_interrupted = 0;
	json_object_set_new(params, "stdio", json_string("fds"));
	/* the answer is all it waits for (the output goes to the fds):
	 * no command.started, one wakeup fewer of sbox and of sboxd */
	if (relay)
		json_object_set_new(params, "started", json_false());
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = exec_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	if (relay && exec_relay_open(&rl, err) == -1) {
		relay = 0;
		goto out;
	}
	if (!relay)
		for (n = 0; n < 3; n++)
			rl.pass[n] = n;
	if ((id = client_send(cl, method, params, rl.pass, 3, err)) == -1)
		goto out;
	if (relay)
		exec_relay_sent(&rl);
	if (exec_sent_cb != NULL) {
		void (*cb)(struct client *, void *) = exec_sent_cb;
		exec_sent_cb = NULL;
		cb(cl, exec_sent_arg);
		/* what it read may hold our answer already */
		if ((r = client_try_reply(cl, id, err)) != NULL ||
		    error_isset(err))
			goto out;
	}
	for (;;) {
		int rc;

		if (exec_interrupted && !cancelled) {
			cancelled = 1;
			if (client_notify(cl, "$/cancelRequest", json_pack("{s:I}",
			    "id", (json_int_t)id), err) == -1)
				goto out;
		}
		if (relay) {
			/* the relay's fds and the daemon's answer together */
			pfd[0] = (struct pollfd){ client_fd(cl), POLLIN, 0 };
			n = exec_relay_pollfds(&rl, pfd + 1);
			if (poll(pfd, (nfds_t)n + 1, 200) > 0)
				exec_relay_step(&rl, pfd + 1, n);
			if ((rc = client_wait_step(cl, id, 0, &r, err)) < 0)
				goto out;
		} else if ((rc = client_wait_step(cl, id, 200, &r, err)) < 0)
			goto out;
		if (rc > 0)
			break;
	}
out:
	exec_sent_cb = NULL;
	if (relay)
		exec_relay_close(&rl);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return r;
}

/* On a terminal (stderr), say which profile a session has and where it came
 * from (always when `always`); a session that is not sandboxed gets a
 * warning line instead, always: whatever stdout and stderr are. */
void
exec_note_profile(const json_t *session, int always)
{
	const char *prov = json_string_value(json_object_get(session,
	    "provenance"));
	const char *prof = json_string_value(json_object_get(session, "profile"));

	if (!always && !isatty(2) && !json_is_false(json_object_get(session,
	    "sandboxed")))
		return;
	if (prov == NULL)
		prov = prof ? prof : "?";
	if (json_is_false(json_object_get(session, "sandboxed")))
		client_warn("not sandboxed (%s): commands run with your own rights",
		    prov);
	else
		fprintf(stderr, "sbox: sandbox %s\n", text_show(prov));
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

/* Drop sboxd's "env: not passed into the sandbox" line from a new session's
 * warnings: the CLI sends its whole environment (the sandbox takes what its
 * profile allows), so the line would list the shell's own variables on
 * every call; the names stay in "env_dropped". */
void
exec_quiet_env_warning(json_t *session)
{
	json_t *w = json_object_get(session, "warnings");
	const char *line;
	size_t i;

	for (i = 0; i < json_array_size(w);) {
		line = json_string_value(json_array_get(w, i));
		if (line != NULL && strncmp(line, "env: not passed", 15) == 0)
			json_array_remove(w, i);
		else
			i++;
	}
}
