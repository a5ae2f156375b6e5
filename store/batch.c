/* batch.c: the bounded queue behind the batched tables (refusals, events),
 * written in one transaction by store_flush. */
#include "store/batch.h"
#include "store/refusal-row.h"
#include "store/stmt.h"

#include <stdlib.h>
#include <string.h>

static const char SQL_ADD_DROPPED[] =
    "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO"
    " UPDATE SET value = CAST(value AS INTEGER) + ?2";
static const char SQL_INSERT_EVENT[] =
    "INSERT INTO events (topic, session, data, created_at, id)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";

/* Free the strings of one record. */
void
store_batch_rec_free(struct store_batch_rec *r)
{
	free(r->session);
	free(r->host);
	free(r->reason);
	free(r->rule);
	free(r->topic);
	free(r->data);
}

/* Does a queued refusal stand for the same row as r? */
static int
store_batch_same(const struct store_batch_rec *q, const struct store_batch_rec *r)
{
	return q->kind == STORE_BATCH_REFUSAL && q->command_id == r->command_id &&
	    q->port == r->port && strcmp(q->session, r->session) == 0 &&
	    strcmp(q->host, r->host) == 0 && (q->rule == r->rule ||
	    (q->rule != NULL && r->rule != NULL && strcmp(q->rule, r->rule) == 0));
}

/* In a full queue, count a refusal in a queued one of the same row (the
 * row keeps a count anyway): 1 when merged. */
int
store_batch_merge(struct store *st, struct store_batch_rec *rec)
{
	struct store_batch_rec *q;
	size_t i;

	if (rec->kind != STORE_BATCH_REFUSAL)
		return 0;
	for (i = st->batch_len; i-- > 0; ) {
		q = &st->batch[(st->batch_head + i) % STORE_BATCH_MAX];
		if (!store_batch_same(q, rec))
			continue;
		q->count += rec->count > 0 ? rec->count : 1;
		if (rec->at > q->at)
			q->at = rec->at;
		store_batch_rec_free(rec);
		st->merged++;
		return 1;
	}
	return 0;
}

/* Insert one queued record. */
static int
store_batch_insert(struct store *st, struct store_batch_rec *r,
    sbox_error *err)
{
	sqlite3_stmt *stmt;

	if (r->kind == STORE_BATCH_REFUSAL)
		return store_refusal_row_write(st, r, err);
	if ((stmt = store_stmt_get(st, SQL_INSERT_EVENT, err)) == NULL)
		return -1;
	store_stmt_bind_text(stmt, 1, r->topic);
	store_stmt_bind_text(stmt, 2, r->session);
	store_stmt_bind_text(stmt, 3, r->data);
	store_stmt_bind_int(stmt, 4, r->at);
	store_stmt_bind_opt_int(stmt, 5, r->command_id, 0);
	return store_stmt_exec(st, stmt, "recording an event", err);
}

/* Insert one record (a spilled one) inside the caller's transaction. */
int
store_batch_insert_one(struct store *st, struct store_batch_rec *r,
    sbox_error *err)
{
	return store_batch_insert(st, r, err);
}

/* Insert every queued record inside the caller's transaction; the queue is
 * kept (store_batch_clear after the commit). Returns how many, or -1. */
int
store_batch_write(struct store *st, sbox_error *err)
{
	size_t i;

	for (i = 0; i < st->batch_len; i++) {
		if (store_batch_insert(st,
		    &st->batch[(st->batch_head + i) % STORE_BATCH_MAX],
		    err) == -1)
			return -1;
	}
	return (int)st->batch_len;
}

/* Empty the queue (after its records were committed, or at close). */
void
store_batch_clear(struct store *st)
{
	size_t i;

	for (i = 0; i < st->batch_len; i++)
		store_batch_rec_free(
		    &st->batch[(st->batch_head + i) % STORE_BATCH_MAX]);
	st->batch_head = 0;
	st->batch_len = 0;
}

/* Add what was dropped since the last time to the stored totals (meta
 * dropped_refusals, dropped_events), inside the caller's transaction. */
int
store_batch_save_dropped(struct store *st, sbox_error *err)
{
	static const char *const keys[2] = { "dropped_refusals",
	    "dropped_events" };
	unsigned long long now[2] = { st->dropped_refusals, st->dropped_events };
	sqlite3_stmt *stmt;
	int i;

	for (i = 0; i < 2; i++) {
		if (now[i] == st->dropped_saved[i])
			continue;
		if ((stmt = store_stmt_get(st, SQL_ADD_DROPPED, err)) == NULL)
			return -1;
		store_stmt_bind_text(stmt, 1, keys[i]);
		store_stmt_bind_int(stmt, 2,
		    (long long)(now[i] - st->dropped_saved[i]));
		if (store_stmt_exec(st, stmt, "counting dropped records",
		    err) == -1)
			return -1;
	}
	return 0;
}

