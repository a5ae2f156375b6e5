/* delay.c: writes the database could not take now (disk full, locked by
 * another process, file gone) are kept in memory, in order and within a
 * bound (STORE_DELAY_MAX), and retried by store_flush; every one that is
 * lost is counted. Retries back off (STORE_RETRY_MS, fault.c) so a locked
 * database costs the event loop one short busy wait per second, not one per
 * call. */
#include "store/delay.h"
#include "store/approvals.h"
#include "store/commands.h"
#include "store/fault.h"
#include "store/sessions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Free what one delayed write holds. */
static void
store_delay_free(struct store_delayed *d)
{
	free(d->session);
	free(d->state);
	free(d->reason);
	json_decref(d->blocked);
	memset(d, 0, sizeof *d);
}

/* Keep a copy of d (its strings and JSON are copied); when the list is full
 * the oldest is dropped (counted). Returns 1. */
int
store_delay_push(struct store *st, const struct store_delayed *d)
{
	struct store_delayed *n;

	if (st->ndelayed == STORE_DELAY_MAX) {
		store_delay_free(&st->delayed[0]);
		memmove(&st->delayed[0], &st->delayed[1],
		    (STORE_DELAY_MAX - 1) * sizeof st->delayed[0]);
		st->ndelayed--;
		st->delayed_dropped++;
		st->dropped++;
	}
	n = &st->delayed[st->ndelayed++];
	*n = *d;
	n->session = d->session ? strdup(d->session) : NULL;
	n->state = d->state ? strdup(d->state) : NULL;
	n->reason = d->reason ? strdup(d->reason) : NULL;
	n->blocked = d->blocked ? json_deep_copy(d->blocked) : NULL;
	st->delayed_total++;
	st->fault = 1;
	return 1;
}

/* Run one delayed write now. */
static int
store_delay_run(struct store *st, struct store_delayed *d, sbox_error *err)
{
	switch (d->kind) {
	case STORE_DELAY_COMMAND_FINISH:
		return store_command_finish_now(st, d->id, d->exit_code, d->sig,
		    d->duration_ms, d->state, d->blocked, err);
	case STORE_DELAY_SESSION_STATE:
		return store_session_set_state_now(st, d->session, d->state,
		    d->reason, err);
	case STORE_DELAY_APPROVAL_FINISH:
		return store_approval_finish_now(st, d->id, d->exit_code,
		    d->duration_ms, d->command_id, err);
	}
	return -1;
}

/* Write the delayed records in order: 0 when none is left, -1 when the
 * database still fails (the rest stay; no new try before the back-off). A
 * write refused for its content (its row is gone, e.g. a re-created
 * database) is dropped and counted. */
int
store_delay_retry(struct store *st, sbox_error *err)
{
	sbox_error e;
	size_t i;

	if (st->ndelayed == 0)
		return 0;
	if (store_fault_moved(st) || st->hold)	/* the daemon re-creates it and
						 * writes the live state first */
		return error_set(err, E_STORE, "%s (retrying)", st->last_error);
	if (store_clock_now_ms() < st->retry_at)
		return error_set(err, E_STORE, "%s (retrying)", st->last_error);
	for (i = 0; i < st->ndelayed; i++) {
		st->last_rc = 0;
		error_clear(&e);
		if (store_delay_run(st, &st->delayed[i], &e) == -1) {
			if (store_fault_is(st)) {
				store_fault_note(st, &e);
				break;
			}
			/* a command already ended has its end: nothing lost */
			if (!(st->delayed[i].kind == STORE_DELAY_COMMAND_FINISH &&
			    strcmp(e.name, E_INVALID_PARAMS) == 0)) {
				st->delayed_dropped++;
				st->dropped++;
			}
		}
		store_delay_free(&st->delayed[i]);
	}
	memmove(&st->delayed[0], &st->delayed[i],
	    (st->ndelayed - i) * sizeof st->delayed[0]);
	st->ndelayed -= i;
	if (st->ndelayed > 0) {
		if (err != NULL)
			*err = e;
		return -1;
	}
	store_fault_ok(st);
	return 0;
}

/* Let the next write or flush try the database at once. */
void
store_retry_now(struct store *st)
{
	st->retry_at = 0;
	st->hold = 0;
}

/* Drop every delayed write (close). */
void
store_delay_clear(struct store *st)
{
	size_t i;

	for (i = 0; i < st->ndelayed; i++)
		store_delay_free(&st->delayed[i]);
	st->ndelayed = 0;
}

/* Run a write, or keep it for later when the database fails: 0 written,
 * 1 delayed (err says why), -1 refused (err). */
static int
store_delay_write(struct store *st, struct store_delayed *d, sbox_error *err)
{
	if (store_fault_moved(st)) {	/* not into a deleted file: kept for the new */
		snprintf(st->last_error, sizeof st->last_error, "the database "
		    "file %s was deleted or replaced", st->path);
		store_fault_note(st, NULL);
		error_set(err, E_STORE, "%s (kept to write later)",
		    st->last_error);
		return store_delay_push(st, d);
	}
	if (st->ndelayed > 0)
		(void)store_delay_retry(st, NULL);
	if (st->ndelayed > 0) {	/* keep the order: behind the waiting ones */
		error_set(err, E_STORE, "%s (kept to write later)",
		    st->last_error);
		return store_delay_push(st, d);
	}
	st->last_rc = 0;
	if (store_delay_run(st, d, err) == 0) {
		store_fault_ok(st);
		return 0;
	}
	if (!store_fault_is(st))
		return -1;
	store_fault_note(st, err);
	error_context(err, "kept to write later");
	return store_delay_push(st, d);
}

/* Record how a running command ended (kept and retried when the database
 * fails: returns 1 then). */
int
store_command_finish(struct store *st, long long id, int exit_code, int sig,
    long long duration_ms, const char *state, json_t *blocked,
    sbox_error *err)
{
	struct store_delayed d = {
		.kind = STORE_DELAY_COMMAND_FINISH, .id = id,
		.exit_code = exit_code, .sig = sig, .duration_ms = duration_ms,
		.state = (char *)state, .blocked = blocked,
	};

	return store_delay_write(st, &d, err);
}

/* Change a session's state (kept and retried when the database fails). */
int
store_session_set_state(struct store *st, const char *id, const char *state,
    const char *reason, sbox_error *err)
{
	struct store_delayed d = {
		.kind = STORE_DELAY_SESSION_STATE, .session = (char *)id,
		.state = (char *)state, .reason = (char *)reason,
	};

	return store_delay_write(st, &d, err);
}

/* Record the result of an allowed run (kept and retried likewise). */
int
store_approval_finish(struct store *st, long long id, int exit_code,
    long long duration_ms, long long command_id, sbox_error *err)
{
	struct store_delayed d = {
		.kind = STORE_DELAY_APPROVAL_FINISH, .id = id,
		.exit_code = exit_code, .duration_ms = duration_ms,
		.command_id = command_id,
	};

	return store_delay_write(st, &d, err);
}
