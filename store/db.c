/* db.c: opening (checks, pragmas, migrations) and closing the store. */
#include "store/store-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STORE_BUSY_TIMEOUT_MS 5000

static const char SQL_QUICK_CHECK[] = "PRAGMA quick_check";
static const char SQL_WAL[] = "PRAGMA journal_mode = WAL";
static const char SQL_FOREIGN_KEYS[] = "PRAGMA foreign_keys = ON";
static const char SQL_SYNC_NORMAL[] = "PRAGMA synchronous = NORMAL";

/* Wall-clock time in unix milliseconds. */
long long
store_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Create the missing folders above path, each 0700. */
static int
store_mkparents(const char *path, sbox_error *err)
{
	struct stat sb;
	char *dir, *p;
	int e;

	if ((dir = strdup(path)) == NULL)
		return error_nomem(err);
	if ((p = strrchr(dir, '/')) == NULL || p == dir) {
		free(dir);
		return 0;
	}
	*p = '\0';
	for (p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(dir, 0700) == -1 && (e = errno) != EEXIST &&
		    (stat(dir, &sb) == -1 || !S_ISDIR(sb.st_mode))) {
			error_set_errno(err, E_STORE, e,
			    "cannot create folder %s for the database", dir);
			free(dir);
			return -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	free(dir);
	return 0;
}

/* Before SQLite touches it: the file must be a regular file we can read and
 * write, empty or starting with SQLite's header; a new one is made 0600. */
static int
store_precheck(const char *path, sbox_error *err)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	struct stat sb;
	ssize_t n;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1)
		return error_set_errno(err, E_STORE, errno,
		    "cannot open database %s", path);
	if (fstat(fd, &sb) == -1) {
		error_set_errno(err, E_STORE, errno, "cannot stat database %s",
		    path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return error_set(err, E_STORE,
		    "database %s is not a regular file", path);
	}
	if (sb.st_size > 0) {
		n = pread(fd, head, sizeof head, 0);
		if (n != (ssize_t)sizeof head ||
		    memcmp(head, magic, sizeof magic) != 0) {
			close(fd);
			return error_set(err, E_STORE,
			    "%s is not an SQLite database (or is damaged); it "
			    "was left as is: move it away or use another state "
			    "folder", path);
		}
	}
	if ((sb.st_mode & 077) != 0 && sb.st_uid == geteuid())
		(void)fchmod(fd, 0600);
	close(fd);
	return 0;
}

/* Run a pragma and check its one-row text answer when want is not NULL. */
static int
store_pragma(struct store *st, const char *sql, const char *want,
    const char *what, sbox_error *err)
{
	sqlite3_stmt *stmt;
	const char *got;
	int rc;

	if ((stmt = store_stmt_get(st, sql, err)) == NULL)
		return error_context(err, "opening database %s", st->path);
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_stmt_error(st, err, what);
		store_stmt_done(stmt);
		return -1;
	}
	if (want != NULL) {
		got = rc == SQLITE_ROW ?
		    (const char *)sqlite3_column_text(stmt, 0) : NULL;
		if (got == NULL || strcmp(got, want) != 0) {
			error_set(err, E_STORE, "%s: got \"%s\" (database %s)",
			    what, got != NULL ? got : "", st->path);
			store_stmt_done(stmt);
			return -1;
		}
	}
	store_stmt_done(stmt);
	return 0;
}

/* PRAGMA quick_check: the database's structure is sound. */
static int
store_quick_check(struct store *st, sbox_error *err)
{
	sqlite3_stmt *stmt;
	const char *msg;
	char line[160], *p;
	int rc;

	if ((stmt = store_stmt_get(st, SQL_QUICK_CHECK, err)) == NULL)
		return -1;
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		error_set(err, E_STORE, "database %s cannot be checked: %s; it "
		    "was left as is", st->path, sqlite3_errmsg(st->db));
		store_stmt_done(stmt);
		return -1;
	}
	msg = (const char *)sqlite3_column_text(stmt, 0);
	if (msg == NULL || strcmp(msg, "ok") != 0) {
		/* the report is several lines: keep the start, on one line */
		snprintf(line, sizeof line, "%s", msg != NULL ? msg : "?");
		for (p = line; *p != '\0'; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		error_set(err, E_STORE, "database %s is damaged (quick_check: "
		    "%s); it was left as is: move it away or use another state "
		    "folder", st->path, line);
		store_stmt_done(stmt);
		return -1;
	}
	store_stmt_done(stmt);
	return 0;
}

/* Count commits (for store_stats). */
static int
store_commit_hook(void *arg)
{
	((struct store *)arg)->commits++;
	return 0;
}

/* Open, check, configure and migrate up to version. */
struct store *
store_open_version(const char *path, int version, sbox_error *err)
{
	struct store *st;
	int rc, v;

	if (path == NULL || *path == '\0') {
		error_set(err, E_STORE, "no database path");
		return NULL;
	}
	if (store_mkparents(path, err) == -1 || store_precheck(path, err) == -1)
		return NULL;
	if ((st = calloc(1, sizeof *st)) == NULL ||
	    (st->path = strdup(path)) == NULL) {
		free(st);
		error_nomem(err);
		return NULL;
	}
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
	    NULL);
	if (rc != SQLITE_OK) {
		error_set(err, E_STORE, "cannot open database %s: %s", path,
		    st->db != NULL ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	if (sqlite3_db_readonly(st->db, "main") == 1) {
		error_set(err, E_STORE, "database %s is read-only", path);
		goto fail;
	}
	/* read only until the version is known to be ours */
	if ((v = store_migrate_version(st, err)) == -1) {
		error_set(err, E_STORE, "cannot read database %s: %s; it was "
		    "left as is", path, sqlite3_errmsg(st->db));
		goto fail;
	}
	if (v > STORE_SCHEMA_VERSION) {
		error_set(err, E_STORE_VERSION,
		    "database %s has schema version %d, newer than this sbox "
		    "knows (%d); use a newer sbox or another state folder",
		    path, v, STORE_SCHEMA_VERSION);
		goto fail;
	}
	if (store_quick_check(st, err) == -1 ||
	    store_pragma(st, SQL_WAL, "wal", "switching to WAL mode",
	    err) == -1 ||
	    store_pragma(st, SQL_FOREIGN_KEYS, NULL, "enabling foreign keys",
	    err) == -1 ||
	    store_pragma(st, SQL_SYNC_NORMAL, NULL, "setting synchronous",
	    err) == -1)
		goto fail;
	sqlite3_commit_hook(st->db, store_commit_hook, st);
	if (store_migrate(st, version, err) == -1)
		goto fail;
	return st;
fail:
	store_stmt_finalize_all(st);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
	return NULL;
}

/* Open or create the database at path and migrate it to the latest schema. */
struct store *
store_open(const char *path, sbox_error *err)
{
	return store_open_version(path, STORE_SCHEMA_VERSION, err);
}

/* Flush batched records, checkpoint the WAL and close. */
void
store_close(struct store *st)
{
	if (st == NULL)
		return;
	(void)store_flush(st, NULL);
	store_batch_clear(st);
	store_stmt_finalize_all(st);
	sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
	    NULL, NULL);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

/* The path the store was opened with. */
const char *
store_path(const struct store *st)
{
	return st->path;
}

/* The database's schema version (PRAGMA user_version), or -1. */
int
store_schema_version(struct store *st)
{
	return store_migrate_version(st, NULL);
}

/* Fill *out with the store's counters. */
void
store_stats(const struct store *st, struct store_stats *out)
{
	out->commits = st->commits;
	out->flushes = st->flushes;
	out->dropped = st->dropped;
	out->pending = st->batch_len;
}
