/* events.c: the event log (batched writes). */
#include "store/store-private.h"

#include <stdlib.h>
#include <string.h>

#define STORE_EVENT_LIMIT 100

static const char SQL_LIST[] =
    "SELECT id, topic, session, data, created_at FROM events"
    " WHERE id > ?1 ORDER BY id LIMIT ?2";
static const char SQL_PRUNE[] =
    "DELETE FROM events WHERE created_at < ?1";

/* Queue an event (written by the next store_flush). */
int
store_event_add(struct store *st, const char *topic, const char *session,
    json_t *data, sbox_error *err)
{
	struct store_batch_rec rec;

	if (topic == NULL)
		return error_set(err, E_INVALID_PARAMS, "event: topic missing");
	memset(&rec, 0, sizeof rec);
	rec.kind = STORE_BATCH_EVENT;
	rec.at = store_now_ms();
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
	return store_batch_push(st, &rec, err);
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
	if ((stmt = store_stmt_get(st, SQL_PRUNE, err)) == NULL)
		return -1;
	store_stmt_bind_int(stmt, 1, before_ms);
	if (store_stmt_exec(st, stmt, "pruning events", err) == -1)
		return -1;
	return sqlite3_changes64(st->db);
}
