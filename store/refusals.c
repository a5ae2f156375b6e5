/* refusals.c: host refusals of the proxy (batched writes aggregated into
 * one counted row per session, command, host, port and rule; grouped reads). */
#include "store/store-types.h"
#include "store/queue.h"
#include "store/stmt.h"

#include <stdlib.h>
#include <string.h>

/* One min()/max() aggregate per query, so SQLite takes the bare columns
 * (reason, rule, first_at / last_at) from that row: the newest (max(seq))
 * or the first (min(id)). */
static const char SQL_RECENT_SESSION[] =
    "SELECT host, port, sum(count) AS count, reason, rule, last_at,"
    " max(seq) AS last_id,"
    " (SELECT min(f.first_at) FROM refusals f WHERE f.session = r.session"
    "  AND f.host = r.host AND f.port = r.port) AS first_at"
    " FROM refusals r WHERE session = ?1 GROUP BY host, port"
    " ORDER BY last_id DESC LIMIT ?2";
static const char SQL_RECENT_ALL[] =
    "SELECT host, port, sum(count) AS count, reason, rule, last_at,"
    " max(seq) AS last_id, session"
    " FROM refusals GROUP BY host, port"
    " ORDER BY last_id DESC LIMIT ?2";
static const char SQL_FOR_COMMAND[] =
    "SELECT host, port, sum(count) AS count, reason, rule, first_at,"
    " min(id) AS first_id"
    " FROM refusals WHERE command_id = ?1 GROUP BY host, port"
    " ORDER BY first_id";

/* Queue a host refusal (written by the next store_flush). */
int
store_refusal_add(struct store *st, const char *session, long long command_id,
    const char *host, int port, const char *reason, const char *rule,
    sbox_error *err)
{
	struct store_batch_rec rec;

	if (session == NULL || host == NULL || reason == NULL)
		return error_set(err, E_INVALID_PARAMS,
		    "refusal: session, host and reason are required");
	memset(&rec, 0, sizeof rec);
	rec.kind = STORE_BATCH_REFUSAL;
	rec.at = store_clock_now_ms();
	rec.count = 1;
	rec.command_id = command_id > 0 ? command_id : 0;
	rec.port = port;
	rec.session = strdup(session);
	rec.host = strdup(host);
	rec.reason = strdup(reason);
	rec.rule = rule != NULL ? strdup(rule) : NULL;
	if (rec.session == NULL || rec.host == NULL || rec.reason == NULL ||
	    (rule != NULL && rec.rule == NULL)) {
		free(rec.session);
		free(rec.host);
		free(rec.reason);
		free(rec.rule);
		return error_nomem(err);
	}
	return store_queue_push(st, &rec, err);
}

/* The hosts refused last, newest first, with counts. Flushes first. */
json_t *
store_refusal_recent(struct store *st, const char *session, int limit,
    sbox_error *err)
{
	sqlite3_stmt *stmt;

	/* what could not be written yet is still read from what is stored
	 * (the queue is retried by the daemon's timer) */
	(void)store_flush(st, NULL);
	stmt = store_stmt_get(st, session != NULL ? SQL_RECENT_SESSION :
	    SQL_RECENT_ALL, err);
	if (stmt == NULL)
		return NULL;
	if (session != NULL)
		store_stmt_bind_text(stmt, 1, session);
	store_stmt_bind_int(stmt, 2, limit > 0 ? limit : -1);
	return store_stmt_rows(st, stmt, "listing refused hosts", err);
}

/* The refusals during one command, grouped by host and port. Flushes first. */
json_t *
store_refusals_for_command(struct store *st, long long command_id,
    sbox_error *err)
{
	sqlite3_stmt *stmt;

	/* what could not be written yet is still read from what is stored
	 * (the queue is retried by the daemon's timer) */
	(void)store_flush(st, NULL);
	if ((stmt = store_stmt_get(st, SQL_FOR_COMMAND, err)) == NULL)
		return NULL;
	store_stmt_bind_int(stmt, 1, command_id);
	return store_stmt_rows(st, stmt, "listing a command's refusals", err);
}
