/* sessions.c: the sessions table. */
#include "store/sessions.h"
#include "store/stmt.h"

#include <stdio.h>

static const char *const store_session_states[] = {
	"starting", "ready", "closed", "failed", "ended_by_crash", NULL
};
static const char *const store_session_final[] = {
	"closed", "failed", "ended_by_crash", NULL
};

static const char SQL_INSERT[] =
    "INSERT INTO sessions (id, title, project, profile, resolved_profile,"
    " provenance, provider, model, space, parent, state, created_at,"
    " creator_uid) VALUES"
    " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
static const char SQL_STATE_OF[] =
    "SELECT state FROM sessions WHERE id = ?1";
static const char SQL_SET_LIVE[] =
    "UPDATE sessions SET state = ?2 WHERE id = ?1"
    " AND state IN ('starting','ready')";
static const char SQL_SET_FINAL[] =
    "UPDATE sessions SET state = ?2, closed_at = ?3, close_reason = ?4"
    " WHERE id = ?1 AND state IN ('starting','ready')";
/* commands: a session's seq numbers run 1..n without a gap (commands.c
 * inserts max(seq) + 1 and no row is ever deleted), so max(seq) is their
 * count, found in the (session, seq) index without walking every row:
 * a count(*) made session.info slower with each command of the session */
static const char SQL_GET[] =
    "SELECT id, title, project, profile, resolved_profile, provenance,"
    " provider, model, space, parent, state, created_at, closed_at,"
    " close_reason, creator_uid,"
    " (SELECT coalesce(max(seq), 0) FROM commands c WHERE c.session = s.id)"
    " AS commands"
    " FROM sessions s WHERE id = ?1";
#define SQL_LIST_COLUMNS \
    "SELECT id, title, project, profile, provider, model, space, parent," \
    " state, created_at, closed_at, close_reason, creator_uid FROM sessions"
static const char SQL_LIST_LIVE[] = SQL_LIST_COLUMNS
    " WHERE state IN ('starting','ready') ORDER BY created_at, id";
static const char SQL_LIST_ALL[] = SQL_LIST_COLUMNS
    " ORDER BY created_at, id";
static const char SQL_CRASHED[] =
    "UPDATE sessions SET state = 'ended_by_crash', closed_at = ?1,"
    " close_reason = 'daemon stopped unexpectedly'"
    " WHERE state IN ('starting','ready') RETURNING id";

/* Insert a session (committed on return). */
int
store_session_insert(struct store *st, const struct store_session *s,
    sbox_error *err)
{
	sqlite3_stmt *stmt;
	json_t *empty = NULL;
	int rc;

	if (s->id == NULL || *s->id == '\0')
		return error_set_field(err, E_INVALID_PARAMS, "id",
		    "session id missing");
	if (s->project == NULL || s->profile == NULL)
		return error_set_field(err, E_INVALID_PARAMS,
		    s->project == NULL ? "project" : "profile",
		    "session %s: %s missing", s->id,
		    s->project == NULL ? "project" : "profile");
	if (s->state != NULL && !store_stmt_in(s->state, store_session_states))
		return error_set_field(err, E_INVALID_PARAMS, "state",
		    "unknown session state \"%s\"", s->state);
	if ((stmt = store_stmt_get(st, SQL_INSERT, err)) == NULL)
		return -1;
	if (s->resolved_profile == NULL)
		empty = json_object();
	store_stmt_bind_text(stmt, 1, s->id);
	store_stmt_bind_text(stmt, 2, s->title);
	store_stmt_bind_text(stmt, 3, s->project);
	store_stmt_bind_text(stmt, 4, s->profile);
	store_stmt_bind_json(stmt, 5, s->resolved_profile != NULL ?
	    s->resolved_profile : empty);
	store_stmt_bind_json(stmt, 6, s->provenance);
	store_stmt_bind_text(stmt, 7, s->provider);
	store_stmt_bind_text(stmt, 8, s->model);
	store_stmt_bind_text(stmt, 9, s->space);
	store_stmt_bind_text(stmt, 10, s->parent);
	store_stmt_bind_text(stmt, 11, s->state != NULL ? s->state : "starting");
	store_stmt_bind_int(stmt, 12, s->created_at != 0 ? s->created_at :
	    store_clock_now_ms());
	store_stmt_bind_opt_int(stmt, 13, s->creator_uid, -1);
	json_decref(empty);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE) {
		store_stmt_done(stmt);
		return 0;
	}
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		error_set_field(err, E_INVALID_PARAMS, "id",
		    "session %s already exists", s->id);
	else if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		error_set_field(err, E_SESSION_NOT_FOUND, "parent",
		    "parent session %s not found", s->parent);
	else
		store_stmt_error(st, err, "recording a session");
	store_stmt_done(stmt);
	return -1;
}

/* The state of a session: 1 and state copied, 0 if unknown, -1. */
static int
store_session_state_of(struct store *st, const char *id, char *state,
    size_t len, sbox_error *err)
{
	sqlite3_stmt *stmt;
	int rc;

	if ((stmt = store_stmt_get(st, SQL_STATE_OF, err)) == NULL)
		return -1;
	store_stmt_bind_text(stmt, 1, id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		snprintf(state, len, "%s", sqlite3_column_text(stmt, 0));
		store_stmt_done(stmt);
		return 1;
	}
	if (rc != SQLITE_DONE)
		store_stmt_error(st, err, "reading a session");
	store_stmt_done(stmt);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Change a live session's state (a final one also sets closed_at, reason). */
int
store_session_set_state_now(struct store *st, const char *id, const char *state,
    const char *reason, sbox_error *err)
{
	sqlite3_stmt *stmt;
	char cur[32];
	int final, rc;

	if (!store_stmt_in(state, store_session_states))
		return error_set_field(err, E_INVALID_PARAMS, "state",
		    "unknown session state \"%s\"", state != NULL ? state : "");
	final = store_stmt_in(state, store_session_final);
	stmt = store_stmt_get(st, final ? SQL_SET_FINAL : SQL_SET_LIVE, err);
	if (stmt == NULL)
		return -1;
	store_stmt_bind_text(stmt, 1, id);
	store_stmt_bind_text(stmt, 2, state);
	if (final) {
		store_stmt_bind_int(stmt, 3, store_clock_now_ms());
		store_stmt_bind_text(stmt, 4, reason);
	}
	if (store_stmt_exec(st, stmt, "changing a session's state", err) == -1)
		return -1;
	if (sqlite3_changes(st->db) == 1)
		return 0;
	rc = store_session_state_of(st, id, cur, sizeof cur, err);
	if (rc == -1)
		return -1;
	if (rc == 0)
		return error_set_field(err, E_SESSION_NOT_FOUND, "session",
		    "session %s not found", id);
	return error_set_field(err, E_SESSION_CLOSED, "session",
	    "session %s is already %s", id, cur);
}

/* One session with everything, or NULL with E_SESSION_NOT_FOUND. */
json_t *
store_session_get(struct store *st, const char *id, sbox_error *err)
{
	sqlite3_stmt *stmt;
	json_t *row;
	int rc;

	if ((stmt = store_stmt_get(st, SQL_GET, err)) == NULL)
		return NULL;
	store_stmt_bind_text(stmt, 1, id);
	rc = store_stmt_one(st, stmt, "reading a session", &row, err);
	if (rc == 0)
		error_set_field(err, E_SESSION_NOT_FOUND, "session",
		    "session %s not found", id != NULL ? id : "");
	return row;
}

/* Sessions oldest first (live ones only unless include_closed). */
json_t *
store_session_list(struct store *st, int include_closed, sbox_error *err)
{
	sqlite3_stmt *stmt;

	stmt = store_stmt_get(st, include_closed ? SQL_LIST_ALL : SQL_LIST_LIVE,
	    err);
	if (stmt == NULL)
		return NULL;
	return store_stmt_rows(st, stmt, "listing sessions", err);
}

/* Mark every live session ended_by_crash; returns a JSON array of their ids. */
json_t *
store_session_mark_crashed(struct store *st, sbox_error *err)
{
	sqlite3_stmt *stmt;
	json_t *ids;
	int rc;

	if ((stmt = store_stmt_get(st, SQL_CRASHED, err)) == NULL)
		return NULL;
	if ((ids = json_array()) == NULL) {
		error_nomem(err);
		return NULL;
	}
	store_stmt_bind_int(stmt, 1, store_clock_now_ms());
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		json_array_append_new(ids, json_string(
		    (const char *)sqlite3_column_text(stmt, 0)));
	if (rc != SQLITE_DONE) {
		store_stmt_error(st, err, "marking sessions ended by a crash");
		store_stmt_done(stmt);
		json_decref(ids);
		return NULL;
	}
	store_stmt_done(stmt);
	return ids;
}
