/* batch.c: the bounded queue behind the batched tables (refusals, events),
 * written in one transaction by store_flush. */
#include "store/store-private.h"

#include <stdlib.h>

static const char SQL_INSERT_EVENT[] =
    "INSERT INTO events (topic, session, data, created_at, id)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";

/* Free the strings of one record. */
static void
store_batch_rec_free(struct store_batch_rec *r)
{
	free(r->session);
	free(r->host);
	free(r->reason);
	free(r->rule);
	free(r->topic);
	free(r->data);
}

/* Queue a record (takes its strings). When the queue is full, flush first;
 * if that fails, drop the oldest record and return -1 (rec is still queued). */
int
store_batch_push(struct store *st, struct store_batch_rec *rec,
    sbox_error *err)
{
	int ret = 0;

	if (st->batch_len == STORE_BATCH_MAX &&
	    store_flush(st, err) == -1) {
		store_batch_rec_free(&st->batch[st->batch_head]);
		st->batch_head = (st->batch_head + 1) % STORE_BATCH_MAX;
		st->batch_len--;
		st->dropped++;
		ret = error_context(err, "queue full, oldest record dropped");
	}
	st->batch[(st->batch_head + st->batch_len) % STORE_BATCH_MAX] = *rec;
	st->batch_len++;
	return ret;
}

/* Insert one queued record. */
static int
store_batch_insert(struct store *st, struct store_batch_rec *r,
    sbox_error *err)
{
	sqlite3_stmt *stmt;

	if (r->kind == STORE_BATCH_REFUSAL)
		return store_refusal_write(st, r, err);
	if ((stmt = store_stmt_get(st, SQL_INSERT_EVENT, err)) == NULL)
		return -1;
	store_stmt_bind_text(stmt, 1, r->topic);
	store_stmt_bind_text(stmt, 2, r->session);
	store_stmt_bind_text(stmt, 3, r->data);
	store_stmt_bind_int(stmt, 4, r->at);
	store_stmt_bind_opt_int(stmt, 5, r->command_id, 0);
	return store_stmt_exec(st, stmt, "recording an event", err);
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

/* Write every queued record in one transaction; how many, or -1 (kept). */
int
store_flush(struct store *st, sbox_error *err)
{
	int n;

	if (st->batch_len == 0)
		return 0;
	if (store_stmt_tx_begin(st, 0, err) == -1)
		return error_context(err, "flushing records");
	if ((n = store_batch_write(st, err)) == -1) {
		store_stmt_tx_rollback(st);
		return error_context(err, "flushing records");
	}
	if (store_stmt_tx_commit(st, err) == -1)
		return error_context(err, "flushing records");
	store_batch_clear(st);
	st->flushes++;
	return n;
}
