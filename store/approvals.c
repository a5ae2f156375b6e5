/* approvals.c: run-outside requests, their decisions and results (the audit).
 * Every write here is its own transaction with synchronous=FULL. */
#include "store/approvals.h"
#include "store/stmt.h"

#include <string.h>

static const char *const store_approval_decisions[] = {
	"pending", "allow_once", "deny", "timeout", "refused_never",
	"refused_headless", "not_run_crash", NULL
};

static const char SQL_INSERT[] =
    "INSERT INTO approvals (session, argv, cwd, reason, requested_at,"
    " decision, decided_by, decided_at, program, program_writable, env,"
    " env_dropped, cwd_writable) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
    " ?10, ?11, ?12, ?13)";
static const char SQL_DECIDE[] =
    "UPDATE approvals SET decision = ?2, decided_by = ?3, decided_at = ?4"
    " WHERE id = ?1 AND decision = 'pending'";
static const char SQL_FINISH[] =
    "UPDATE approvals SET exit_code = ?2, duration_ms = ?3,"
    " command_id = coalesce(?4, command_id)"
    " WHERE id = ?1 AND decision = 'allow_once'";
#define SQL_COLUMNS \
    "SELECT a.id, a.session, a.argv, a.cwd, a.cwd_writable, a.program," \
    " a.program_writable," \
    " a.env, a.env_dropped, a.reason, a.requested_at," \
    " a.decision, a.decided_by, a.decided_at, a.command_id, a.exit_code," \
    " a.duration_ms, c.state AS command_state, c.signal" \
    " FROM approvals a LEFT JOIN commands c ON c.id = a.command_id"
static const char SQL_GET[] = SQL_COLUMNS " WHERE a.id = ?1";
static const char SQL_LIST[] = SQL_COLUMNS
    " WHERE (?1 IS NULL OR a.session = ?1) AND a.requested_at >= ?2"
    " AND (?3 IS NULL OR a.decision = ?3) ORDER BY a.requested_at, a.id";
static const char SQL_CRASHED[] =
    "UPDATE approvals SET decision = 'not_run_crash', decided_at = ?1,"
    " decided_by = 'sboxd (stopped before a decision)'"
    " WHERE decision = 'pending'";

/* Run one write statement in its own durable transaction; -1 or changes. */
static int
store_approval_write(struct store *st, sqlite3_stmt *stmt, const char *what,
    sbox_error *err)
{
	int rc, n;

	if (store_stmt_tx_begin(st, 1, err) == -1) {
		store_stmt_done(stmt);
		return -1;
	}
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_DONE) {
		if (sqlite3_extended_errcode(st->db) ==
		    SQLITE_CONSTRAINT_FOREIGNKEY)
			error_set(err, E_NOT_FOUND,
			    "%s: the session or command does not exist", what);
		else
			store_stmt_error(st, err, what);
		store_stmt_done(stmt);
		store_stmt_tx_rollback(st);
		return -1;
	}
	store_stmt_done(stmt);
	n = sqlite3_changes(st->db);
	if (store_stmt_tx_commit(st, err) == -1)
		return -1;
	return n;
}

/* Record a run-outside request; returns its id (> 0) or -1. */
long long
store_approval_create(struct store *st, const struct store_approval *a,
    sbox_error *err)
{
	const char *decision = a->decision != NULL ? a->decision : "pending";
	sqlite3_stmt *stmt;
	long long now = store_clock_now_ms();

	if (a->session == NULL) {
		error_set_field(err, E_INVALID_PARAMS, "session",
		    "session missing");
		return -1;
	}
	if (!json_is_array(a->argv) || json_array_size(a->argv) == 0) {
		error_set_field(err, E_INVALID_PARAMS, "argv",
		    "argv must be a non-empty array");
		return -1;
	}
	if (a->reason == NULL || *a->reason == '\0') {
		error_set_field(err, E_INVALID_PARAMS, "reason",
		    "a reason is required to run outside the sandbox");
		return -1;
	}
	if (!store_stmt_in(decision, store_approval_decisions)) {
		error_set_field(err, E_INVALID_PARAMS, "decision",
		    "unknown decision \"%s\"", decision);
		return -1;
	}
	if ((stmt = store_stmt_get(st, SQL_INSERT, err)) == NULL)
		return -1;
	store_stmt_bind_text(stmt, 1, a->session);
	store_stmt_bind_json(stmt, 2, a->argv);
	store_stmt_bind_text(stmt, 3, a->cwd);
	store_stmt_bind_text(stmt, 4, a->reason);
	store_stmt_bind_int(stmt, 5, a->requested_at != 0 ? a->requested_at :
	    now);
	store_stmt_bind_text(stmt, 6, decision);
	if (strcmp(decision, "pending") != 0) {
		store_stmt_bind_text(stmt, 7, a->decided_by);
		store_stmt_bind_int(stmt, 8, now);
	}
	store_stmt_bind_text(stmt, 9, a->program);
	store_stmt_bind_int(stmt, 10, a->program_writable ? 1 : 0);
	store_stmt_bind_json(stmt, 11, a->env);
	store_stmt_bind_json(stmt, 12, a->env_dropped);
	store_stmt_bind_int(stmt, 13, a->cwd_writable ? 1 : 0);
	if (store_approval_write(st, stmt, "recording a run-outside request",
	    err) == -1) {
		if (err != NULL && strcmp(err->name, E_NOT_FOUND) == 0)
			error_set_field(err, E_SESSION_NOT_FOUND, "session",
			    "session %s not found", a->session);
		return -1;
	}
	return sqlite3_last_insert_rowid(st->db);
}

/* Why a request could not change: not found, or its current decision. */
static int
store_approval_why(struct store *st, long long id, const char *want,
    sbox_error *err)
{
	json_t *cur;

	if ((cur = store_approval_get(st, id, err)) == NULL)
		return -1;
	error_set_field(err, E_INVALID_PARAMS, "id",
	    "approval %lld is %s, not %s", id,
	    json_string_value(json_object_get(cur, "decision")), want);
	json_decref(cur);
	return -1;
}

/* Decide a pending request. */
int
store_approval_decide(struct store *st, long long id, const char *decision,
    const char *decided_by, sbox_error *err)
{
	sqlite3_stmt *stmt;
	int n;

	if (!store_stmt_in(decision, store_approval_decisions) ||
	    strcmp(decision, "pending") == 0)
		return error_set_field(err, E_INVALID_PARAMS, "decision",
		    "unknown decision \"%s\"", decision != NULL ? decision : "");
	if ((stmt = store_stmt_get(st, SQL_DECIDE, err)) == NULL)
		return -1;
	store_stmt_bind_int(stmt, 1, id);
	store_stmt_bind_text(stmt, 2, decision);
	store_stmt_bind_text(stmt, 3, decided_by);
	store_stmt_bind_int(stmt, 4, store_clock_now_ms());
	n = store_approval_write(st, stmt, "recording a decision", err);
	if (n == -1)
		return -1;
	if (n == 0)
		return store_approval_why(st, id, "pending", err);
	return 0;
}

/* Record the result of an allowed run. */
int
store_approval_finish_now(struct store *st, long long id, int exit_code,
    long long duration_ms, long long command_id, sbox_error *err)
{
	sqlite3_stmt *stmt;
	int n;

	if ((stmt = store_stmt_get(st, SQL_FINISH, err)) == NULL)
		return -1;
	store_stmt_bind_int(stmt, 1, id);
	store_stmt_bind_opt_int(stmt, 2, exit_code, -1);
	store_stmt_bind_opt_int(stmt, 3, duration_ms, -1);
	store_stmt_bind_opt_int(stmt, 4, command_id, 0);
	n = store_approval_write(st, stmt, "recording a run-outside result",
	    err);
	if (n == -1)
		return -1;
	if (n == 0)
		return store_approval_why(st, id, "allow_once", err);
	return 0;
}

/* One request, or NULL with E_APPROVAL_NOT_FOUND. */
json_t *
store_approval_get(struct store *st, long long id, sbox_error *err)
{
	sqlite3_stmt *stmt;
	json_t *row;

	if ((stmt = store_stmt_get(st, SQL_GET, err)) == NULL)
		return NULL;
	store_stmt_bind_int(stmt, 1, id);
	if (store_stmt_one(st, stmt, "reading an approval", &row, err) == 0)
		error_set_field(err, E_APPROVAL_NOT_FOUND, "id",
		    "approval %lld not found", id);
	return row;
}

/* Requests oldest first, filtered by session, time and decision. */
json_t *
store_approval_list(struct store *st, const char *session, long long since_ms,
    const char *decision, sbox_error *err)
{
	sqlite3_stmt *stmt;

	if (decision != NULL && !store_stmt_in(decision,
	    store_approval_decisions)) {
		error_set_field(err, E_INVALID_PARAMS, "decision",
		    "unknown decision \"%s\"", decision);
		return NULL;
	}
	if ((stmt = store_stmt_get(st, SQL_LIST, err)) == NULL)
		return NULL;
	store_stmt_bind_text(stmt, 1, session);
	store_stmt_bind_int(stmt, 2, since_ms);
	store_stmt_bind_text(stmt, 3, decision);
	return store_stmt_rows(st, stmt, "listing approvals", err);
}

/* Every pending request becomes not_run_crash; returns how many, or -1. */
int
store_approval_mark_crashed(struct store *st, sbox_error *err)
{
	sqlite3_stmt *stmt;

	if ((stmt = store_stmt_get(st, SQL_CRASHED, err)) == NULL)
		return -1;
	store_stmt_bind_int(stmt, 1, store_clock_now_ms());
	return store_approval_write(st, stmt,
	    "marking requests not run after a crash", err);
}
