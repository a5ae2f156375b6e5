/* db.c: opening (checks, pragmas, migrations) and closing the store, and
 * store_flush (the delayed writes, then the queued records). */
#include "store/store-types.h"
#include "store/batch.h"
#include "store/spill.h"
#include "store/delay.h"
#include "store/fault.h"
#include "store/migrate.h"
#include "store/stmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long one statement waits for a lock another process holds. Short:
 * sboxd's event loop waits that long (measured: `daemon status` stays
 * under 0.1 s while a python `BEGIN EXCLUSIVE` holds the file; with the
 * former 5 s it took 4.5-13.5 s). A write that still fails is kept and
 * retried from the loop (delay.c). */
#define STORE_BUSY_TIMEOUT_MS 50
#define STORE_OPEN_BUSY_TIMEOUT_MS 5000

static const char SQL_QUICK_CHECK[] = "PRAGMA quick_check";
static const char SQL_WAL[] = "PRAGMA journal_mode = WAL";
static const char SQL_FOREIGN_KEYS[] = "PRAGMA foreign_keys = ON";
static const char SQL_SYNC_NORMAL[] = "PRAGMA synchronous = NORMAL";

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
 * write, empty or starting with SQLite's header; a new one is made 0600.
 * -2 when the file is not a database. */
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
		error_set(err, E_STORE, "database %s is not a regular file",
		    path);
		return -2;
	}
	if (sb.st_size > 0) {
		n = pread(fd, head, sizeof head, 0);
		if (n != (ssize_t)sizeof head ||
		    memcmp(head, magic, sizeof magic) != 0) {
			close(fd);
			error_set(err, E_STORE,
			    "%s is not an SQLite database (or is damaged); it "
			    "was left as is: move it away or use another state "
			    "folder", path);
			return -2;
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

/* Open, check, configure and migrate the file at st->path up to version
 * into st->db. -1 with err (st->db closed); -2 when the file there is not a
 * usable database of ours (not SQLite, damaged, newer). */
static int
store_connect(struct store *st, int version, sbox_error *err)
{
	int rc, v, bad = 0;

	if (store_mkparents(st->path, err) == -1)
		return -1;
	if ((rc = store_precheck(st->path, err)) < 0)
		return rc;
	rc = sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
	    NULL);
	if (rc != SQLITE_OK) {
		error_set(err, E_STORE, "cannot open database %s: %s", st->path,
		    st->db != NULL ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	/* long enough for the checks and migrations at open */
	sqlite3_busy_timeout(st->db, STORE_OPEN_BUSY_TIMEOUT_MS);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	if (sqlite3_db_readonly(st->db, "main") == 1) {
		error_set(err, E_STORE, "database %s is read-only", st->path);
		goto fail;
	}
	/* read only until the version is known to be ours */
	if ((v = store_migrate_version(st, err)) == -1) {
		error_set(err, E_STORE, "cannot read database %s: %s; it was "
		    "left as is", st->path, sqlite3_errmsg(st->db));
		bad = (sqlite3_errcode(st->db) & 0xff) == SQLITE_NOTADB ||
		    (sqlite3_errcode(st->db) & 0xff) == SQLITE_CORRUPT;
		goto fail;
	}
	if (v > STORE_SCHEMA_VERSION) {
		error_set(err, E_STORE_VERSION,
		    "database %s has schema version %d, newer than this sbox "
		    "knows (%d); use a newer sbox or another state folder",
		    st->path, v, STORE_SCHEMA_VERSION);
		bad = 1;
		goto fail;
	}
	if (store_quick_check(st, err) == -1) {
		bad = strstr(err->message, "is damaged") != NULL;
		goto fail;
	}
	if (store_pragma(st, SQL_WAL, "wal", "switching to WAL mode",
	    err) == -1 ||
	    store_pragma(st, SQL_FOREIGN_KEYS, NULL, "enabling foreign keys",
	    err) == -1 ||
	    store_pragma(st, SQL_SYNC_NORMAL, NULL, "setting synchronous",
	    err) == -1)
		goto fail;
	if (store_migrate(st, version, err) == -1)
		goto fail;
	/* from now on a locked database costs the event loop this much per
	 * try; the write is kept and retried (delay.c) */
	sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
	return 0;
fail:
	store_stmt_finalize_all(st);
	sqlite3_close(st->db);
	st->db = NULL;
	return bad ? -2 : -1;
}

/* Open, check, configure and migrate up to version. */
struct store *
store_open_version(const char *path, int version, sbox_error *err)
{
	struct store *st;

	if (path == NULL || *path == '\0') {
		error_set(err, E_STORE, "no database path");
		return NULL;
	}
	if ((st = calloc(1, sizeof *st)) == NULL ||
	    (st->path = strdup(path)) == NULL) {
		free(st);
		error_nomem(err);
		return NULL;
	}
	if (store_connect(st, version, err) < 0) {
		free(st->path);
		free(st);
		return NULL;
	}
	sqlite3_commit_hook(st->db, store_commit_hook, st);
	store_spill_open(st);
	return st;
}

/* Rename the file at path (and its -wal, -shm) to PATH.bad-MS. */
static void
store_set_aside(const char *path)
{
	static const char *const tails[] = { "", "-wal", "-shm" };
	char from[4096], to[4096];
	long long ms = store_clock_now_ms();
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(from, sizeof from, "%s%s", path, tails[i]);
		snprintf(to, sizeof to, "%s.bad-%lld%s", path, ms, tails[i]);
		(void)rename(from, to);
	}
}

/* Open the file at the store's path again; the old handle is kept until
 * the new one works. */
int
store_reopen(struct store *st, sbox_error *err)
{
	struct store tmp;
	char wal[4096];
	int rc;

	memset(&tmp, 0, sizeof tmp);
	tmp.path = st->path;
	if (access(st->path, F_OK) == -1 && errno == ENOENT) {
		/* what is left of the deleted database is not the new one's */
		snprintf(wal, sizeof wal, "%s-wal", st->path);
		(void)unlink(wal);
		snprintf(wal, sizeof wal, "%s-shm", st->path);
		(void)unlink(wal);
	}
	if ((rc = store_connect(&tmp, STORE_SCHEMA_VERSION, err)) == -2) {
		store_set_aside(st->path);
		rc = store_connect(&tmp, STORE_SCHEMA_VERSION, err);
	}
	if (rc < 0) {
		store_fault_note(st, err);
		return -1;
	}
	store_stmt_finalize_all(&tmp);	/* prepared on tmp's cache */
	store_stmt_finalize_all(st);
	sqlite3_close_v2(st->db);
	st->db = tmp.db;
	st->in_tx = 0;
	st->durable = 0;
	st->reopened++;
	st->retry_at = 0;
	st->hold = 1;	/* the caller writes the live state, then retries */
	sqlite3_commit_hook(st->db, store_commit_hook, st);
	return 0;
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
	st->retry_at = 0;	/* one last try, back-off or not */
	(void)store_flush(st, NULL);
	store_batch_clear(st);
	store_delay_clear(st);
	store_spill_close(st);
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
	out->dropped_refusals = st->dropped_refusals;
	out->dropped_events = st->dropped_events;
	out->dropped_delayed = st->delayed_dropped;
	out->merged = st->merged;
	out->spilled = st->spilled;
	out->spilled_total = st->spilled_total;
	out->spill_bytes = st->spill_bytes;
	out->delayed = st->ndelayed;
	out->delayed_total = st->delayed_total;
	out->reopened = st->reopened;
	out->healthy = !st->fault;
	out->last_error = st->last_error;
}

/* Write the delayed writes, then every queued record in one transaction;
 * how many records, or -1 (kept). While the database fails, tries again
 * only after a back-off (no busy wait on every call). */
int
store_flush(struct store *st, sbox_error *err)
{
	int n;

	if (st->fault && store_clock_now_ms() < st->retry_at)
		return error_set(err, E_STORE, "%s (retrying)", st->last_error);
	if (store_fault_moved(st))	/* never into a deleted file */
		return error_set(err, E_STORE, "the database file %s was deleted "
		    "or replaced (it is re-created)", st->path);
	if (store_delay_retry(st, err) == -1)
		return -1;
	if (st->batch_len == 0 && st->spilled == 0 &&
	    st->dropped_refusals == st->dropped_saved[0] &&
	    st->dropped_events == st->dropped_saved[1]) {
		store_fault_ok(st);
		return 0;
	}
	st->last_rc = 0;
	if (store_stmt_tx_begin(st, 0, err) == -1)
		goto fail;
	/* the spilled records are older than the queued ones: first */
	if (store_spill_write(st, err) == -1 ||
	    (n = store_batch_write(st, err)) == -1 ||
	    store_batch_save_dropped(st, err) == -1) {
		store_stmt_tx_rollback(st);
		goto fail;
	}
	if (store_stmt_tx_commit(st, err) == -1)
		goto fail;
	st->dropped_saved[0] = st->dropped_refusals;
	st->dropped_saved[1] = st->dropped_events;
	store_batch_clear(st);
	store_spill_done(st);
	st->flushes++;
	store_fault_ok(st);
	return n;
fail:
	error_context(err, "flushing records");
	if (store_fault_is(st))
		store_fault_note(st, err);
	return -1;
}
