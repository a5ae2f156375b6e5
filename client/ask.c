/* ask.c: after the sandbox refused something, ask the person at the
 * terminal: allow a refused host (for the session, or saved into its
 * profile) and run the command again once, or run a command refused a file
 * write outside the sandbox (through approval). Only when stdin and stdout
 * are terminals, without --no-ask and --json, and never for a client
 * inside a sandbox: those get the explanation lines and the exit code. */
#include "client/client.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "policy/plan.h"

#define ASK_MAX_HOSTS 8

static int ask_fd = -1;	/* the terminal stdin was before send replaced it */

/* Keep a copy of stdin when it is a terminal, before a command replaces it
 * (session send reads its script there, then gives the command /dev/null). */
void
ask_keep_terminal(void)
{
	if (ask_fd == -1 && isatty(0))
		ask_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
}

/* The descriptor answers are read from. */
static int
ask_in(void)
{
	return ask_fd >= 0 ? ask_fd : 0;
}

/* May sbox ask the person: stdin and stdout terminals, no --no-ask, no
 * --json, and not a client inside a sandbox (SBOX_CHANNEL_FD)? */
int
ask_possible(const struct client_opts *o)
{
	if (o->json || o->no_ask || getenv("SBOX_CHANNEL_FD") != NULL)
		return 0;
	return isatty(ask_in()) && isatty(1);
}

/* Print a question where the person sees it (stderr on a terminal, else
 * stdout, which is one) and read one line of answer: its first letter,
 * lower case, or 0 for an empty line or end of input. Input typed before
 * the question is dropped, so it cannot answer it. */
static int
ask_question(const char *q)
{
	FILE *f = isatty(2) ? stderr : stdout;
	char c, first = 0;
	int in = ask_in(), seen = 0;

	fflush(stdout);
	tcflush(in, TCIFLUSH);
	fprintf(f, "%s ", q);
	fflush(f);
	while (read(in, &c, 1) == 1 && c != '\n') {
		if (!seen && c != ' ' && c != '\t' && c != '\r') {
			first = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
			seen = 1;
		}
	}
	return first;
}

/* Is this error the daemon saying the client runs inside a sandbox? */
static int
ask_is_inside(const sbox_error *err)
{
	return strcmp(err->name, E_PERMISSION) == 0;
}

/* Allow one host for the session (save: into its profile too); 1 when it
 * may pass now, 0 when not, -1 when the daemon says this client is inside
 * a sandbox. A profile that cannot be saved into (a built-in one) is said
 * and the host is allowed for the session only. */
static int
ask_allow(struct client *cl, const char *sid, const char *host, int save)
{
	sbox_error err;
	json_t *r;

	error_clear(&err);
	r = client_call(cl, "session.allow_host", json_pack("{s:s, s:s, s:b}",
	    "session", sid, "host", host, "save", save), NULL, 0, &err);
	if (r == NULL && save && !ask_is_inside(&err)) {
		client_warn("%s; %s is allowed for this session only", err.message,
		    host);	/* client_warn shows both safe */
		error_clear(&err);
		r = client_call(cl, "session.allow_host", json_pack("{s:s, s:s}",
		    "session", sid, "host", host), NULL, 0, &err);
	}
	if (r == NULL) {
		if (ask_is_inside(&err))
			client_warn("this client runs inside a sandbox (%s): nothing "
			    "can be allowed from here", err.message);
		else
			client_warn("%s was not allowed: %s", host, err.message);
		return ask_is_inside(&err) ? -1 : 0;
	}
	fprintf(stderr, "sbox: %s may now pass the proxy of session %s%s\n",
	    text_show(host), text_show(sid), json_is_true(json_object_get(r, "saved")) ?
	    " (saved in the profile)" : "");
	json_decref(r);
	return 1;
}

/* Ask about each host refused by the allowlist (once per name); returns
 * how many were allowed, or -1 when the client is inside a sandbox. */
static int
ask_hosts(struct client *cl, const char *sid, const json_t *result)
{
	json_t *seen = json_object(), *v;
	const char *host, *rule;
	int allowed = 0, n = 0, rc = 0;
	char *q, *shown;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(result, "blocked"),
	    "hosts"), i, v) {
		host = json_string_value(json_object_get(v, "host"));
		rule = json_string_value(json_object_get(v, "rule"));
		/* only the allowlist can be changed by allowing a host */
		if (host == NULL || rule == NULL || strcmp(rule,
		    "network allowlist") != 0 || json_object_get(seen, host))
			continue;
		json_object_set_new(seen, host, json_true());
		if (++n > ASK_MAX_HOSTS) {
			fprintf(stderr, "sbox: more hosts were refused; see 'sbox "
			    "session status %s'\n", text_show(sid));
			break;
		}
		shown = cmd_outside_text(host);
		if (asprintf(&q, "Allow %s for this session? [y]es / [s]ave to "
		    "profile / [N]o", shown) == -1)
			q = NULL;
		free(shown);
		if (q == NULL)
			break;
		int a = ask_question(q);
		free(q);
		if (a != 'y' && a != 's')
			continue;
		if ((rc = ask_allow(cl, sid, host, a == 's')) == -1)
			break;
		allowed += rc;
	}
	json_decref(seen);
	return rc == -1 ? -1 : allowed;
}

/* The first refused file that running the command outside would change:
 * a write, or a read of a path hidden by its own rule (credentials, a
 * profile's deny); not a read of the sandbox's empty home (tools probe
 * their dotfiles there all the time) nor an excluded program (it went
 * through approval already). NULL when there is none. */
static json_t *
ask_outside_file(const json_t *result)
{
	json_t *files = json_object_get(json_object_get(result, "blocked"),
	    "files"), *f;
	const char *op, *rule;
	size_t i;

	json_array_foreach(files, i, f) {
		op = json_string_value(json_object_get(f, "op"));
		rule = json_string_value(json_object_get(f, "rule"));
		if (op == NULL || strcmp(op, "exec") == 0 || (strcmp(op,
		    "read") == 0 && rule != NULL && strcmp(rule,
		    PLAN_RULE_HOME) == 0))
			continue;
		return f;
	}
	return NULL;
}

/* Run the command outside the sandbox through approval, as `sbox session
 * outside` does; returns its exit status (77 when denied). */
static int
ask_outside(struct client *cl, const json_t *params, const json_t *result)
{
	json_t *req, *f, *r;
	sbox_error err;
	int status;

	f = ask_outside_file(result);
	req = json_pack("{s:O, s:O, s:s+}", "session", json_object_get(params,
	    "session"), "argv", json_object_get(params, "argv"), "reason",
	    "asked at the terminal after the sandbox refused: ",
	    json_string_value(json_object_get(f, "message")) ?
	    json_string_value(json_object_get(f, "message")) : "a file write");
	if (req == NULL)
		return EXIT_FAILED;
	if (json_object_get(params, "cwd") != NULL)
		json_object_set(req, "cwd", json_object_get(params, "cwd"));
	if (json_object_get(params, "env") != NULL)
		json_object_set(req, "env", json_object_get(params, "env"));
	if (json_object_get(params, "timeout") != NULL)
		json_object_set(req, "timeout", json_object_get(params, "timeout"));
	fprintf(stderr, "sbox: asking to run outside the sandbox; waiting for "
	    "a person to decide ('sbox approvals --watch')...\n");
	error_clear(&err);
	if ((r = exec_call_with_terminal(cl, "command.run_outside", req,
	    &err)) == NULL)
		return client_fail(&err);
	status = exec_status(r);
	json_decref(r);
	return status;
}

/* After a command ran (result; params a copy of its command.exec request;
 * info the session record): ask about refused hosts and run it again once
 * when one was allowed, then about a refused file write (run it outside).
 * Returns the exit status sbox ends with. */
int
ask_after(const struct client_opts *o, struct client *cl, const json_t *params,
    const json_t *result, const json_t *info, int status)
{
	const char *sid = json_string_value(json_object_get(params, "session"));
	const char *ro = json_string_value(json_object_get(json_object_get(info,
	    "resolved_profile"), "run_outside"));
	json_t *again = NULL, *r2;
	sbox_error err;
	int allowed;

	/* a person who stopped the command is not asked about it */
	if (sid == NULL || !ask_possible(o) || exec_was_interrupted())
		return status;
	if ((allowed = ask_hosts(cl, sid, result)) == -1)
		return status;
	if (allowed > 0) {
		fprintf(stderr, "sbox: running the command again\n");
		error_clear(&err);
		/* as it ran the first time: on a terminal of the sandbox when
		 * the request says "tty" */
		if ((again = json_deep_copy(params)) == NULL ||
		    (r2 = json_object_get(again, "tty") != NULL ?
		    exec_tty_run(o, cl, again, &err) :
		    exec_with_terminal(cl, again, &err)) == NULL)
			return error_isset(&err) ? client_fail(&err) : EXIT_FAILED;
		exec_explain_blocked(r2, info, o->one_shot);
		exec_print_blocked(r2);
		status = exec_status(r2);
		result = r2;
	} else
		r2 = NULL;
	if (ask_outside_file(result) != NULL && (ro == NULL ||
	    strcmp(ro, "never") != 0) &&
	    ask_question("Run this command outside the sandbox? (asks for "
	    "approval) [y/N]") == 'y')
		status = ask_outside(cl, params, result);
	json_decref(r2);
	return status;
}
