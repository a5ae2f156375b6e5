/* cmd-approvals.c: sbox approvals [--watch], sbox approve ID, sbox deny ID:
 * the person's side of running a command outside the sandbox. */
#include "client/client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* What --watch keeps between notifications. */
struct cmd_approvals_watch {
	json_t    *queue;     /* requests not yet shown, oldest first */
	json_t    *current;   /* the request being asked about, or NULL */
	json_t    *decided;   /* {"<id>": true} decided elsewhere or by us */
	int        in_fd;     /* where the answer is read from */
};

static volatile sig_atomic_t cmd_approvals_stop;
/* The signal mask while --watch waits: SIGINT, SIGTERM and SIGHUP are
 * blocked everywhere else, so that one that comes between the check of
 * cmd_approvals_stop and the wait is not lost (ppoll takes it). */
static sigset_t cmd_approvals_waitmask;

/* SIGINT/SIGTERM/SIGHUP during --watch: stop. */
static void
cmd_approvals_on_signal(int sig)
{
	cmd_approvals_stop = sig;
}

/* The id of a request (event data or a record): "approval" in both. */
static long long
cmd_approvals_id(const json_t *req)
{
	return (long long)json_integer_value(json_object_get(req, "approval"));
}

/* Print one request (without the choice): the reason the agent gave,
 * then exactly what would run. */
static void
cmd_approvals_print(const json_t *req)
{
	char *reason = outside_text_escape(json_string_value(json_object_get(req,
	    "reason")));
	const char *profile = json_string_value(json_object_get(req, "profile"));

	printf("  \"%s\"\n", reason);
	outside_text_print_what(req, "  ");
	printf("  (request %lld, session %s%s%s)\n", cmd_approvals_id(req),
	    text_member(req, "session", "?"),
	    profile ? ", profile " : "", profile ? text_show(profile) : "");
	free(reason);
}

/* sbox approvals: the requests waiting for a decision. */
static int
cmd_approvals_list(const struct client_opts *o)
{
	struct client *cl;
	sbox_error err;
	json_t *r, *a;
	size_t i;

	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL)
		return client_fail(&err);
	r = client_call(cl, "approval.list", json_pack("{s:b}", "pending", 1),
	    NULL, 0, &err);
	client_close(cl);
	if (r == NULL)
		return client_fail(&err);
	if (o->json) {
		client_print_json(r);
		json_decref(r);
		return EXIT_OK;
	}
	if (json_array_size(json_object_get(r, "approvals")) == 0)
		printf("no request is waiting\n");
	json_array_foreach(json_object_get(r, "approvals"), i, a) {
		printf("Run outside the sandbox?\n");
		cmd_approvals_print(a);
		printf("  sbox approve %lld | sbox deny %lld\n",
		    cmd_approvals_id(a), cmd_approvals_id(a));
	}
	json_decref(r);
	return EXIT_OK;
}

/* Remember that a request is decided, and drop it from the queue. */
static void
cmd_approvals_forget(struct cmd_approvals_watch *w, long long id)
{
	char key[32];
	json_t *q;
	size_t i;

	snprintf(key, sizeof key, "%lld", id);
	json_object_set_new(w->decided, key, json_true());
	json_array_foreach(w->queue, i, q) {
		if (cmd_approvals_id(q) == id) {
			json_array_remove(w->queue, i);
			break;
		}
	}
}

/* Queue a request unless it is known already. */
static void
cmd_approvals_enqueue(struct cmd_approvals_watch *w, json_t *req)
{
	long long id = cmd_approvals_id(req);
	char key[32];
	json_t *q;
	size_t i;

	snprintf(key, sizeof key, "%lld", id);
	if (id <= 0 || json_object_get(w->decided, key) != NULL ||
	    (w->current != NULL && cmd_approvals_id(w->current) == id))
		return;
	json_array_foreach(w->queue, i, q) {
		if (cmd_approvals_id(q) == id)
			return;
	}
	json_array_append(w->queue, req);
}

/* events.event notifications: new requests, and decisions made elsewhere. */
static int
cmd_approvals_notify(const char *method, json_t *params, void *arg)
{
	struct cmd_approvals_watch *w = arg;
	const char *topic = json_string_value(json_object_get(params, "topic"));
	json_t *data = json_object_get(params, "data");
	long long id;
	char *by;

	if (strcmp(method, "events.event") != 0 || topic == NULL)
		return 0;
	if (strcmp(topic, "approval.requested") == 0) {
		cmd_approvals_enqueue(w, data);
		return 0;
	}
	if (strcmp(topic, "approval.rate_limited") == 0) {
		/* once per flood: the requests themselves are not shown */
		by = outside_text_escape(json_string_value(json_object_get(data,
		    "message")));
		printf("\n  session %.64s asks too often to run outside the "
		    "sandbox: %s\n\n", json_string_value(json_object_get(data,
		    "session")) ? json_string_value(json_object_get(data,
		    "session")) : "?", by);
		fflush(stdout);
		free(by);
		return 0;
	}
	if (strcmp(topic, "approval.decided") != 0)
		return 0;
	id = cmd_approvals_id(data);
	by = (char *)json_string_value(json_object_get(data, "decided_by"));
	if (by != NULL && strncmp(by, "sboxd: unsafe: ", 15) == 0) {
		/* refused at once: the person sees why */
		char *prog = outside_text_escape(json_string_value(
		    json_object_get(data, "program")));
		by = outside_text_escape(by + 15);
		printf("\n  refused (request %lld): %s may never run outside the "
		    "sandbox: %s\n\n", id, prog, by);
		fflush(stdout);
		free(prog);
		free(by);
	}
	if (w->current != NULL && cmd_approvals_id(w->current) == id) {
		by = outside_text_escape(json_string_value(json_object_get(data,
		    "decided_by")));
		printf("\n  decided elsewhere: %s by %s\n\n",
		    text_member(data, "decision", "?"), by);
		fflush(stdout);
		free(by);
		json_decref(w->current);
		w->current = NULL;
	}
	cmd_approvals_forget(w, id);
	return 0;
}

/* Ask about the next queued request. */
static void
cmd_approvals_prompt(struct cmd_approvals_watch *w)
{
	if (w->current != NULL || json_array_size(w->queue) == 0)
		return;
	w->current = json_incref(json_array_get(w->queue, 0));
	json_array_remove(w->queue, 0);
	printf("Run outside the sandbox?\n");
	cmd_approvals_print(w->current);
	printf("  [a] Allow once  [d] Deny\n");
	fflush(stdout);
}

/* Send a decision; print what became of it. */
static int
cmd_approvals_send(struct client *cl, long long id, const char *decision,
    const char *client_name, int quiet, sbox_error *err)
{
	json_t *r;

	r = client_call(cl, "approval.decide", json_pack("{s:I, s:s, s:s}",
	    "approval", (json_int_t)id, "decision", decision, "client", client_name),
	    NULL, 0, err);
	if (r == NULL)
		return -1;
	if (!quiet)
		printf("request %lld: %s\n", id, strcmp(decision, "deny") == 0 ?
		    "denied" : "allowed once");
	json_decref(r);
	return 0;
}

/* One key of the answer to the current request. */
static int
cmd_approvals_answer(struct client *cl, struct cmd_approvals_watch *w,
    char key, sbox_error *err)
{
	const char *decision;
	long long id;

	if (w->current == NULL)
		return 0;
	if (key == 'a' || key == 'A')
		decision = "allow_once";
	else if (key == 'd' || key == 'D')
		decision = "deny";
	else {
		if (key != '\n' && key != '\r' && key != ' ')
			printf("  press a to allow once, d to deny\n");
		fflush(stdout);
		return 0;
	}
	id = cmd_approvals_id(w->current);
	json_decref(w->current);
	w->current = NULL;
	cmd_approvals_forget(w, id);
	if (cmd_approvals_send(cl, id, decision, "sbox approvals --watch", 1,
	    err) == -1) {
		printf("  %s\n\n", text_show(err->message));
		error_clear(err);
	} else
		printf("  %s\n\n", strcmp(decision, "deny") == 0 ? "denied" :
		    "allowed once");
	fflush(stdout);
	return 0;
}

/* The terminal the answers come from: stdin when it is one, else
 * /dev/tty, else stdin as it is (answers piped in). */
static int
cmd_approvals_input(void)
{
	int fd;

	if (isatty(0))
		return 0;
	if ((fd = open("/dev/tty", O_RDONLY | O_CLOEXEC)) >= 0)
		return fd;
	return 0;
}

/* The loop of --watch: prompt, read keys, follow the daemon. */
static int
cmd_approvals_loop(struct client *cl, struct cmd_approvals_watch *w,
    sbox_error *err)
{
	struct pollfd pfd[2];
	char buf[64];
	ssize_t n, i;
	int in_open = 1;

	while (!cmd_approvals_stop) {
		cmd_approvals_prompt(w);
		pfd[0].fd = client_fd(cl);
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		pfd[1].fd = in_open && w->current != NULL ? w->in_fd : -1;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		if (ppoll(pfd, 2, NULL, &cmd_approvals_waitmask) < 0) {
			if (errno == EINTR)
				continue;
			return error_set_errno(err, E_UNAVAILABLE, errno, "poll");
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (client_pump(cl, err) == -1)
				return -1;
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(w->in_fd, buf, sizeof buf);
			if (n <= 0) {
				if (n < 0 && errno == EINTR)
					continue;
				in_open = 0;   /* no more answers: stop */
				return 0;
			}
			for (i = 0; i < n; i++) {
				if (cmd_approvals_answer(cl, w, buf[i], err) == -1)
					return -1;
			}
		}
	}
	return 0;
}

/* Connect, subscribe to requests and decisions, and queue the requests
 * already waiting; NULL with err. */
static struct client *
cmd_approvals_attach(const struct client_opts *o,
    struct cmd_approvals_watch *w, sbox_error *err)
{
	struct client *cl;
	json_t *r, *a;
	size_t i;

	if ((cl = client_connect(o, err)) == NULL)
		return NULL;
	client_on_notify(cl, cmd_approvals_notify, w);
	r = client_call(cl, "events.subscribe", json_pack("{s:[s, s, s]}",
	    "topics", "approval.requested", "approval.decided",
	    "approval.rate_limited"), NULL, 0, err);
	if (r == NULL)
		goto fail;
	json_decref(r);
	if ((r = client_call(cl, "approval.list", json_pack("{s:b}", "pending",
	    1), NULL, 0, err)) == NULL)
		goto fail;
	json_array_foreach(json_object_get(r, "approvals"), i, a)
		cmd_approvals_enqueue(w, a);
	json_decref(r);
	return cl;
fail:
	client_close(cl);
	return NULL;
}

/* sboxd went away: forget what it was asking, then connect again with a
 * growing pause (0.1 s to 5 s) until it is back; NULL when stopped by a
 * signal first. Says so on stderr. */
static struct client *
cmd_approvals_reattach(const struct client_opts *o,
    struct cmd_approvals_watch *w, const sbox_error *why)
{
	struct client_opts ro = *o;
	struct client *cl;
	sbox_error err;
	int pause_ms = 100;

	fprintf(stderr, "sbox: lost the connection to sboxd (%s); "
	    "reconnecting...\n", text_show(why->message));
	if (w->current != NULL) {
		printf("\n  not decided: sboxd went away (a request pending when "
		    "it stops is not run)\n\n");
		fflush(stdout);
		json_decref(w->current);
		w->current = NULL;
	}
	/* The new sboxd's ids may start again: forget the old ones. */
	json_array_clear(w->queue);
	json_object_clear(w->decided);
	ro.no_start = 1;   /* wait for it; starting one is not ours to do */
	while (!cmd_approvals_stop) {
		error_clear(&err);
		if ((cl = cmd_approvals_attach(&ro, w, &err)) != NULL) {
			fprintf(stderr, "sbox: reconnected to sboxd; watching "
			    "again\n");
			return cl;
		}
		ppoll(NULL, 0, &(struct timespec){ pause_ms / 1000,
		    (long)(pause_ms % 1000) * 1000000 }, &cmd_approvals_waitmask);
		if ((pause_ms *= 2) > 5000)
			pause_ms = 5000;
	}
	return NULL;
}

/* sbox approvals --watch: prompt for each request as it comes; when sboxd
 * restarts, reconnect and go on. */
static int
cmd_approvals_watch(const struct client_opts *o)
{
	struct cmd_approvals_watch w = { json_array(), NULL, json_object(), 0 };
	struct termios saved, raw;
	struct sigaction sa, old_int, old_term, old_hup;
	sigset_t stopset;
	struct client *cl;
	sbox_error err;
	int tty, rc;

	error_clear(&err);
	if ((cl = cmd_approvals_attach(o, &w, &err)) == NULL) {
		json_decref(w.queue);
		json_decref(w.decided);
		return client_fail(&err);
	}
	w.in_fd = cmd_approvals_input();
	tty = isatty(w.in_fd) && tcgetattr(w.in_fd, &saved) == 0;
	if (tty) {
		/* One key answers: no Enter needed, the key is not echoed. */
		raw = saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(w.in_fd, TCSANOW, &raw);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = cmd_approvals_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sigemptyset(&stopset);
	sigaddset(&stopset, SIGINT);
	sigaddset(&stopset, SIGTERM);
	sigaddset(&stopset, SIGHUP);
	sigprocmask(SIG_BLOCK, &stopset, &cmd_approvals_waitmask);
	printf("Watching for requests to run outside the sandbox (Ctrl-C to "
	    "stop).\n\n");
	fflush(stdout);
	while ((rc = cmd_approvals_loop(cl, &w, &err)) == -1 &&
	    strcmp(err.name, E_UNAVAILABLE) == 0) {
		client_close(cl);
		if ((cl = cmd_approvals_reattach(o, &w, &err)) == NULL) {
			rc = 0;   /* stopped while waiting for sboxd */
			break;
		}
		error_clear(&err);
	}
	if (tty)
		tcsetattr(w.in_fd, TCSANOW, &saved);
	/* a stop still pending is taken by our handler, then the old ones */
	sigprocmask(SIG_SETMASK, &cmd_approvals_waitmask, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (w.in_fd != 0)
		close(w.in_fd);
	if (cl != NULL)
		client_close(cl);
	json_decref(w.queue);
	json_decref(w.current);
	json_decref(w.decided);
	if (rc == -1)
		return client_fail(&err);
	return EXIT_OK;
}

/* sbox approvals [--watch]. */
int
cmd_approvals(const struct client_opts *o, int argc, char **argv)
{
	if (argc == 1)
		return cmd_approvals_list(o);
	if (argc == 2 && strcmp(argv[1], "--watch") == 0)
		return cmd_approvals_watch(o);
	return client_usage("usage: sbox approvals [--watch]");
}

/* sbox approve ID / sbox deny ID. */
static int
cmd_approvals_decide(const struct client_opts *o, int argc, char **argv,
    const char *decision)
{
	struct client *cl;
	sbox_error err;
	char *end;
	long long id;

	if (argc != 2 || (id = strtoll(argv[1], &end, 10)) <= 0 || *end != '\0')
		return client_usage("usage: sbox %s ID", argv[0]);
	error_clear(&err);
	if ((cl = client_connect(o, &err)) == NULL)
		return client_fail(&err);
	if (cmd_approvals_send(cl, id, decision, strcmp(decision, "deny") == 0 ?
	    "sbox deny" : "sbox approve", 0, &err) == -1) {
		client_close(cl);
		return client_fail(&err);
	}
	client_close(cl);
	return EXIT_OK;
}

/* sbox approve ID: allow one pending request to run once. */
int
cmd_approve(const struct client_opts *o, int argc, char **argv)
{
	return cmd_approvals_decide(o, argc, argv, "allow_once");
}

/* sbox deny ID: refuse one pending request. */
int
cmd_deny(const struct client_opts *o, int argc, char **argv)
{
	return cmd_approvals_decide(o, argc, argv, "deny");
}
