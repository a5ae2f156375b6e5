/* store-types.h: the types the store/ files share and nobody else sees
 * (struct store, the queued and delayed records); no functions. */
#ifndef SBOX_STORE_TYPES_H
#define SBOX_STORE_TYPES_H

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
	/* spill.c: what the full queue could not hold, in <path>-spill */
	int                    spill_fd;    /* -1: not open */
	unsigned long long     spill_bytes; /* its size */
	unsigned long long     spilled;     /* records in it now */
	unsigned long long     spilled_total; /* records ever spilled */
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

#endif
