/* events.c: the event log (batched writes). */
#include "store/store-types.h"
#include "store/queue.h"
#include "store/stmt.h"

#include <stdlib.h>
#include <string.h>

#define STORE_EVENT_LIMIT 100

static const char SQL_LIST[] =
    "SELECT id, topic, session, data, created_at FROM events"
    " WHERE id > ?1 ORDER BY id LIMIT ?2";
static const char SQL_PRUNE[] =
    "DELETE FROM events WHERE created_at < ?1";
/* the newest id survives pruning in meta, so ids never go back */
static const char SQL_KEEP_LAST[] =
    "INSERT OR REPLACE INTO meta (key, value) SELECT 'events_last', m"
    " FROM (SELECT max(id) AS m FROM events) WHERE m IS NOT NULL"
    " AND m > coalesce((SELECT CAST(value AS INTEGER) FROM meta"
    " WHERE key = 'events_last'), 0)";
static const char SQL_SET_LAST[] =
    "INSERT OR REPLACE INTO meta (key, value) VALUES ('events_last', ?1)";
static const char SQL_BOUNDS[] =
    "SELECT max(coalesce((SELECT max(id) FROM events), 0),"
    " coalesce((SELECT CAST(value AS INTEGER) FROM meta"
    " WHERE key = 'events_last'), 0)) AS last,"
    " (SELECT min(id) FROM events) AS first";

/* Queue an event (written by the next store_flush). */
int
store_event_add(struct store *st, const char *topic, const char *session,
    json_t *data, sbox_error *err)
{
	return store_event_add_seq(st, 0, 0, topic, session, data, err);
}

/* Queue an event with its own id (seq; 0: the next free one) and time
 * (at_ms; 0: now). */
int
store_event_add_seq(struct store *st, long long seq, long long at_ms,
    const char *topic, const char *session, json_t *data, sbox_error *err)
{
	struct store_batch_rec rec;

	if (topic == NULL)
		return error_set(err, E_INVALID_PARAMS, "event: topic missing");
	memset(&rec, 0, sizeof rec);
	rec.kind = STORE_BATCH_EVENT;
	rec.command_id = seq;
	rec.at = at_ms > 0 ? at_ms : store_clock_now_ms();
	rec.topic = strdup(topic);
	rec.session = session != NULL ? strdup(session) : NULL;
	rec.data = data != NULL ?
	    json_dumps(data, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	if (rec.topic == NULL || (session != NULL && rec.session == NULL) ||
	    (data != NULL && rec.data == NULL)) {
		free(rec.topic);
		free(rec.session);
		free(rec.data);
		return error_nomem(err);
	}
	return store_queue_push(st, &rec, err);
}

/* Events after since_id, oldest first, at most limit. Flushes first. */
json_t *
store_event_list(struct store *st, long long since_id, int limit,
    sbox_error *err)
{
	sqlite3_stmt *stmt;

	if (store_flush(st, err) == -1)
		return NULL;
	if ((stmt = store_stmt_get(st, SQL_LIST, err)) == NULL)
		return NULL;
	store_stmt_bind_int(stmt, 1, since_id);
	store_stmt_bind_int(stmt, 2, limit > 0 ? limit : STORE_EVENT_LIMIT);
	return store_stmt_rows(st, stmt, "listing events", err);
}

/* Delete events created before before_ms; returns how many, or -1. */
long long
store_event_prune(struct store *st, long long before_ms, sbox_error *err)
{
	sqlite3_stmt *stmt;

	if (store_flush(st, err) == -1)
		return -1;
	if ((stmt = store_stmt_get(st, SQL_KEEP_LAST, err)) == NULL)
		return -1;
	if (store_stmt_exec(st, stmt, "keeping the last event id", err) == -1)
		return -1;
	if ((stmt = store_stmt_get(st, SQL_PRUNE, err)) == NULL)
		return -1;
	store_stmt_bind_int(stmt, 1, before_ms);
	if (store_stmt_exec(st, stmt, "pruning events", err) == -1)
		return -1;
	return sqlite3_changes64(st->db);
}

/* The newest event id ever written (pruned ones count) and the oldest one
 * still stored (0 when none). Flushes first. */
int
store_event_bounds(struct store *st, long long *last, long long *first,
    sbox_error *err)
{
	sqlite3_stmt *stmt;
	json_t *row;

	*last = *first = 0;
	if (store_flush(st, err) == -1)
		return -1;
	if ((stmt = store_stmt_get(st, SQL_BOUNDS, err)) == NULL)
		return -1;
	if (store_stmt_one(st, stmt, "reading event ids", &row, err) == -1)
		return -1;
	*last = json_integer_value(json_object_get(row, "last"));
	*first = json_integer_value(json_object_get(row, "first"));
	json_decref(row);
	return 0;
}

/* Record that ids up to last are taken (a reservation ahead of the events
 * written, or the last one at a clean stop): ids never go back below it. */
int
store_event_set_last(struct store *st, long long last, sbox_error *err)
{
	sqlite3_stmt *stmt;

	if ((stmt = store_stmt_get(st, SQL_SET_LAST, err)) == NULL)
		return -1;
	store_stmt_bind_int(stmt, 1, last);
	return store_stmt_exec(st, stmt, "recording the last event id", err);
}
