/* stmt.c: the store's prepared-statement cache, parameter binding,
 * transactions, and turning result rows into JSON. */
#include "store/stmt.h"
#include "store/fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char SQL_BEGIN[] = "BEGIN IMMEDIATE";
static const char SQL_COMMIT[] = "COMMIT";
static const char SQL_ROLLBACK[] = "ROLLBACK";
static const char SQL_SYNC_FULL[] = "PRAGMA synchronous = FULL";
static const char SQL_SYNC_NORMAL[] = "PRAGMA synchronous = NORMAL";

/* Fill err with an E_STORE error naming what failed, SQLite's message and the path. */
int
store_stmt_error(struct store *st, sbox_error *err, const char *what)
{
	st->last_rc = sqlite3_extended_errcode(st->db);
	if (store_fault_is(st)) {	/* reported as the store's health */
		snprintf(st->last_error, sizeof st->last_error, "%s: %s", what,
		    sqlite3_errmsg(st->db));
		store_fault_note(st, NULL);
	}
	/* locked by another process: a caller may try again later */
	return error_set(err, (st->last_rc & 0xff) == SQLITE_BUSY ||
	    (st->last_rc & 0xff) == SQLITE_LOCKED ? E_STORE_BUSY : E_STORE,
	    "%s: %s (database %s)", what, sqlite3_errmsg(st->db), st->path);
}

/* The cached statement for a static SQL text (prepared on first use), reset. */
sqlite3_stmt *
store_stmt_get(struct store *st, const char *sql, sbox_error *err)
{
	sqlite3_stmt *stmt;
	int i;

	for (i = 0; i < st->nstmts; i++) {
		if (st->stmts[i].sql == sql) {
			sqlite3_reset(st->stmts[i].stmt);
			sqlite3_clear_bindings(st->stmts[i].stmt);
			return st->stmts[i].stmt;
		}
	}
	if (st->nstmts == STORE_STMT_MAX) {
		error_set(err, E_INTERNAL, "store: statement cache full");
		return NULL;
	}
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
	    &stmt, NULL) != SQLITE_OK) {
		store_stmt_error(st, err, "preparing a query");
		return NULL;
	}
	st->stmts[st->nstmts].sql = sql;
	st->stmts[st->nstmts].stmt = stmt;
	st->nstmts++;
	return stmt;
}

/* Give a statement back: reset it and drop its bindings (ends its read). */
void
store_stmt_done(sqlite3_stmt *stmt)
{
	if (stmt != NULL) {
		sqlite3_reset(stmt);
		sqlite3_clear_bindings(stmt);
	}
}

/* Finalize every cached statement (before closing the database). */
void
store_stmt_finalize_all(struct store *st)
{
	int i;

	for (i = 0; i < st->nstmts; i++)
		sqlite3_finalize(st->stmts[i].stmt);
	st->nstmts = 0;
}

/* Bind a string, or NULL as SQL NULL. */
int
store_stmt_bind_text(sqlite3_stmt *stmt, int idx, const char *s)
{
	if (s == NULL)
		return sqlite3_bind_null(stmt, idx);
	return sqlite3_bind_text(stmt, idx, s, -1, SQLITE_TRANSIENT);
}

/* Bind a JSON value as compact JSON text, or NULL as SQL NULL. */
int
store_stmt_bind_json(sqlite3_stmt *stmt, int idx, json_t *v)
{
	char *s;

	if (v == NULL)
		return sqlite3_bind_null(stmt, idx);
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (s == NULL)
		return SQLITE_NOMEM;
	return sqlite3_bind_text(stmt, idx, s, -1, free);
}

/* Bind an integer. */
int
store_stmt_bind_int(sqlite3_stmt *stmt, int idx, long long v)
{
	return sqlite3_bind_int64(stmt, idx, v);
}

/* Bind an integer, or SQL NULL when it equals none. */
int
store_stmt_bind_opt_int(sqlite3_stmt *stmt, int idx, long long v, long long none)
{
	if (v == none)
		return sqlite3_bind_null(stmt, idx);
	return sqlite3_bind_int64(stmt, idx, v);
}

/* Run a statement that returns no rows, then reset it; -1 with err on failure. */
int
store_stmt_exec(struct store *st, sqlite3_stmt *stmt, const char *what,
    sbox_error *err)
{
	int rc;

	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE) {
		store_stmt_error(st, err, what);
		store_stmt_done(stmt);
		return -1;
	}
	store_stmt_done(stmt);
	return 0;
}

/* Run one cached statement that takes no parameters. */
static int
store_stmt_simple(struct store *st, const char *sql, const char *what,
    sbox_error *err)
{
	sqlite3_stmt *stmt;

	if ((stmt = store_stmt_get(st, sql, err)) == NULL)
		return -1;
	return store_stmt_exec(st, stmt, what, err);
}

/* Begin a write transaction; durable runs it with synchronous=FULL. */
int
store_stmt_tx_begin(struct store *st, int durable, sbox_error *err)
{
	if (st->in_tx)
		return error_set(err, E_INTERNAL, "store: nested transaction");
	if (durable && store_stmt_simple(st, SQL_SYNC_FULL,
	    "setting synchronous", err) == -1)
		return -1;
	st->durable = durable;
	if (store_stmt_simple(st, SQL_BEGIN, "beginning a transaction",
	    err) == -1) {
		if (durable)
			store_stmt_simple(st, SQL_SYNC_NORMAL, "", NULL);
		st->durable = 0;
		return -1;
	}
	st->in_tx = 1;
	return 0;
}

/* Put synchronous back to NORMAL after a durable transaction. */
static void
store_stmt_tx_end(struct store *st)
{
	st->in_tx = 0;
	if (st->durable)
		store_stmt_simple(st, SQL_SYNC_NORMAL, "setting synchronous", NULL);
	st->durable = 0;
}

/* Commit the current transaction (rolled back if the commit fails). */
int
store_stmt_tx_commit(struct store *st, sbox_error *err)
{
	if (store_stmt_simple(st, SQL_COMMIT, "committing", err) == -1) {
		store_stmt_tx_rollback(st);
		return -1;
	}
	store_stmt_tx_end(st);
	return 0;
}

/* Roll the current transaction back (if one is open). */
void
store_stmt_tx_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		store_stmt_simple(st, SQL_ROLLBACK, "rolling back", NULL);
	store_stmt_tx_end(st);
}

/* Format unix milliseconds as ISO-8601 UTC with milliseconds. */
int
store_stmt_iso(long long ms, char *buf, size_t len)
{
	struct tm tm;
	time_t secs;
	long long msec;
	size_t n;

	secs = (time_t)(ms / 1000);
	msec = ms % 1000;
	if (msec < 0) {
		msec += 1000;
		secs--;
	}
	if (gmtime_r(&secs, &tm) == NULL)
		return -1;
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	if (n == 0 || n + 6 > len)
		return -1;
	snprintf(buf + n, len - n, ".%03lldZ", msec);
	return 0;
}

/* True when name ends with suffix. */
static int
store_stmt_ends(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n >= s && strcmp(name + n - s, suffix) == 0;
}

/* The JSON value of one column, by its declared type and name. */
static json_t *
store_stmt_value(sqlite3_stmt *stmt, int i, const char *name)
{
	const char *decl = sqlite3_column_decltype(stmt, i);
	const unsigned char *text;
	json_t *v;

	switch (sqlite3_column_type(stmt, i)) {
	case SQLITE_NULL:
		return json_null();
	case SQLITE_INTEGER:
		if (decl != NULL && strcmp(decl, "BOOLEAN") == 0)
			return json_boolean(sqlite3_column_int64(stmt, i) != 0);
		return json_integer(sqlite3_column_int64(stmt, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(stmt, i));
	default:
		text = sqlite3_column_text(stmt, i);
		if (text == NULL)
			return json_null();
		if ((decl != NULL && strcmp(decl, "JSON_TEXT") == 0) ||
		    store_stmt_ends(name, "_json")) {
			v = json_loads((const char *)text,
			    JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
			if (v != NULL)
				return v;
		}
		return json_stringn((const char *)text,
		    (size_t)sqlite3_column_bytes(stmt, i));
	}
}

/* The current row as a JSON object (see store.h for the mapping). */
json_t *
store_stmt_row(sqlite3_stmt *stmt)
{
	json_t *obj;
	const char *name;
	char key[128], iso[40];
	size_t n;
	int i, ncol;

	if ((obj = json_object()) == NULL)
		return NULL;
	ncol = sqlite3_column_count(stmt);
	for (i = 0; i < ncol; i++) {
		name = sqlite3_column_name(stmt, i);
		if (name == NULL)
			continue;
		if (store_stmt_ends(name, "_at") &&
		    sqlite3_column_type(stmt, i) == SQLITE_INTEGER) {
			long long ms = sqlite3_column_int64(stmt, i);

			snprintf(key, sizeof key, "%s_ms", name);
			json_object_set_new(obj, key, json_integer(ms));
			if (store_stmt_iso(ms, iso, sizeof iso) == 0)
				json_object_set_new(obj, name, json_string(iso));
			else
				json_object_set_new(obj, name, json_null());
			continue;
		}
		if (store_stmt_ends(name, "_at") &&
		    sqlite3_column_type(stmt, i) == SQLITE_NULL) {
			/* no time yet: both names, null (one shape per row) */
			snprintf(key, sizeof key, "%s_ms", name);
			json_object_set_new(obj, key, json_null());
			json_object_set_new(obj, name, json_null());
			continue;
		}
		if (store_stmt_ends(name, "_json")) {
			n = strlen(name) - 5;
			snprintf(key, sizeof key, "%.*s", (int)n, name);
			json_object_set_new(obj, key,
			    store_stmt_value(stmt, i, name));
			continue;
		}
		json_object_set_new(obj, name, store_stmt_value(stmt, i, name));
	}
	return obj;
}

/* Every row of a statement as a JSON array; the statement is reset after. */
json_t *
store_stmt_rows(struct store *st, sqlite3_stmt *stmt, const char *what,
    sbox_error *err)
{
	json_t *arr;
	int rc;

	if ((arr = json_array()) == NULL) {
		store_stmt_done(stmt);
		error_set(err, E_INTERNAL, "%s: out of memory", what);
		return NULL;
	}
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		json_array_append_new(arr, store_stmt_row(stmt));
	if (rc != SQLITE_DONE) {
		store_stmt_error(st, err, what);
		store_stmt_done(stmt);
		json_decref(arr);
		return NULL;
	}
	store_stmt_done(stmt);
	return arr;
}

/* The first row of a statement: 1 and *out set, 0 when there is none, -1. */
int
store_stmt_one(struct store *st, sqlite3_stmt *stmt, const char *what,
    json_t **out, sbox_error *err)
{
	int rc;

	*out = NULL;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*out = store_stmt_row(stmt);
		store_stmt_done(stmt);
		return 1;
	}
	if (rc != SQLITE_DONE) {
		store_stmt_error(st, err, what);
		store_stmt_done(stmt);
		return -1;
	}
	store_stmt_done(stmt);
	return 0;
}

/* True when s is one of a NULL-terminated list of names. */
int
store_stmt_in(const char *s, const char *const *list)
{
	if (s == NULL)
		return 0;
	for (; *list != NULL; list++) {
		if (strcmp(s, *list) == 0)
			return 1;
	}
	return 0;
}
