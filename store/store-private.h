/* store-private.h: what the store/ files share and nobody else sees. */
#ifndef SBOX_STORE_PRIVATE_H
#define SBOX_STORE_PRIVATE_H

#include <sqlite3.h>
#include <jansson.h>
#include "protocol/error.h"
#include "store/store.h"

#define STORE_STMT_MAX 64
#define STORE_DELAY_MAX 4096

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
	long long count;       /* refusal: how many it stands for (merged) */
};

/* Writes kept in memory when the database could not take them (full disk,
 * locked, gone): retried in order by store_flush. */
enum store_delay_kind {
	STORE_DELAY_COMMAND_FINISH,
	STORE_DELAY_SESSION_STATE,
	STORE_DELAY_APPROVAL_FINISH,
};

struct store_delayed {
	enum store_delay_kind kind;
	long long id;          /* command or approval id */
	char     *session;     /* session state: its id */
	int       exit_code;
	int       sig;
	long long duration_ms;
	long long command_id;  /* approval finish */
	char     *state;       /* command or session state */
	char     *reason;      /* session state */
	json_t   *blocked;     /* command finish */
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
	unsigned long long     dropped_refusals; /* refusal records lost */
	unsigned long long     dropped_events;
	unsigned long long     merged;      /* refusals merged in the full queue */
	unsigned long long     dropped_saved[2]; /* of the two above, stored */
	/* delay.c: writes waiting for the database */
	struct store_delayed   delayed[STORE_DELAY_MAX];
	size_t                 ndelayed;
	unsigned long long     delayed_total;
	unsigned long long     delayed_dropped;
	unsigned long long     reopened;
	long long              retry_at;    /* no retry before (unix ms) */
	int                    hold;        /* re-created: the delayed writes
	                                       wait for store_retry_now */
	int                    last_rc;     /* SQLite code of the last failure */
	int                    fault;       /* the last write failed for a fault */
	char                   last_error[1024];
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

/* clock.c (bottom) and fault.c: the clock, the fault bookkeeping. */
int store_fault_is(const struct store *st);
void store_fault_note(struct store *st, const sbox_error *err);
void store_fault_ok(struct store *st);

/* refusal-row.c: write one queued refusal into its counted row. */
int store_refusal_row_write(struct store *st, const struct store_batch_rec *r,
    sbox_error *err);

/* batch.c: the queue behind refusals and events. */
void store_batch_rec_free(struct store_batch_rec *r);
int store_batch_merge(struct store *st, struct store_batch_rec *rec);
int store_batch_write(struct store *st, sbox_error *err);
int store_batch_save_dropped(struct store *st, sbox_error *err);
void store_batch_clear(struct store *st);

/* queue.c: queue one record, flushing a full queue first. */
int store_queue_push(struct store *st, struct store_batch_rec *rec,
    sbox_error *err);

/* delay.c: keep failed writes for later. */
int store_delay_push(struct store *st, const struct store_delayed *d);
int store_delay_retry(struct store *st, sbox_error *err);
void store_delay_clear(struct store *st);
/* The writes behind the delayed ones (commands.c, sessions.c, approvals.c). */
int store_command_finish_now(struct store *st, long long id, int exit_code,
    int sig, long long duration_ms, const char *state, json_t *blocked,
    sbox_error *err);
int store_session_set_state_now(struct store *st, const char *id,
    const char *state, const char *reason, sbox_error *err);
int store_approval_finish_now(struct store *st, long long id, int exit_code,
    long long duration_ms, long long command_id, sbox_error *err);

/* Names in a NULL-terminated list? (state and decision checks) */
int store_stmt_in(const char *s, const char *const *list);

#endif
