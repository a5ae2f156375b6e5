/* store.h: sboxd's SQLite store (sessions, the command timeline, host
 * refusals, run-outside approvals, events). Pure: sqlite3 and jansson only.
 *
 * Durability. The database is in WAL mode with synchronous=NORMAL: every
 * committed transaction survives a crash or SIGKILL of sboxd (it is in the
 * WAL file); an OS crash or power loss may roll back the last transactions
 * since a checkpoint, never corrupt the file. Approval records (run-outside
 * requests, decisions, results) are written with synchronous=FULL, so they
 * survive a power loss too. Every function below that writes a record
 * commits it before it returns, except the two BATCHED ones.
 *
 * Faults. A write that fails because of the database's condition (full
 * disk, locked by another process for longer than the short busy timeout,
 * I/O error) is not lost: store_command_finish, store_session_set_state and
 * store_approval_finish keep it in memory (STORE_DELAY_MAX, the oldest
 * dropped and counted beyond) and return 1; store_flush writes the kept
 * ones first, in order, at most once a second while the database fails.
 * The busy timeout is short (STORE_BUSY_TIMEOUT_MS) so a locked database
 * costs sboxd's event loop that much per try, not seconds; the reads of
 * refusals and of a session's log after a failed flush read what is stored
 * (event reads fail instead: a replay must not skip queued events).
 *
 * Batching. store_refusal_add() and store_event_add() append to one bounded
 * in-memory queue (STORE_BATCH_MAX records, order kept) that store_flush()
 * writes in a single transaction; the daemon calls store_flush() from a timer
 * (~200 ms) and store_close() flushes. When the queue is full, the add
 * flushes synchronously first; only if that flush fails is the oldest queued
 * record dropped (counted in store_stats().dropped); a refusal is first
 * counted in a queued one of the same row instead. Every read of refusals
 * or events, and store_command_finish(), flushes first, so what a client is
 * told is committed.
 *
 * JSON. Queries return new jansson references (the caller owns them). Times
 * are stored as unix milliseconds; in JSON each time column NAME_at appears
 * twice: "NAME_at" as an ISO-8601 UTC string ("2026-01-02T03:04:05.678Z")
 * and "NAME_at_ms" as the integer (both null when the time is NULL). NULL
 * columns appear as JSON null.
 * Booleans (detach, outside) are JSON true/false; JSON columns (argv,
 * env_names, blocked, resolved_profile, provenance, data) are JSON values.
 *
 * Errors: E_STORE (with the database path) for SQLite failures, E_STORE_VERSION
 * for a database newer than this program, E_SESSION_NOT_FOUND,
 * E_COMMAND_NOT_FOUND, E_APPROVAL_NOT_FOUND for unknown ids, E_SESSION_CLOSED
 * for a state change of a finished session, E_INVALID_PARAMS for bad values
 * (unknown state or decision, a command or approval already finished or
 * decided).
 */
#ifndef SBOX_STORE_H
#define SBOX_STORE_H

#include <jansson.h>
#include <stddef.h>
#include "protocol/error.h"

/* The schema version this program writes (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 4
/* Records (refusals + events) held in memory before a forced flush. */
#define STORE_BATCH_MAX 1024

struct store;

/* Counters for daemon.status and tests. */
struct store_stats {
	unsigned long long commits;  /* transactions committed by this handle */
	unsigned long long flushes;  /* batches written by store_flush */
	unsigned long long dropped;  /* records lost (all kinds) */
	size_t             pending;  /* batched records not yet written */
	unsigned long long dropped_refusals; /* refusals lost (queue full while
	                              * the database failed); also added to
	                              * meta dropped_refusals when it works */
	unsigned long long dropped_events;
	unsigned long long dropped_delayed; /* delayed writes lost (bound, or
	                              * refused when retried) */
	unsigned long long merged;   /* refusals counted in a queued one */
	unsigned long long spilled;  /* records in the spill file now (the
	                              * queue was full; written back later) */
	unsigned long long spilled_total; /* records ever spilled */
	unsigned long long spill_bytes;   /* the spill file's size */
	size_t             delayed;  /* writes waiting for the database */
	unsigned long long delayed_total; /* writes ever delayed */
	unsigned long long reopened; /* times the file was re-created */
	int                healthy;  /* 0: the last write failed (fault) */
	const char        *last_error; /* "" when none */
};

/* ---- db.c: open, close and store_flush ---- */

/* Open or create the database at path (parent folders created 0700, the file
 * 0600), switch to WAL, check it (quick_check) and migrate it to
 * STORE_SCHEMA_VERSION. A file that is not a database, corrupt or unreadable
 * is reported (E_STORE, naming path) and left untouched; a newer schema is
 * refused with E_STORE_VERSION naming path and both versions. */
struct store *store_open(const char *path, sbox_error *err);
/* Same as store_open but migrate only up to version (tests of migrations). */
struct store *store_open_version(const char *path, int version, sbox_error *err);
/* Flush batched records, checkpoint the WAL and close. NULL is a no-op. */
void store_close(struct store *st);
/* Write every queued batched record in one transaction; returns how many
 * were written (0 when none), or -1 (the records stay queued). */
int store_flush(struct store *st, sbox_error *err);
/* The path the store was opened with. */
const char *store_path(const struct store *st);
/* The database's schema version (PRAGMA user_version), or -1. */
int store_schema_version(struct store *st);
/* Fill *out with the store's counters. */
void store_stats(const struct store *st, struct store_stats *out);
/* Open the file at the store's path again (a new database when it is gone;
 * a file there that is not a usable database is renamed to PATH.bad-MS
 * first). The queued and delayed records are kept and written to the new
 * file once the caller has written the live state again and called
 * store_retry_now. -1 with err (the store
 * then fails every call until a reopen works). */
int store_reopen(struct store *st, sbox_error *err);
/* Let the next write or flush try the database at once (no back-off).
 * After store_reopen the kept writes wait for this call, so that the
 * caller first writes the live state (the rows they update) again. */
void store_retry_now(struct store *st);

/* ---- fault.c ---- */

/* Was the database file deleted, renamed or replaced under us
 * (SQLITE_FCNTL_HAS_MOVED)? 1, 0. */
int store_fault_moved(struct store *st);

/* ---- clock.c ---- */

/* Wall-clock time in unix milliseconds. */
long long store_clock_now_ms(void);

/* ---- sessions.c ---- */

/* A session row to insert. Strings may be NULL unless said otherwise; JSON
 * values are borrowed (serialized on insert). */
struct store_session {
	const char *id;          /* required: e.g. 16 hex chars from the daemon */
	const char *title;
	const char *project;     /* required: the project folder */
	const char *profile;     /* required: the profile name */
	json_t     *resolved_profile; /* the resolved profile; NULL = {} */
	json_t     *provenance;  /* where each setting came from; NULL ok */
	const char *provider;
	const char *model;
	const char *space;
	const char *parent;      /* parent session id (must exist) or NULL */
	const char *state;       /* NULL = "starting" */
	long long   created_at;  /* unix ms; 0 = now */
	long long   creator_uid; /* uid of the client that made it; -1 = unknown */
};

/* Session states: starting, ready (live); closed, failed, ended_by_crash (final). */

/* Insert a session (committed on return). */
int store_session_insert(struct store *st, const struct store_session *s,
    sbox_error *err);
/* Change a live session's state; a final state sets closed_at = now and
 * close_reason (reason may be NULL). A session already in a final state
 * cannot change: E_SESSION_CLOSED. */
int store_session_set_state(struct store *st, const char *id,
    const char *state, const char *reason, sbox_error *err);
/* One session with everything (resolved_profile, provenance, a "commands"
 * count), or NULL with E_SESSION_NOT_FOUND. */
json_t *store_session_get(struct store *st, const char *id, sbox_error *err);
/* Sessions oldest first, without resolved_profile/provenance; live ones only
 * unless include_closed. */
json_t *store_session_list(struct store *st, int include_closed,
    sbox_error *err);
/* At daemon start: every live session becomes ended_by_crash (closed_at now,
 * close_reason "daemon stopped unexpectedly"). Returns a JSON array of their
 * ids (empty when none) so the daemon can clean up leftovers. */
json_t *store_session_mark_crashed(struct store *st, sbox_error *err);

/* ---- commands.c ---- */

/* A command to record when it starts. */
struct store_command {
	const char *session;     /* required, must exist */
	json_t     *argv;        /* required: array of strings (borrowed) */
	const char *cwd;
	json_t     *env_names;   /* array of the names set; NULL ok */
	int         detach;
	int         outside;     /* 1: ran outside the sandbox */
	long long   approval_id; /* the approval of an outside run, or 0; the
	                          * approval's command_id is set to this command */
	long long   started_at;  /* unix ms; 0 = now */
	long long   id;          /* 0 = the next free one; set when a re-created
	                          * database gets the live commands again */
};

/* Command states: running; exited, killed, timeout, failed, not_run,
 * ended_by_crash (final). */

/* Record a started command (state running, next seq of its session);
 * returns its id (> 0) or -1. */
long long store_command_start(struct store *st, const struct store_command *c,
    sbox_error *err);
/* Record how a running command ended, in one transaction with every queued
 * batched record (so its refusals are committed with it). exit_code and sig
 * are -1 when not applicable; state is a final state; blocked (borrowed,
 * NULL ok) is what the sandbox refused ({"files":[...],"hosts":[...]}). */
int store_command_finish(struct store *st, long long id, int exit_code,
    int sig, long long duration_ms, const char *state, json_t *blocked,
    sbox_error *err);
/* One command, or NULL with E_COMMAND_NOT_FOUND. */
json_t *store_command_get(struct store *st, long long id, sbox_error *err);
/* The commands of a session in order (seq); E_SESSION_NOT_FOUND if unknown. */
json_t *store_command_list(struct store *st, const char *session,
    sbox_error *err);
/* At daemon start: every running command becomes ended_by_crash; returns how
 * many, or -1. */
int store_command_mark_crashed(struct store *st, sbox_error *err);

/* ---- refusals.c (batched) ---- */

/* Rows of refusals kept per session; refusals of further (host, port,
 * rule) are counted in one row with host STORE_REFUSAL_MORE, port 0. */
#define STORE_REFUSAL_ROWS_MAX 1000
#define STORE_REFUSAL_MORE "*"

/* Queue a host refusal (session required; command_id 0 when unknown). The
 * table holds one row per (session, command, host, port, rule) with a
 * count, first_at and last_at (and the newest reason). Returns 0; -1 only
 * when the queue was full and the forced flush failed (the record is still
 * queued, the oldest was dropped), or for missing arguments. */
int store_refusal_add(struct store *st, const char *session,
    long long command_id, const char *host, int port, const char *reason,
    const char *rule, sbox_error *err);
/* The hosts refused last (newest first), grouped by host and port:
 * [{host, port, count, reason, rule, first_at, last_at, last_id}] (reason
 * and rule of the newest refusal). session NULL = all sessions (each row then also has
 * the session of its newest refusal); limit <= 0 = no limit. Flushes first. */
json_t *store_refusal_recent(struct store *st, const char *session, int limit,
    sbox_error *err);
/* The refusals during one command, grouped by host and port, in the order
 * first seen: [{host, port, count, reason, rule, first_at, first_id}].
 * Flushes first. */
json_t *store_refusals_for_command(struct store *st, long long command_id,
    sbox_error *err);

/* ---- approvals.c (all writes with synchronous=FULL) ---- */

/* A run-outside request: exactly what would run (and ran). */
struct store_approval {
	const char *session;     /* required, must exist */
	json_t     *argv;        /* required: array of strings (borrowed) */
	const char *cwd;         /* the folder it runs in, as resolved */
	const char *program;     /* the absolute host path executed, or NULL */
	int         program_writable; /* 1: the program lies in a folder the
	                          * sandbox can write */
	int         cwd_writable;/* 1: the sandbox can write the folder */
	json_t     *env;         /* the variables added {NAME: VALUE}, or NULL */
	json_t     *env_dropped; /* the names refused [NAME...], or NULL */
	const char *reason;      /* required */
	const char *decision;    /* NULL = "pending"; or an immediate
	                          * refused_never / refused_headless / deny */
	const char *decided_by;  /* for an immediate decision, e.g. "profile" */
	long long   requested_at;/* unix ms; 0 = now */
};

/* Decisions: pending; allow_once, deny, timeout, refused_never,
 * refused_headless, not_run_crash. A record (store_approval_get, _list):
 * {id, session, argv, cwd, cwd_writable, program, program_writable, env,
 *  env_dropped,
 *  reason, requested_at, decision, decided_by, decided_at, command_id,
 *  exit_code, duration_ms, command_state, signal}; program,
 * program_writable, cwd_writable, env and env_dropped are null for records made before
 * schema version 4. */

/* Record a request (committed on return); returns its id (> 0) or -1. */
long long store_approval_create(struct store *st,
    const struct store_approval *a, sbox_error *err);
/* Decide a pending request (decided_at = now). Unknown id:
 * E_APPROVAL_NOT_FOUND; not pending: E_INVALID_PARAMS (field "id"). */
int store_approval_decide(struct store *st, long long id, const char *decision,
    const char *decided_by, sbox_error *err);
/* Record the result of an allowed run: exit code (-1 = none, e.g. killed by
 * a signal), duration and the command id (0 = keep the one set by
 * store_command_start). */
int store_approval_finish(struct store *st, long long id, int exit_code,
    long long duration_ms, long long command_id, sbox_error *err);
/* One request, or NULL with E_APPROVAL_NOT_FOUND. */
json_t *store_approval_get(struct store *st, long long id, sbox_error *err);
/* Requests oldest first, filtered by session (NULL = all), requested at or
 * after since_ms (0 = all) and decision (NULL = all). */
json_t *store_approval_list(struct store *st, const char *session,
    long long since_ms, const char *decision, sbox_error *err);
/* At daemon start: every pending request becomes not_run_crash; returns how
 * many, or -1. */
int store_approval_mark_crashed(struct store *st, sbox_error *err);

/* ---- events.c (batched) ---- */

/* Queue an event (topic required; session NULL ok; data borrowed, NULL ok).
 * Returns 0, or -1 as store_refusal_add. */
int store_event_add(struct store *st, const char *topic, const char *session,
    json_t *data, sbox_error *err);
/* The same with the event's id (seq > 0; 0: the next free one) and time
 * (at_ms; 0: now). The daemon numbers its events itself, so an event's id
 * is known when it is published (events.event seq). */
int store_event_add_seq(struct store *st, long long seq, long long at_ms,
    const char *topic, const char *session, json_t *data, sbox_error *err);
/* The newest event id ever written (pruned ones count, so ids never go
 * back) and the oldest one still stored (0 when none). Flushes first. */
int store_event_bounds(struct store *st, long long *last, long long *first,
    sbox_error *err);
/* Record that event ids up to last are taken (ids never go back below it:
 * store_event_bounds' last is at least this). */
int store_event_set_last(struct store *st, long long last, sbox_error *err);
/* Events with id > since_id, oldest first, at most limit (<= 0: 100):
 * [{id, topic, session, data, created_at}]. Flushes first. */
json_t *store_event_list(struct store *st, long long since_id, int limit,
    sbox_error *err);
/* Delete events created before before_ms (the newest id is remembered in
 * meta); returns how many, or -1. */
long long store_event_prune(struct store *st, long long before_ms,
    sbox_error *err);

/* ---- session-log.c ---- */

/* The timeline of a session: every command in order, and every run-outside
 * request that did not become a command, merged by time. Each entry:
 * {command_id, seq, approval_id, argv, cwd, detach, outside, state,
 *  exit_code, signal, duration_ms, started_at, ended_at, reason, decision,
 *  decided_by, decided_at, blocked, refused: [{host, port, count, reason,
 *  rule, ...}]}; fields that do not apply are null (a request that never ran
 * has command_id null and state "not_run"). Flushes first. */
json_t *store_session_log(struct store *st, const char *session,
    sbox_error *err);

#endif
