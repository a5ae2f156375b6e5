/* approval.c: run-outside requests waiting for a person: recording them,
 * publishing them, their decision (allow once, deny, timeout, cancelled,
 * session closed) and the run of an allowed command on the host. Every
 * record is committed to the store before the client is told. */
#include "daemon/approval.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/event.h>

#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/rpc.h"
#include "daemon/sboxd.h"
#include "daemon/session.h"
#include "policy/config.h"
#include "policy/profile.h"
#include "store/store.h"

struct approval {
	LIST_ENTRY(approval) entry;
	long long          id;
	struct session    *s;
	struct rpc_call   *call;
	json_t            *argv;
	char              *cwd;        /* resolved, absolute */
	json_t            *env;
	enum command_stdio stdio;
	int                want_stdin;
	int                detach;
	long long          timeout_ms;
	struct event      *timer;      /* no answer in time: denied */
};

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

/* Free a request that is over (its call already answered or handed on). */
static void
approval_free(struct approval *a)
{
	LIST_REMOVE(a, entry);
	if (a->timer != NULL)
		event_free(a->timer);
	json_decref(a->argv);
	json_decref(a->env);
	free(a->cwd);
	free(a);
}

/* Is path the folder dir or inside it? */
static int
approval_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The folder an outside run starts in: the project by default, a relative
 * cwd inside the project (after symlinks: it may not lead out of it), an
 * absolute one as given. Symlinks are resolved, so the person is shown the
 * real folder. malloc'd, or NULL with err. */
static char *
approval_cwd(const struct session *s, const char *cwd, sbox_error *err)
{
	char *want = NULL, *real, *proj;

	if (cwd == NULL || cwd[0] == '\0')
		want = strdup(s->project);
	else if (cwd[0] == '/')
		want = strdup(cwd);
	else if (asprintf(&want, "%s/%s", s->project, cwd) == -1)
		want = NULL;
	if (want == NULL) {
		error_nomem(err);
		return NULL;
	}
	if ((real = realpath(want, NULL)) == NULL) {
		error_set_errno(err, E_INVALID_PARAMS, errno, "cwd %s", want);
		snprintf(err->field, sizeof err->field, "cwd");
		free(want);
		return NULL;
	}
	free(want);
	if (cwd != NULL && cwd[0] != '\0' && cwd[0] != '/') {
		proj = realpath(s->project, NULL);
		if (proj == NULL || !approval_under(real, proj)) {
			free(proj);
			free(real);
			error_set_field(err, E_INVALID_PARAMS, "cwd",
			    "a relative cwd must stay inside the project folder");
			return NULL;
		}
		free(proj);
	}
	return real;
}

/* Connected host clients that would be asked (subscribers of
 * approval.requested that are not inside a sandbox). */
static int
approval_approvers(void)
{
	return events_host_subscribers("approval.requested");
}

/* Record a request refused at once and build the error the agent gets. */
static int
approval_refuse_now(const struct approval_params *p, const char *cwd,
    const char *decision, const char *decided_by, sbox_error *err)
{
	struct store_approval sa = {
		.session = p->s->id, .argv = p->argv, .cwd = cwd,
		.reason = p->reason, .decision = decision,
		.decided_by = decided_by, .requested_at = 0,
	};
	long long id;

	if ((id = store_approval_create(sboxd.store, &sa, err)) < 0)
		return error_context(err, "recording a run-outside request");
	events_publish("approval.decided", p->s->id, json_pack(
	    "{s:I, s:s, s:s, s:s, s:O, s:s}", "approval", (json_int_t)id,
	    "session", p->s->id, "decision", decision, "decided_by", decided_by,
	    "argv", p->argv, "cwd", cwd));
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
static void
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
	}
	approval_free(a);
}

/* Decide a live request: record, publish, then deny or run it. */
static int
approval_settle(struct approval *a, const char *decision, const char *by,
    sbox_error *err)
{
	struct command_params cp;
	struct rpc_call *call;
	json_t *result = NULL;
	int rc;

	if (store_approval_decide(sboxd.store, a->id, decision, by, err) == -1)
		return -1;
	events_publish("approval.decided", a->s->id, json_pack(
	    "{s:I, s:s, s:s, s:s, s:O, s:s}", "approval", (json_int_t)a->id,
	    "session", a->s->id, "decision", decision, "decided_by", by,
	    "argv", a->argv, "cwd", a->cwd));
	log_info("approval %lld (session %s): %s by %s", a->id, a->s->id,
	    decision, by);
	if (strcmp(decision, "allow_once") != 0) {
		approval_fail(a, decision, by);
		return 0;
	}
	memset(&cp, 0, sizeof cp);
	cp.s = a->s;
	cp.argv = a->argv;
	cp.cwd = a->cwd;
	cp.env = a->env;
	cp.detach = a->detach;
	cp.timeout_ms = a->timeout_ms;
	cp.stdio = a->stdio;
	cp.want_stdin = a->want_stdin;
	cp.outside = 1;
	cp.approval_id = a->id;
	cp.decided_by = by;
	call = a->call;
	a->call = NULL;
	rpc_call_on_cancel(call, NULL, NULL);
	error_clear(err);
	rc = command_start(&cp, call, &result, err);
	if (rc == 0)
		rpc_call_reply(call, result);
	else if (rc == -1) {
		if (!error_isset(err))
			error_set(err, E_INTERNAL, "allowed, but the command "
			    "did not start");
		else
			error_context(err, "allowed, but the command did not "
			    "start");
		rpc_call_fail(call, err);
	}
	approval_free(a);
	error_clear(err);
	return 0;
}

/* The client that asked went away or cancelled: denied, recorded. */
static void
approval_cancel_cb(struct rpc_call *call, void *arg)
{
	struct approval *a = arg;
	sbox_error err;

	(void)call;
	error_clear(&err);
	if (approval_settle(a, "deny", "cancelled: the client that asked "
	    "cancelled or went away", &err) == -1) {
		log_error("recording the cancelled request %lld: %s", a->id,
		    err.message);
		approval_fail(a, "deny", "cancelled");
	}
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
	struct store_approval sa;
	struct approval *a;
	int64_t wait_s;
	char *cwd;
	size_t i;
	json_t *v;

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
	if ((cwd = approval_cwd(p->s, p->cwd, err)) == NULL)
		return -1;
	if (p->s->profile->run_outside == PROFILE_RUN_NEVER) {
		approval_refuse_now(p, cwd, "refused_never", "profile", err);
		free(cwd);
		return -1;
	}
	if (approval_approvers() == 0) {
		approval_refuse_now(p, cwd, "refused_headless",
		    "sboxd: no approver connected", err);
		free(cwd);
		return -1;
	}
	if ((a = calloc(1, sizeof *a)) == NULL) {
		free(cwd);
		return error_nomem(err);
	}
	a->s = p->s;
	a->cwd = cwd;
	a->argv = json_deep_copy(p->argv);
	a->env = p->env != NULL ? json_deep_copy(p->env) : NULL;
	a->stdio = p->stdio;
	a->want_stdin = p->want_stdin;
	a->detach = p->detach;
	a->timeout_ms = p->timeout_ms;
	memset(&sa, 0, sizeof sa);
	sa.session = p->s->id;
	sa.argv = p->argv;
	sa.cwd = cwd;
	sa.reason = p->reason;
	LIST_INSERT_HEAD(&approval_list, a, entry);
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
	rpc_call_on_cancel(call, approval_cancel_cb, a);
	events_publish("approval.requested", p->s->id, json_pack(
	    "{s:I, s:s, s:O, s:s, s:s, s:s, s:s, s:I}",
	    "approval", (json_int_t)a->id, "session", p->s->id,
	    "argv", p->argv, "cwd", cwd, "reason", p->reason,
	    "profile", p->s->profile->name, "project", p->s->project,
	    "timeout_s", (json_int_t)wait_s));
	log_info("approval %lld (session %s): asked to run %s outside the "
	    "sandbox", a->id, p->s->id, json_string_value(json_array_get(
	    p->argv, 0)));
	return RPC_LATER;
}

/* Decide a pending request. */
int
approval_decide(long long id, const char *decision, const char *decided_by,
    json_t **result, sbox_error *err)
{
	struct approval *a;
	json_t *rec;

	if (decision == NULL || (strcmp(decision, "allow_once") != 0 &&
	    strcmp(decision, "deny") != 0))
		return error_set_field(err, E_INVALID_PARAMS, "decision",
		    "decision must be \"allow_once\" or \"deny\"");
	LIST_FOREACH(a, &approval_list, entry) {
		if (a->id == id)
			break;
	}
	if (a == NULL) {
		/* Not waiting: unknown, or already decided (say how). */
		if ((rec = store_approval_get(sboxd.store, id, err)) == NULL)
			return -1;
		error_set_field(err, E_INVALID_PARAMS, "id", "approval %lld is "
		    "no longer pending (%s by %s)", id, json_string_value(
		    json_object_get(rec, "decision")), json_string_value(
		    json_object_get(rec, "decided_by")) ? json_string_value(
		    json_object_get(rec, "decided_by")) : "nobody");
		json_decref(rec);
		return -1;
	}
	if (approval_settle(a, decision, decided_by, err) == -1)
		return -1;
	*result = json_pack("{s:I, s:s, s:s}", "approval", (json_int_t)id,
	    "decision", decision, "decided_by", decided_by);
	return 0;
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
