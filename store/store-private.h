/* store-private.h: what the store/ files share and nobody else sees. */
#ifndef SBOX_STORE_PRIVATE_H
#define SBOX_STORE_PRIVATE_H

#include <sqlite3.h>
#include <jansson.h>
#include "protocol/error.h"
#include "store/store.h"

#define STORE_STMT_MAX 64

/* One prepared statement, keyed by the address of its static SQL text. */
struct store_stmt_slot {
	const char   *sql;
	sqlite3_stmt *stmt;
};

enum store_batch_kind { STORE_BATCH_REFUSAL, STORE_BATCH_EVENT };

/* One queued record of a batched table. */
struct store_batch_rec {
	enum store_batch_kind kind;
	long long at;          /* unix ms when it happened */
	char     *session;     /* refusal: required; event: may be NULL */
	long long command_id;  /* refusal: 0 = none; event: its id (0: next) */
	char     *host;        /* refusal */
	int       port;        /* refusal */
	char     *reason;      /* refusal */
	char     *rule;        /* refusal, may be NULL */
	char     *topic;       /* event */
	char     *data;        /* event: JSON text, may be NULL */
};

struct store {
	sqlite3               *db;
	char                  *path;
	struct store_stmt_slot stmts[STORE_STMT_MAX];
	int                    nstmts;
	int                    in_tx;       /* inside store_tx_begin..end */
	int                    durable;     /* current tx runs with synchronous=FULL */
	/* the batch queue: a ring of STORE_BATCH_MAX records */
	struct store_batch_rec batch[STORE_BATCH_MAX];
	size_t                 batch_head;  /* index of the oldest */
	size_t                 batch_len;
	unsigned long long     commits;
	unsigned long long     flushes;
	unsigned long long     dropped;
};

/* stmt.c: statements, binding, transactions, rows as JSON. */
sqlite3_stmt *store_stmt_get(struct store *st, const char *sql, sbox_error *err);
void store_stmt_done(sqlite3_stmt *stmt);
int store_stmt_bind_text(sqlite3_stmt *stmt, int idx, const char *s);
int store_stmt_bind_json(sqlite3_stmt *stmt, int idx, json_t *v);
int store_stmt_bind_int(sqlite3_stmt *stmt, int idx, long long v);
int store_stmt_bind_opt_int(sqlite3_stmt *stmt, int idx, long long v, long long none);
int store_stmt_error(struct store *st, sbox_error *err, const char *what);
int store_stmt_exec(struct store *st, sqlite3_stmt *stmt, const char *what,
    sbox_error *err);
int store_stmt_tx_begin(struct store *st, int durable, sbox_error *err);
int store_stmt_tx_commit(struct store *st, sbox_error *err);
void store_stmt_tx_rollback(struct store *st);
json_t *store_stmt_row(sqlite3_stmt *stmt);
json_t *store_stmt_rows(struct store *st, sqlite3_stmt *stmt, const char *what,
    sbox_error *err);
int store_stmt_one(struct store *st, sqlite3_stmt *stmt, const char *what,
    json_t **out, sbox_error *err);
int store_stmt_iso(long long ms, char *buf, size_t len);
void store_stmt_finalize_all(struct store *st);

/* migrate.c: the schema steps. */
int store_migrate(struct store *st, int target, sbox_error *err);
int store_migrate_version(struct store *st, sbox_error *err);

/* batch.c: the queue behind refusals and events. */
int store_batch_push(struct store *st, struct store_batch_rec *rec,
    sbox_error *err);
int store_batch_write(struct store *st, sbox_error *err);
/* refusals.c: write one queued refusal into its counted row. */
int store_refusal_write(struct store *st, const struct store_batch_rec *r,
    sbox_error *err);
void store_batch_clear(struct store *st);

/* Names in a NULL-terminated list? (state and decision checks) */
int store_stmt_in(const char *s, const char *const *list);

#endif
