/* commands.c: the commands table (the timeline of each session). */
#include "store/commands.h"
#include "store/batch.h"
#include "store/stmt.h"

#include <stdio.h>
#include <string.h>

static const char *const store_command_final[] = {
	"exited", "killed", "timeout", "failed", "not_run", "ended_by_crash",
	NULL
};

static const char SQL_SESSION_STATE[] =
    "SELECT state FROM sessions WHERE id = ?1";
/* Only into a live session: no row when it is not (the caller then asks
 * why), checked in the statement that inserts, not by one before it. */
static const char SQL_INSERT[] =
    "INSERT INTO commands (session, seq, argv, cwd, env_names, detach,"
    " outside, approval_id, started_at, state, id) SELECT ?1,"
    " (SELECT coalesce(max(seq), 0) + 1 FROM commands WHERE session = ?1),"
    " ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running', ?9"
    " WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?1"
    " AND state IN ('starting','ready'))";
static const char SQL_LINK_APPROVAL[] =
    "UPDATE approvals SET command_id = ?1 WHERE id = ?2 AND session = ?3";
static const char SQL_FINISH[] =
    "UPDATE commands SET ended_at = ?2, exit_code = ?3, signal = ?4,"
    " duration_ms = ?5, state = ?6, blocked = ?7"
    " WHERE id = ?1 AND state = 'running'";
#define SQL_COLUMNS \
    "SELECT id, session, seq, argv, cwd, env_names, detach, outside," \
    " approval_id, state, exit_code, signal, duration_ms, started_at," \
    " ended_at, blocked FROM commands"
static const char SQL_GET[] = SQL_COLUMNS " WHERE id = ?1";
static const char SQL_LIST[] = SQL_COLUMNS " WHERE session = ?1 ORDER BY seq";
static const char SQL_CRASHED[] =
    "UPDATE commands SET state = 'ended_by_crash', ended_at = ?1"
    " WHERE state = 'running'";

/* A session's state into buf: 1, 0 when it does not exist, -1. */
static int
store_command_session(struct store *st, const char *session, char *buf,
    size_t len, sbox_error *err)
{
	sqlite3_stmt *stmt;
	int rc;

	if ((stmt = store_stmt_get(st, SQL_SESSION_STATE, err)) == NULL)
		return -1;
	store_stmt_bind_text(stmt, 1, session);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		snprintf(buf, len, "%s", sqlite3_column_text(stmt, 0));
	else if (rc != SQLITE_DONE)
		store_stmt_error(st, err, "reading a session");
	store_stmt_done(stmt);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Check that a session exists and is live (starting or ready). */
static int
store_command_check_session(struct store *st, const char *session,
    int live, sbox_error *err)
{
	char state[32];
	int rc;

	if (session == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "session",
		    "session missing");
	rc = store_command_session(st, session, state, sizeof state, err);
	if (rc == -1)
		return -1;
	if (rc == 0)
		return error_set_field(err, E_SESSION_NOT_FOUND, "session",
		    "session %s not found", session);
	if (live && strcmp(state, "starting") != 0 &&
	    strcmp(state, "ready") != 0)
		return error_set_field(err, E_SESSION_CLOSED, "session",
		    "session %s is %s", session, state);
	return 0;
}

/* Record a started command; returns its id (> 0) or -1. */
long long
store_command_start(struct store *st, const struct store_command *c,
    sbox_error *err)
{
	sqlite3_stmt *stmt;
	long long id;

	if (!json_is_array(c->argv) || json_array_size(c->argv) == 0) {
		error_set_field(err, E_INVALID_PARAMS, "argv",
		    "argv must be a non-empty array");
		return -1;
	}
	if (c->session == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "session",
		    "session missing");
	if (store_stmt_tx_begin(st, c->outside, err) == -1)
		return -1;
	if ((stmt = store_stmt_get(st, SQL_INSERT, err)) == NULL)
		goto fail;
	store_stmt_bind_text(stmt, 1, c->session);
	store_stmt_bind_json(stmt, 2, c->argv);
	store_stmt_bind_text(stmt, 3, c->cwd);
	store_stmt_bind_json(stmt, 4, c->env_names);
	store_stmt_bind_int(stmt, 5, c->detach != 0);
	store_stmt_bind_int(stmt, 6, c->outside != 0);
	store_stmt_bind_opt_int(stmt, 7, c->approval_id, 0);
	store_stmt_bind_int(stmt, 8, c->started_at != 0 ? c->started_at :
	    store_clock_now_ms());
	store_stmt_bind_opt_int(stmt, 9, c->id, 0);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		if (sqlite3_extended_errcode(st->db) ==
		    SQLITE_CONSTRAINT_FOREIGNKEY)
			error_set_field(err, E_APPROVAL_NOT_FOUND,
			    "approval_id", "approval %lld not found",
			    c->approval_id);
		else
			store_stmt_error(st, err, "recording a command");
		store_stmt_done(stmt);
		goto fail;
	}
	store_stmt_done(stmt);
	if (sqlite3_changes(st->db) != 1) {	/* no live session: which error */
		if (store_command_check_session(st, c->session, 1, err) == 0)
			error_set(err, E_INTERNAL, "store: command not recorded");
		goto fail;
	}
	id = sqlite3_last_insert_rowid(st->db);
	if (c->approval_id != 0) {
		if ((stmt = store_stmt_get(st, SQL_LINK_APPROVAL, err)) == NULL)
			goto fail;
		store_stmt_bind_int(stmt, 1, id);
		store_stmt_bind_int(stmt, 2, c->approval_id);
		store_stmt_bind_text(stmt, 3, c->session);
		if (store_stmt_exec(st, stmt, "linking an approval",
		    err) == -1)
			goto fail;
		if (sqlite3_changes(st->db) != 1) {
			error_set_field(err, E_APPROVAL_NOT_FOUND,
			    "approval_id", "approval %lld not found in "
			    "session %s", c->approval_id, c->session);
			goto fail;
		}
	}
	if (store_stmt_tx_commit(st, err) == -1)
		return -1;
	return id;
fail:
	store_stmt_tx_rollback(st);
	return -1;
}

/* Record how a running command ended, with the queued batched records. */
int
store_command_finish_now(struct store *st, long long id, int exit_code, int sig,
    long long duration_ms, const char *state, json_t *blocked,
    sbox_error *err)
{
	sqlite3_stmt *stmt;
	json_t *cur;
	int n;

	if (!store_stmt_in(state, store_command_final))
		return error_set_field(err, E_INVALID_PARAMS, "state",
		    "not a final command state: \"%s\"",
		    state != NULL ? state : "");
	if (store_stmt_tx_begin(st, 0, err) == -1)
		return -1;
	if ((n = store_batch_write(st, err)) == -1)
		goto fail;
	if ((stmt = store_stmt_get(st, SQL_FINISH, err)) == NULL)
		goto fail;
	store_stmt_bind_int(stmt, 1, id);
	store_stmt_bind_int(stmt, 2, store_clock_now_ms());
	store_stmt_bind_opt_int(stmt, 3, exit_code, -1);
	store_stmt_bind_opt_int(stmt, 4, sig, -1);
	store_stmt_bind_opt_int(stmt, 5, duration_ms, -1);
	store_stmt_bind_text(stmt, 6, state);
	store_stmt_bind_json(stmt, 7, blocked);
	if (store_stmt_exec(st, stmt, "recording a command's end", err) == -1)
		goto fail;
	if (sqlite3_changes(st->db) != 1) {
		store_stmt_tx_rollback(st);
		if ((cur = store_command_get(st, id, err)) == NULL)
			return -1;
		error_set_field(err, E_INVALID_PARAMS, "id",
		    "command %lld already ended (%s)", id,
		    json_string_value(json_object_get(cur, "state")));
		json_decref(cur);
		return -1;
	}
	if (store_stmt_tx_commit(st, err) == -1)
		return -1;
	if (n > 0) {
		store_batch_clear(st);
		st->flushes++;
	}
	return 0;
fail:
	store_stmt_tx_rollback(st);
	return -1;
}

/* One command, or NULL with E_COMMAND_NOT_FOUND. */
json_t *
store_command_get(struct store *st, long long id, sbox_error *err)
{
	sqlite3_stmt *stmt;
	json_t *row;

	if ((stmt = store_stmt_get(st, SQL_GET, err)) == NULL)
		return NULL;
	store_stmt_bind_int(stmt, 1, id);
	if (store_stmt_one(st, stmt, "reading a command", &row, err) == 0)
		error_set_field(err, E_COMMAND_NOT_FOUND, "id",
		    "command %lld not found", id);
	return row;
}

/* The commands of a session in order. */
json_t *
store_command_list(struct store *st, const char *session, sbox_error *err)
{
	sqlite3_stmt *stmt;

	if (store_command_check_session(st, session, 0, err) == -1)
		return NULL;
	if ((stmt = store_stmt_get(st, SQL_LIST, err)) == NULL)
		return NULL;
	store_stmt_bind_text(stmt, 1, session);
	return store_stmt_rows(st, stmt, "listing commands", err);
}

/* Mark every running command ended_by_crash; returns how many, or -1. */
int
store_command_mark_crashed(struct store *st, sbox_error *err)
{
	sqlite3_stmt *stmt;

	if ((stmt = store_stmt_get(st, SQL_CRASHED, err)) == NULL)
		return -1;
	store_stmt_bind_int(stmt, 1, store_clock_now_ms());
	if (store_stmt_exec(st, stmt, "marking commands ended by a crash",
	    err) == -1)
		return -1;
	return sqlite3_changes(st->db);
}
