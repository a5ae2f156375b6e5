/* ask.c: after the sandbox refused something, ask the person at the
 * terminal: allow a refused host (for the session, or saved into its
 * profile) and run the command again once, or run a command refused a file
 * write outside the sandbox. Only when stdin and stdout are terminals,
 * without --no-ask and --json, and never for a client inside a sandbox:
 * those get the explanation lines and the exit code. One key answers (no
 * Enter after it). A run outside asked at a terminal is answered there:
 * sboxd sends this client exactly what would run (approval.asked), the
 * person's key decides it (decided_by "terminal"); another approver may
 * answer first. */
#include "client/client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
 * stdout, which is one) and read one key, without waiting for Enter: the
 * key in lower case, '\n' for Enter, or 0 at end of input (or Ctrl-C);
 * -1 when wake (>= 0) has something to read first (the question was
 * answered elsewhere). Input typed before the question is dropped, so it
 * cannot answer it. */
static int
ask_question_or(const char *q, int wake)
{
	FILE *f = isatty(2) ? stderr : stdout;
	struct termios old, raw;
	int in = ask_in(), got = 0, saved;
	ssize_t n;
	char c = 0;

	fflush(stdout);
	saved = tcgetattr(in, &old) == 0;
	if (saved) {
		raw = old;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(in, TCSANOW, &raw);
	}
	tcflush(in, TCIFLUSH);
	fprintf(f, "%s ", q);
	fflush(f);
	for (;;) {
		struct pollfd pfd[2] = { { in, POLLIN, 0 }, { wake, POLLIN, 0 } };
		if (poll(pfd, wake >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR && !exec_was_interrupted())
				continue;
			n = -1;
			break;
		}
		if (wake >= 0 && (pfd[1].revents & (POLLIN | POLLHUP)) &&
		    !(pfd[0].revents & POLLIN)) {
			fprintf(f, "(answered elsewhere)\n");
			fflush(f);
			if (saved)
				tcsetattr(in, TCSANOW, &old);
			return -1;
		}
		do
			n = read(in, &c, 1);
		while (n < 0 && errno == EINTR && !exec_was_interrupted());
		break;
	}
	if (n == 1 && c != 0x03 && c != 0x04) {
		got = c == '\r' || c == '\n' ? '\n' : c >= 'A' && c <= 'Z' ?
		    c - 'A' + 'a' : (unsigned char)c;
		fprintf(f, "%c", got == '\n' || (unsigned char)c < 0x20 ||
		    (unsigned char)c >= 0x7f ? ' ' : c);
	}
	fprintf(f, "\n");
	fflush(f);
	if (saved)
		tcsetattr(in, TCSANOW, &old);
	return got;
}

/* ask_question_or without anything else to wait for. */
static int
ask_question(const char *q)
{
	return ask_question_or(q, -1);
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
		shown = outside_text_escape(host);
		if (asprintf(&q, "Allow %s? [Enter] for this session / [a] "
		    "and save it to the profile / [n] no", shown) == -1)
			q = NULL;
		free(shown);
		if (q == NULL)
			break;
		int a = ask_question(q);
		free(q);
		/* Enter (or y) allows, a (or s) saves too, anything else no */
		if (a != '\n' && a != 'y' && a != 'a' && a != 's')
			continue;
		if ((rc = ask_allow(cl, sid, host, a == 'a' || a == 's')) == -1)
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

/* What a run outside asked at this terminal needs to answer it. */
struct ask_term {
	struct client *cl;
	int            asked;     /* sboxd showed what would run */
	int            declined;  /* the person said no */
};

/* approval.asked: show exactly what would run (program, argv, folder,
 * variables) and let the person's key decide it, as the terminal. */
static int
ask_term_cb(const char *method, json_t *params, void *arg)
{
	struct ask_term *t = arg;
	json_t *id = json_object_get(params, "approval");
	sbox_error err;
	int k;

	if (strcmp(method, "approval.asked") != 0 || t->asked ||
	    !json_is_integer(id))
		return 0;
	t->asked = 1;
	printf("sbox: this would run outside the sandbox, with your rights:\n");
	outside_text_print_what(params, "  ");
	k = ask_question_or("Run it outside the sandbox now? [y] yes / [n] no "
	    "(the default)", client_fd(t->cl));
	if (k == -1)
		return 0;	/* another approver answered first */
	t->declined = k != 'y';
	error_clear(&err);
	if (client_send(t->cl, "approval.decide", json_pack("{s:O, s:s, s:b}",
	    "approval", id, "decision", t->declined ? "deny" : "allow_once",
	    "terminal", 1), NULL, 0, &err) == -1)
		client_warn("%s", err.message);
	return 0;
}

/* Ask sboxd to run req outside the sandbox with this terminal's stdio;
 * at a terminal (ask_possible), the person here answers it. The result,
 * or NULL with err; *declined: the person here said no. */
json_t *
ask_outside_call(const struct client_opts *o, struct client *cl, json_t *req,
    int *declined, sbox_error *err)
{
	struct ask_term t = { cl, 0, 0 };
	mode_t m = umask(022);
	json_t *r;

	umask(m);
	*declined = 0;
	json_object_set_new(req, "umask", json_integer((json_int_t)m));
	if (!ask_possible(o)) {
		fprintf(stderr, "sbox: asking to run outside the sandbox; waiting "
		    "for a person to decide ('sbox approvals --watch')...\n");
		return exec_call_with_terminal(cl, "command.run_outside", req, err);
	}
	json_object_set_new(req, "terminal", json_true());
	fprintf(stderr, "sbox: asking to run outside the sandbox...\n");
	client_on_notify(cl, ask_term_cb, &t);
	r = exec_call_with_terminal(cl, "command.run_outside", req, err);
	client_on_notify(cl, NULL, NULL);
	*declined = t.declined;
	return r;
}

/* Run the command outside the sandbox, asked here (as `sbox session
 * outside` does); returns its exit status, status when the person here
 * said no (nothing ran), 77 when denied elsewhere. */
static int
ask_outside(const struct client_opts *o, struct client *cl,
    const json_t *params, const json_t *result, int status)
{
	json_t *req, *f, *r;
	sbox_error err;
	int declined;

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
	error_clear(&err);
	if ((r = ask_outside_call(o, cl, req, &declined, &err)) == NULL) {
		if (declined && strcmp(err.name, E_DENIED) == 0) {
			fprintf(stderr, "sbox: not run outside the sandbox\n");
			return status;
		}
		return client_fail(&err);
	}
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
	/* a refused write: what would run outside is shown, and the
	 * person's key here decides it */
	if (ask_outside_file(result) != NULL && (ro == NULL ||
	    strcmp(ro, "never") != 0))
		status = ask_outside(o, cl, params, result, status);
	json_decref(r2);
	return status;
}
