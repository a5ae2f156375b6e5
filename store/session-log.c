/* session-log.c: the timeline of one session (session.log): its commands
 * and its run-outside requests that never ran, merged by time, with what
 * the sandbox refused during each command. */
#include "store/store-types.h"
#include "store/stmt.h"

#include <stdio.h>
#include <string.h>

static const char SQL_EXISTS[] = "SELECT 1 FROM sessions WHERE id = ?1";
static const char SQL_COMMANDS[] =
    "SELECT c.id AS command_id, c.seq, c.approval_id, c.argv, c.cwd,"
    " c.detach, c.outside, c.state, c.exit_code, c.signal, c.duration_ms,"
    " c.started_at, c.ended_at, a.requested_at, a.reason, a.decision,"
    " a.decided_by, a.decided_at, c.blocked"
    " FROM commands c LEFT JOIN approvals a ON a.id = c.approval_id"
    " WHERE c.session = ?1 ORDER BY c.seq";
static const char SQL_REQUESTS[] =
    "SELECT a.id AS approval_id, a.argv, a.cwd, a.exit_code, a.duration_ms,"
    " a.requested_at, a.reason, a.decision, a.decided_by, a.decided_at"
    " FROM approvals a WHERE a.session = ?1 AND a.command_id IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM commands c WHERE c.approval_id = a.id)"
    " ORDER BY a.requested_at, a.id";
/* one min() aggregate: reason and rule come from the first row */
static const char SQL_REFUSED[] =
    "SELECT command_id, host, port, sum(count) AS count, reason, rule,"
    " first_at, min(id) AS first_id FROM refusals"
    " WHERE session = ?1 AND command_id IS NOT NULL"
    " GROUP BY command_id, host, port ORDER BY command_id, first_id";

/* 1 when the session exists, 0 when not, -1. */
static int
store_session_log_exists(struct store *st, const char *session,
    sbox_error *err)
{
	sqlite3_stmt *stmt;
	int rc;

	if ((stmt = store_stmt_get(st, SQL_EXISTS, err)) == NULL)
		return -1;
	store_stmt_bind_text(stmt, 1, session);
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_stmt_error(st, err, "reading a session");
	store_stmt_done(stmt);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The session's refusals grouped per command: {"<command id>": [...]}. */
static json_t *
store_session_log_refused(struct store *st, const char *session,
    sbox_error *err)
{
	sqlite3_stmt *stmt;
	json_t *rows, *map, *row, *list;
	char key[32];
	size_t i;

	if ((stmt = store_stmt_get(st, SQL_REFUSED, err)) == NULL)
		return NULL;
	store_stmt_bind_text(stmt, 1, session);
	if ((rows = store_stmt_rows(st, stmt, "reading refusals", err)) == NULL)
		return NULL;
	map = json_object();
	json_array_foreach(rows, i, row) {
		snprintf(key, sizeof key, "%lld", (long long)json_integer_value(
		    json_object_get(row, "command_id")));
		json_object_del(row, "command_id");
		if ((list = json_object_get(map, key)) == NULL) {
			list = json_array();
			json_object_set_new(map, key, list);
		}
		json_array_append(list, row);
	}
	json_decref(rows);
	return map;
}

/* Give a request that never ran the fields of a command entry. */
static void
store_session_log_request(json_t *e)
{
	const char *decision = json_string_value(json_object_get(e, "decision"));

	json_object_set_new(e, "command_id", json_null());
	json_object_set_new(e, "seq", json_null());
	json_object_set_new(e, "detach", json_false());
	json_object_set_new(e, "outside", json_true());
	json_object_set_new(e, "state", json_string(decision != NULL &&
	    strcmp(decision, "pending") == 0 ? "pending" : "not_run"));
	json_object_set_new(e, "signal", json_null());
	json_object_set_new(e, "started_at", json_null());
	json_object_set_new(e, "started_at_ms", json_null());
	json_object_set_new(e, "ended_at", json_null());
	json_object_set_new(e, "ended_at_ms", json_null());
	json_object_set_new(e, "blocked", json_null());
	json_object_set_new(e, "refused", json_array());
}

/* The time an entry sorts by (started_at_ms, or requested_at_ms). */
static long long
store_session_log_time(json_t *e, const char *key)
{
	return json_integer_value(json_object_get(e, key));
}

/* The timeline of a session (see store.h). */
json_t *
store_session_log(struct store *st, const char *session, sbox_error *err)
{
	sqlite3_stmt *stmt;
	json_t *cmds = NULL, *reqs = NULL, *refused = NULL, *out = NULL, *e, *r;
	char key[32];
	size_t i = 0, j = 0;
	int rc;

	/* what could not be written yet is still read from what is stored
	 * (the queue is retried by the daemon's timer) */
	(void)store_flush(st, NULL);
	if ((rc = store_session_log_exists(st, session, err)) != 1) {
		if (rc == 0)
			error_set_field(err, E_SESSION_NOT_FOUND, "session",
			    "session %s not found", session != NULL ? session : "");
		return NULL;
	}
	if ((stmt = store_stmt_get(st, SQL_COMMANDS, err)) == NULL)
		goto done;
	store_stmt_bind_text(stmt, 1, session);
	if ((cmds = store_stmt_rows(st, stmt, "reading commands", err)) == NULL)
		goto done;
	if ((stmt = store_stmt_get(st, SQL_REQUESTS, err)) == NULL)
		goto done;
	store_stmt_bind_text(stmt, 1, session);
	if ((reqs = store_stmt_rows(st, stmt, "reading run-outside requests",
	    err)) == NULL)
		goto done;
	if ((refused = store_session_log_refused(st, session, err)) == NULL)
		goto done;
	out = json_array();
	while (i < json_array_size(cmds) || j < json_array_size(reqs)) {
		if (j == json_array_size(reqs) || (i < json_array_size(cmds) &&
		    store_session_log_time(json_array_get(cmds, i),
		    "started_at_ms") < store_session_log_time(
		    json_array_get(reqs, j), "requested_at_ms"))) {
			e = json_array_get(cmds, i++);
			snprintf(key, sizeof key, "%lld", (long long)
			    json_integer_value(json_object_get(e, "command_id")));
			r = json_object_get(refused, key);
			json_object_set_new(e, "refused", r != NULL ?
			    json_incref(r) : json_array());
		} else {
			e = json_array_get(reqs, j++);
			store_session_log_request(e);
		}
		json_array_append(out, e);
	}
done:
	json_decref(cmds);
	json_decref(reqs);
	json_decref(refused);
	return out;
}
