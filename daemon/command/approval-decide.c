/* approval-decide.c: a pending run-outside request decided by a person
 * (approval.decide), by the terminal that asked, or withdrawn by the
 * program that asked; approval.c holds the requests and settles them. */
#include "daemon/command/approval-decide.h"

#include <stdio.h>
#include <string.h>

#include "daemon/command/approval-internal.h"
#include "daemon/log.h"
#include "daemon/rpc-call.h"
#include "daemon/sboxd.h"
#include "store/store.h"

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
	a = approval_find(id);
	if (a == NULL) {
		/* Not waiting: unknown, or already decided (say how). */
		if ((rec = store_approval_get(sboxd.store, id, err)) == NULL) {
			snprintf(err->field, sizeof err->field, "approval");
			return -1;
		}
		error_set_field(err, E_INVALID_PARAMS, "approval", "approval %lld is "
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

/* Decide a pending request as the terminal that asked it. */
int
approval_decide_terminal(long long id, const char *decision,
    const struct conn *c, json_t **result, sbox_error *err)
{
	struct approval *a;

	a = approval_find(id);
	/* only the host client at a terminal that asked, on the connection
	 * it asked on, while it is still the asker */
	if (a != NULL && (!a->terminal || a->call == NULL ||
	    rpc_call_conn(a->call) != c))
		return error_set_field(err, E_PERMISSION, "terminal", "only "
		    "the terminal that asked for approval %lld may answer it "
		    "as the terminal", id);
	return approval_decide(id, decision, "terminal", result, err);
}

/* A waiter of a pending request is withdrawn. */
int
approval_decide_withdraw(long long id, void *done_arg, const char *why)
{
	struct approval_waiter *w;
	struct approval *a;
	sbox_error err;

	a = approval_find(id);
	if (a == NULL)
		return -1;
	LIST_FOREACH(w, &a->waiters, entry)
		if (w->call == NULL && w->done_arg == done_arg) {
			approval_waiter_end(w, why);
			return 0;
		}
	if (a->call != NULL || a->done_arg != done_arg)
		return -1;
	if (!LIST_EMPTY(&a->waiters)) {
		/* another asker waits: the request is theirs now */
		command_done_cb done = a->on_done;
		a->on_done = NULL;
		approval_promote(a);
		if (done != NULL)
			done(done_arg, 126, why);
		return 0;
	}
	error_clear(&err);
	if (approval_settle(a, "deny", why, &err) == -1) {
		log_error("recording the withdrawn request %lld: %s", id,
		    err.message);
		approval_fail(a, "deny", why);
	}
	return 0;
}
