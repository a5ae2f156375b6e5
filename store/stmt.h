/* stmt.h: statements, binding, transactions, rows as JSON
 * (stmt.c; for store/ only). */
#ifndef SBOX_STORE_STMT_H
#define SBOX_STORE_STMT_H

#include "store/store-types.h"

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
int store_stmt_in(const char *s, const char *const *list);

#endif
