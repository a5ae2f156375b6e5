/* test-store-fixture.h: what the store's Check suites share: a temporary
 * folder per test, raw reads of what is committed, small builders. */
#ifndef TEST_STORE_FIXTURE_H
#define TEST_STORE_FIXTURE_H

#include <check.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/store.h"

static char tmpdir[256];
static char dbpath[512];

/* Remove one entry of the temporary tree. */
static inline int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

/* A fresh temporary folder per test; the database goes in a missing subfolder. */
static inline void
setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/test-store-XXXXXX",
	    getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(dbpath, sizeof dbpath, "%s/state/sbox/sbox.db", tmpdir);
}

/* Remove the temporary folder. */
static inline void
teardown(void)
{
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Open the test database or fail the test with the error. */
static inline struct store *
open_db(void)
{
	sbox_error err = {0};
	struct store *st = store_open(dbpath, &err);

	ck_assert_msg(st != NULL, "store_open: %s: %s", err.name, err.message);
	return st;
}

/* One integer from a query on a separate raw connection (what is committed). */
static inline long long
raw_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *stmt;
	long long v = -1;

	ck_assert_int_eq(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL),
	    SQLITE_OK);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		v = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	sqlite3_close(db);
	return v;
}

/* One text value from a raw query (copied into buf). */
static inline const char *
raw_text(const char *sql, char *buf, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *stmt;

	buf[0] = '\0';
	ck_assert_int_eq(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL),
	    SQLITE_OK);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		snprintf(buf, len, "%s", sqlite3_column_text(stmt, 0));
	sqlite3_finalize(stmt);
	sqlite3_close(db);
	return buf;
}

/* Insert a ready session with a given id. */
static inline void
add_session(struct store *st, const char *id)
{
	struct store_session s = {0};
	sbox_error err = {0};

	s.id = id;
	s.project = "/home/u/proj";
	s.profile = "workspace";
	s.state = "ready";
	s.creator_uid = 1000;
	ck_assert_msg(store_session_insert(st, &s, &err) == 0, "%s",
	    err.message);
}

/* Start a command in a session; returns its id. */
static inline long long
add_command(struct store *st, const char *session, const char *arg0,
    int outside, long long approval)
{
	struct store_command c = {0};
	sbox_error err = {0};
	long long id;

	c.session = session;
	c.argv = json_pack("[ss]", arg0, "x");
	c.cwd = "/home/u/proj";
	c.outside = outside;
	c.approval_id = approval;
	id = store_command_start(st, &c, &err);
	json_decref(c.argv);
	ck_assert_msg(id > 0, "command_start: %s", err.message);
	return id;
}

/* Field of an object as string / integer. */
static inline const char *
jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static inline long long
jint(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

#endif
