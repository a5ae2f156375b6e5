/* approval.c: run-outside requests waiting for a person: the session's
 * budget, identical requests joined, recording them, publishing them,
 * their decision (allow once, deny, timeout, cancelled, session closed,
 * the terminal that asked) and the run of an allowed command on the host.
 * What a request would run is fixed in approval-what.c. Every record is
 * committed to the store before the client is told. */
#include "daemon/command/approval.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/command/approval-internal.h"
#include "daemon/command/approval-limit.h"
#include "daemon/events.h"
#include "daemon/command/hostenv.h"
#include "daemon/command/hostexec.h"
#include "daemon/log.h"
#include "daemon/client.h"
#include "daemon/rpc-call.h"
#include "daemon/sboxd.h"
#include "daemon/session/session.h"
#include "policy/config.h"
#include "policy/plan.h"
#include "policy/profile.h"
#include "store/store.h"

static LIST_HEAD(, approval) approval_list = LIST_HEAD_INITIALIZER(approval_list);

/* Number of requests waiting for a decision. */
int
approval_pending_count(void)
{
	struct approval *a;
	int n = 0;

	LIST_FOREACH(a, &approval_list, entry)
		n++;
	return n;
}

/* Number of requests waiting for a decision under one budget (a
 * top-level session and the sessions made inside it). */
static int
approval_pending_of(const char *root)
{
	struct approval *a;
	int n = 0;

	LIST_FOREACH(a, &approval_list, entry) {
		if (strcmp(a->root, root) == 0)
			n++;
	}
	return n;
}

/* The id of the top-level session of s (s itself when it has no parent;
 * a parent that is gone still names the budget), into buf. */
static void
approval_root(const struct session *s, char *buf, size_t len)
{
	const struct session *cur = s;
	const char *id = s->id;
	sbox_error err;
	int depth;

	for (depth = 0; cur != NULL && cur->parent != NULL && depth < 32;
	    depth++) {
		id = cur->parent;
		error_clear(&err);
		cur = session_find(cur->parent, &err);
	}
	snprintf(buf, len, "%s", id);
}

/* Tell a waiter the request ended without running for it, and free it. */
void
approval_waiter_end(struct approval_waiter *w, const char *msg)
{
	sbox_error err;
	int i;

	LIST_REMOVE(w, entry);
	error_set(&err, E_DENIED, "%s", msg);
	if (w->call != NULL) {
		rpc_call_on_cancel(w->call, NULL, NULL);
		rpc_call_fail(w->call, &err);
	} else if (w->on_done != NULL)
		w->on_done(w->done_arg, 126, err.message);
	for (i = 0; i < 3; i++)
		if (w->fds[i] >= 0)
			close(w->fds[i]);
	free(w);
}

/* Tell every waiter of a the request ended without running for them. */
static void
approval_waiters_end(struct approval *a, const char *msg)
{
	while (!LIST_EMPTY(&a->waiters))
		approval_waiter_end(LIST_FIRST(&a->waiters), msg);
}

/* Free a request that is over (its call already answered or handed on). */
static void
approval_free(struct approval *a)
{
	LIST_REMOVE(a, entry);
	approval_waiters_end(a, "sboxd: the request to run outside the "
	    "sandbox was dropped");
	if (a->timer != NULL)
		event_free(a->timer);
	json_decref(a->same);
	json_decref(a->argv);
	json_decref(a->env);
	json_decref(a->dropped);
	hostexec_target_clear(&a->target);
	for (int i = 0; i < 3; i++)
		if (a->fds[i] >= 0)
			close(a->fds[i]);
	free(a);
}

/* The store record of a request (borrowing from a). */
static void
approval_record(const struct approval *a, const struct approval_params *p,
    struct store_approval *sa)
{
	memset(sa, 0, sizeof *sa);
	sa->session = p->s->id;
	sa->argv = p->argv;
	sa->cwd = a->target.dir;
	sa->cwd_writable = a->cwd_writable;
	sa->program = a->target.program;
	sa->program_writable = a->writable;
	sa->env = a->env;
	sa->env_dropped = a->dropped;
	sa->reason = p->reason;
}

/* Connected host clients that would be asked (subscribers of
 * approval.requested that are not inside a sandbox). */
static int
approval_approvers(void)
{
	return events_host_subscribers("approval.requested");
}

/* An event's data: the request id, session and exactly what would run
 * (argv, program, program_writable, cwd, cwd_writable, env,
 * env_dropped). */
static json_t *
approval_event(long long id, const struct approval *a, const char *session)
{
	return json_pack("{s:I, s:s, s:O, s:s, s:b, s:s, s:b, s:O, s:O, s:b}",
	    "approval", (json_int_t)id, "session", session, "argv", a->argv,
	    "program", a->target.program, "program_writable", a->writable,
	    "cwd", a->target.dir, "cwd_writable", a->cwd_writable, "env",
	    a->env, "env_dropped", a->dropped, "terminal", a->terminal);
}

/* Record a request refused at once and build the error the agent gets. */
static int
approval_refuse_now(const struct approval_params *p, const struct approval *a,
    const char *decision, const char *decided_by, sbox_error *err)
{
	struct store_approval sa;
	long long id;
	json_t *ev;

	approval_record(a, p, &sa);
	sa.decision = decision;
	sa.decided_by = decided_by;
	if ((id = store_approval_create(sboxd.store, &sa, err)) < 0)
		return error_context(err, "recording a run-outside request");
	if ((ev = approval_event(id, a, p->s->id)) != NULL) {
		json_object_set_new(ev, "decision", json_string(decision));
		json_object_set_new(ev, "decided_by", json_string(decided_by));
	}
	events_publish("approval.decided", p->s->id, ev);
	if (strncmp(decided_by, "sboxd: unsafe: ", 15) == 0)
		return error_set(err, E_DENIED, "%s may never run outside the "
		    "sandbox: %s, so the sandbox could have changed what it does "
		    "(approval %lld, denied): ask the person to run it themselves",
		    a->target.program, decided_by + 15, id);
	if (strcmp(decision, "refused_never") == 0)
		return error_set(err, E_DENIED, "the sandbox profile \"%s\" never "
		    "lets a command run outside the sandbox (approval %lld, "
		    "refused_never): ask the person to run it themselves",
		    p->s->profile->name, id);
	return error_set(err, E_DENIED, "no one is connected to approve running "
	    "outside the sandbox, so it was refused (approval %lld, "
	    "refused_headless): ask the person to run it themselves, or to "
	    "watch for requests with 'sbox approvals --watch'", id);
}

/* Answer a request's call with a denial and forget it. */
void
approval_fail(struct approval *a, const char *decision, const char *by)
{
	struct rpc_call *call = a->call;
	sbox_error err;

	a->call = NULL;
	if (strcmp(decision, "timeout") == 0)
		error_set(&err, E_DENIED, "no one answered the request to run "
		    "outside the sandbox in time, so it was denied (approval "
		    "%lld, timeout)", a->id);
	else
		error_set(&err, E_DENIED, "running outside the sandbox was "
		    "denied by %s (approval %lld, %s)", by, a->id, decision);
	if (call != NULL) {
		rpc_call_on_cancel(call, NULL, NULL);
		rpc_call_fail(call, &err);
	} else if (a->on_done != NULL)
		a->on_done(a->done_arg, 126, err.message);
	approval_waiters_end(a, err.message);
	approval_free(a);
}

/* Decide a live request: record, publish, then deny or run it. */
int
approval_settle(struct approval *a, const char *decision, const char *by,
    sbox_error *err)
{
	struct command_params cp;
	struct rpc_call *call;
	json_t *result = NULL;
	int rc;

	json_t *ev;

	if (store_approval_decide(sboxd.store, a->id, decision, by, err) == -1)
		return -1;
	if ((ev = approval_event(a->id, a, a->s->id)) != NULL) {
		json_object_set_new(ev, "decision", json_string(decision));
		json_object_set_new(ev, "decided_by", json_string(by));
	}
	/* the terminal that asked stops asking */
	if (a->terminal && a->call != NULL && ev != NULL)
		client_notify(rpc_call_conn(a->call), "approval.decided",
		    json_deep_copy(ev));
	events_publish("approval.decided", a->s->id, ev);
	log_info("approval %lld (session %s): %s by %s", a->id, a->s->id,
	    decision, by);
	if (strcmp(decision, "allow_once") != 0) {
		approval_fail(a, decision, by);
		return 0;
	}
	memset(&cp, 0, sizeof cp);
	cp.s = a->s;
	cp.argv = a->argv;
	cp.cwd = a->target.dir;
	cp.env = a->env;
	cp.target = &a->target;
	cp.detach = a->detach;
	cp.timeout_ms = a->timeout_ms;
	cp.stdio = a->stdio;
	cp.want_stdin = a->want_stdin;
	cp.outside = 1;
	cp.approval_id = a->id;
	cp.decided_by = by;
	if (a->on_done != NULL) {
		cp.given_fds = a->fds;
		cp.on_done = a->on_done;
		cp.done_arg = a->done_arg;
	}
	call = a->call;
	a->call = NULL;
	if (call != NULL)
		rpc_call_on_cancel(call, NULL, NULL);
	error_clear(err);
	rc = command_start(&cp, call, &result, err);
	if (rc == 0 && call != NULL)
		rpc_call_reply(call, result);
	else if (rc == 0)
		json_decref(result);
	else if (rc == -1) {
		if (!error_isset(err))
			error_set(err, E_INTERNAL, "allowed, but the command "
			    "did not start");
		else
			error_context(err, "allowed, but the command did not "
			    "start");
		if (call != NULL)
			rpc_call_fail(call, err);
		else if (a->on_done != NULL)
			a->on_done(a->done_arg, 127, err->message);
	}
	{
		char msg[200];
		snprintf(msg, sizeof msg, "an identical request (approval %lld) "
		    "was allowed once and ran for the first asker only: ask "
		    "again", a->id);
		approval_waiters_end(a, msg);
	}
	approval_free(a);
	error_clear(err);
	return 0;
}

static void approval_cancel_cb(struct rpc_call *call, void *arg);

/* The first waiter of a becomes its asker (the asker went away); 1, or 0
 * when none waits. */
int
approval_promote(struct approval *a)
{
	struct approval_waiter *w = LIST_FIRST(&a->waiters);
	int i;

	if (w == NULL)
		return 0;
	LIST_REMOVE(w, entry);
	a->call = w->call;
	a->on_done = w->on_done;
	a->done_arg = w->done_arg;
	for (i = 0; i < 3; i++) {
		if (a->fds[i] >= 0)
			close(a->fds[i]);
		a->fds[i] = w->fds[i];
	}
	a->terminal = 0;
	if (a->call != NULL)
		rpc_call_on_cancel(a->call, approval_cancel_cb, a);
	free(w);
	return 1;
}

/* The client that asked went away or cancelled: denied, recorded (unless
 * another asker of the same request waits: then it is theirs). */
static void
approval_cancel_cb(struct rpc_call *call, void *arg)
{
	struct approval *a = arg;
	sbox_error err;

	error_clear(&err);
	if (!LIST_EMPTY(&a->waiters)) {
		a->call = NULL;
		rpc_call_on_cancel(call, NULL, NULL);
		error_set(&err, E_CANCELLED, "cancelled");
		rpc_call_fail(call, &err);
		approval_promote(a);
		return;
	}
	if (approval_settle(a, "deny", "cancelled: the client that asked "
	    "cancelled or went away", &err) == -1) {
		log_error("recording the cancelled request %lld: %s", a->id,
		    err.message);
		approval_fail(a, "deny", "cancelled");
	}
}

/* A waiter's client went away or cancelled: it stops waiting. */
static void
approval_waiter_cancel_cb(struct rpc_call *call, void *arg)
{
	struct approval_waiter *w = arg;

	(void)call;
	approval_waiter_end(w, "cancelled: the client that asked cancelled or "
	    "went away");
}

/* A pending request identical to what p asks (same session, argv,
 * folder, variables, program, stdio), or NULL; *same gets what they share
 * (the caller's). */
static struct approval *
approval_same(const struct approval_params *p, json_t **same)
{
	struct approval *a;

	*same = json_pack("{s:s, s:O, s:s?, s:O?, s:s?, s:i, s:b, s:b, s:b}",
	    "session", p->s->id, "argv", p->argv, "cwd", p->cwd, "env", p->env,
	    "program", p->program, "stdio", (int)p->stdio, "stdin",
	    p->want_stdin, "detach", p->detach, "given", p->given_fds != NULL);
	if (*same == NULL)
		return NULL;
	LIST_FOREACH(a, &approval_list, entry)
		if (a->id > 0 && a->same != NULL && json_equal(a->same, *same))
			return a;
	return NULL;
}

/* Wait for the decision of a, an identical pending request. */
static int
approval_join(struct approval *a, const struct approval_params *p,
    struct rpc_call *call, sbox_error *err)
{
	struct approval_waiter *w;
	int i;

	if ((w = calloc(1, sizeof *w)) == NULL)
		return error_nomem(err);
	w->a = a;
	w->call = call;
	w->on_done = p->on_done;
	w->done_arg = p->done_arg;
	for (i = 0; i < 3; i++) {
		w->fds[i] = p->given_fds != NULL ? p->given_fds[i] : -1;
		if (p->given_fds != NULL)
			p->given_fds[i] = -1;
	}
	LIST_INSERT_HEAD(&a->waiters, w, entry);
	if (call != NULL)
		rpc_call_on_cancel(call, approval_waiter_cancel_cb, w);
	if (p->id_out != NULL)
		*p->id_out = a->id;
	log_info("approval %lld (session %s): an identical request joined it",
	    a->id, a->s->id);
	return RPC_LATER;
}

/* Now, in milliseconds (wall clock: the budget's minute). */
static long long
approval_now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* Is the request within its session's budget? 0, or -1 with
 * E_RATE_LIMITED (the person hears of the first refusal of a flood). */
static int
approval_budget(const struct approval_params *p, const char *root,
    sbox_error *err)
{
	unsigned long refused;
	int notice, burst = config_approvals_burst(sboxd.config);

	if (burst > APPROVAL_MAX_PENDING)
		burst = APPROVAL_MAX_PENDING;
	if (approval_limit_check(root, approval_pending_of(root),
	    approval_now_ms(), burst, config_approvals_per_minute(sboxd.config),
	    &notice, &refused, err) == 0) {
		if (refused > 0)
			log_info("session %s: %lu run-outside requests were refused "
			    "as too many (%s); asking again", p->s->id, refused,
			    root);
		return 0;
	}
	if (notice) {
		log_info("session %s: run-outside requests refused from now on "
		    "(%s): %s", p->s->id, root, err->message);
		events_publish("approval.rate_limited", p->s->id, json_pack(
		    "{s:s, s:s, s:i, s:i, s:s}", "session", p->s->id,
		    "budget_session", root, "burst", burst, "per_minute",
		    config_approvals_per_minute(sboxd.config), "message",
		    err->message));
	}
	return -1;
}

/* No answer in time: denied as a timeout. */
static void
approval_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct approval *a = arg;
	sbox_error err;

	(void)fd; (void)what;
	error_clear(&err);
	if (approval_settle(a, "timeout", "sboxd: no answer in time",
	    &err) == -1) {
		log_error("recording the timeout of request %lld: %s", a->id,
		    err.message);
		approval_fail(a, "timeout", "sboxd");
	}
}

/* Ask to run a command outside the sandbox. */
int
approval_request(const struct approval_params *p, struct rpc_call *call,
    json_t **result, sbox_error *err)
{
	char root[APPROVAL_LIMIT_KEY];
	struct store_approval sa;
	struct approval *a;
	const char *unsafe;
	int64_t wait_s;
	size_t i;
	json_t *v, *ev, *same;

	(void)result;
	if (json_array_size(p->argv) == 0)
		return error_set_field(err, E_INVALID_PARAMS, "argv",
		    "argv must name a program");
	json_array_foreach(p->argv, i, v) {
		if (!json_is_string(v))
			return error_set_field(err, E_INVALID_PARAMS, "argv",
			    "argv must be strings");
	}
	if (p->reason == NULL || p->reason[0] == '\0')
		return error_set_field(err, E_INVALID_PARAMS, "reason",
		    "a reason is required to run outside the sandbox: say why "
		    "the command cannot work inside it");
	/* the same request again while it waits: it waits with it */
	if ((a = approval_same(p, &same)) != NULL) {
		json_decref(same);
		return approval_join(a, p, call, err);
	}
	if (same == NULL)
		return error_nomem(err);
	approval_root(p->s, root, sizeof root);
	if (approval_budget(p, root, err) == -1) {
		json_decref(same);
		return -1;
	}
	if ((a = calloc(1, sizeof *a)) == NULL) {
		json_decref(same);
		return error_nomem(err);
	}
	a->target.dir_fd = -1;
	a->fds[0] = a->fds[1] = a->fds[2] = -1;
	for (i = 0; p->given_fds != NULL && i < 3; i++) {
		a->fds[i] = p->given_fds[i];
		p->given_fds[i] = -1;
	}
	LIST_INIT(&a->waiters);
	LIST_INSERT_HEAD(&approval_list, a, entry);
	a->s = p->s;
	a->same = same;
	a->terminal = p->terminal && call != NULL;
	snprintf(a->root, sizeof a->root, "%s", root);
	if ((a->argv = json_deep_copy(p->argv)) == NULL) {
		approval_free(a);
		return error_nomem(err);
	}
	if (approval_prepare(a, p, &unsafe, err) == -1) {
		approval_free(a);
		return -1;
	}
	if (unsafe != NULL) {
		/* a program the sandbox could have written never runs outside */
		char by[200];
		snprintf(by, sizeof by, "sboxd: unsafe: %s", unsafe);
		approval_refuse_now(p, a, "deny", by, err);
		approval_free(a);
		return -1;
	}
	if (p->s->profile->run_outside == PROFILE_RUN_NEVER ||
	    (approval_approvers() == 0 && !a->terminal)) {
		if (p->s->profile->run_outside == PROFILE_RUN_NEVER)
			approval_refuse_now(p, a, "refused_never", "profile", err);
		else
			approval_refuse_now(p, a, "refused_headless",
			    "sboxd: no approver connected", err);
		approval_free(a);
		return -1;
	}
	a->stdio = p->stdio;
	a->want_stdin = p->want_stdin;
	a->detach = p->detach;
	a->timeout_ms = p->timeout_ms;
	approval_record(a, p, &sa);
	if ((a->id = store_approval_create(sboxd.store, &sa, err)) < 0) {
		approval_free(a);
		return error_context(err, "recording a run-outside request");
	}
	wait_s = config_approvals_timeout_s(sboxd.config);
	if (wait_s > 0) {
		struct timeval tv = { (time_t)wait_s, 0 };
		if ((a->timer = event_new(sboxd.base, -1, 0, approval_timer_cb,
		    a)) != NULL)
			event_add(a->timer, &tv);
	}
	a->call = call;
	if (call != NULL)
		rpc_call_on_cancel(call, approval_cancel_cb, a);
	a->on_done = p->on_done;
	a->done_arg = p->done_arg;
	if (p->id_out != NULL)
		*p->id_out = a->id;
	if ((ev = approval_event(a->id, a, p->s->id)) != NULL)
		json_object_update_new(ev, json_pack("{s:s, s:s, s:s, s:I}",
		    "reason", p->reason, "profile", p->s->profile->name,
		    "project", p->s->project, "timeout_s", (json_int_t)wait_s));
	/* the terminal that asked is asked too (on its own connection) */
	if (a->terminal && ev != NULL && rpc_call_conn(call) != NULL)
		client_notify(rpc_call_conn(call), "approval.asked",
		    json_deep_copy(ev));
	events_publish("approval.requested", p->s->id, ev);
	log_info("approval %lld (session %s): asked to run %s outside the "
	    "sandbox (%zu variables added, %zu dropped%s)", a->id, p->s->id,
	    a->target.program, json_object_size(a->env),
	    json_array_size(a->dropped), a->writable ? "; the sandbox can "
	    "write the program" : "");
	return RPC_LATER;
}

/* The pending request with this id, or NULL. */
struct approval *
approval_find(long long id)
{
	struct approval *a;

	LIST_FOREACH(a, &approval_list, entry)
		if (a->id == id)
			break;
	return a;
}

/* A session is closing: its pending requests are denied. */
void
approval_session_closed(struct session *s)
{
	struct approval *a, *next;
	sbox_error err;

	for (a = LIST_FIRST(&approval_list); a != NULL; a = next) {
		next = LIST_NEXT(a, entry);
		if (a->s != s)
			continue;
		error_clear(&err);
		if (approval_settle(a, "deny", sboxd.stopping ?
		    "sboxd: shutting down" : "sboxd: the session was closed",
		    &err) == -1) {
			log_error("recording the end of request %lld: %s", a->id,
			    err.message);
			approval_fail(a, "deny", "sboxd");
		}
	}
}
