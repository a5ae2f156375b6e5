/* refusal-row.c: write one queued refusal into its counted row (inside the
 * flush's transaction; called by batch.c, below refusals.c). */
#include "store/refusal-row.h"
#include "store/stmt.h"

static const char SQL_BUMP[] =
    "UPDATE refusals SET count = count + ?8, last_at = max(last_at, ?7),"
    " reason = ?5, seq = (SELECT max(seq) FROM refusals) + 1 WHERE session = ?1 AND command_id IS ?2 AND host = ?3"
    " AND port = ?4 AND rule IS ?6";
static const char SQL_ROWS[] =
    "SELECT count(*) FROM refusals WHERE session = ?1";
static const char SQL_INSERT[] =
    "INSERT INTO refusals (session, command_id, host, port, reason, rule,"
    " count, first_at, last_at, seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?8, ?7,"
    " ?7, (SELECT coalesce(max(seq), 0) + 1 FROM refusals))";

/* Bind one refusal's values to a statement of the shape above. */
static void
store_refusal_row_bind(sqlite3_stmt *stmt, const char *session, long long cmd,
    const char *host, int port, const char *reason, const char *rule,
    long long at, long long count)
{
	store_stmt_bind_int(stmt, 8, count > 0 ? count : 1);
	store_stmt_bind_text(stmt, 1, session);
	store_stmt_bind_opt_int(stmt, 2, cmd, 0);
	store_stmt_bind_text(stmt, 3, host);
	store_stmt_bind_int(stmt, 4, port);
	store_stmt_bind_text(stmt, 5, reason);
	store_stmt_bind_text(stmt, 6, rule);
	store_stmt_bind_int(stmt, 7, at);
}

/* Count one refusal in its row: 1 when a row was there, 0, or -1. */
static int
store_refusal_row_bump(struct store *st, const char *session, long long cmd,
    const char *host, int port, const char *reason, const char *rule,
    long long at, long long count, sbox_error *err)
{
	sqlite3_stmt *stmt;

	if ((stmt = store_stmt_get(st, SQL_BUMP, err)) == NULL)
		return -1;
	store_refusal_row_bind(stmt, session, cmd, host, port, reason, rule, at,
	    count);
	if (store_stmt_exec(st, stmt, "counting a refusal", err) == -1)
		return -1;
	return sqlite3_changes(st->db) > 0;
}

/* Rows the session has, or -1. */
static long long
store_refusal_row_count(struct store *st, const char *session, sbox_error *err)
{
	sqlite3_stmt *stmt;
	long long n = -1;

	if ((stmt = store_stmt_get(st, SQL_ROWS, err)) == NULL)
		return -1;
	store_stmt_bind_text(stmt, 1, session);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		n = sqlite3_column_int64(stmt, 0);
	else
		store_stmt_error(st, err, "counting refusals");
	store_stmt_done(stmt);
	return n;
}

/* Write one queued refusal (inside the flush's transaction): count it in
 * its row, else add a row, else (the session has STORE_REFUSAL_ROWS_MAX)
 * count it in the session's overflow row. */
int
store_refusal_row_write(struct store *st, const struct store_batch_rec *r,
    sbox_error *err)
{
	static const char more[] = "more refused hosts than the store keeps "
	    "per session";
	sqlite3_stmt *stmt;
	long long rows;
	int rc;

	rc = store_refusal_row_bump(st, r->session, r->command_id, r->host, r->port,
	    r->reason, r->rule, r->at, r->count, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if ((rows = store_refusal_row_count(st, r->session, err)) < 0)
		return -1;
	if (rows >= STORE_REFUSAL_ROWS_MAX) {
		rc = store_refusal_row_bump(st, r->session, 0, STORE_REFUSAL_MORE, 0,
		    more, NULL, r->at, r->count, err);
		if (rc != 0)
			return rc < 0 ? -1 : 0;
		if ((stmt = store_stmt_get(st, SQL_INSERT, err)) == NULL)
			return -1;
		store_refusal_row_bind(stmt, r->session, 0, STORE_REFUSAL_MORE, 0,
		    more, NULL, r->at, r->count);
		return store_stmt_exec(st, stmt, "recording a refusal", err);
	}
	if ((stmt = store_stmt_get(st, SQL_INSERT, err)) == NULL)
		return -1;
	store_refusal_row_bind(stmt, r->session, r->command_id, r->host, r->port,
	    r->reason, r->rule, r->at, r->count);
	return store_stmt_exec(st, stmt, "recording a refusal", err);
}

