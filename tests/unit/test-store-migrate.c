/* test-store-migrate.c: schema versions, migrations, and databases the store
 * must refuse without touching (newer, not a database, damaged, unreadable). */
#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"

static char tmpdir[256];
static char dbpath[512];

/* Remove one entry of the temporary tree. */
static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

/* A fresh temporary folder per test. */
static void
setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/test-store-migrate-XXXXXX",
	    getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(dbpath, sizeof dbpath, "%s/sbox.db", tmpdir);
}

/* Remove the temporary folder. */
static void
teardown(void)
{
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Run SQL on a raw connection to the test database. */
static void
raw_exec(const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	ck_assert_int_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK,
	    "%s", msg != NULL ? msg : "?");
	sqlite3_close(db);
}

/* One integer from a raw query. */
static long long
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

/* The whole content of a file (malloc'd) and its size. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Write bytes to a file. */
static void
spew(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Whether a path exists. */
static int
exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

/* store_open must fail with name, mention the path, and leave the file
 * byte for byte as it was. */
static void
assert_refused_untouched(const char *name, const char *needle)
{
	sbox_error err = {0};
	struct store *st;
	char *before, *after;
	size_t nb, na;

	before = slurp(dbpath, &nb);
	st = store_open(dbpath, &err);
	ck_assert_ptr_null(st);
	ck_assert_str_eq(err.name, name);
	ck_assert_msg(strstr(err.message, dbpath) != NULL,
	    "message does not name the path: %s", err.message);
	if (needle != NULL)
		ck_assert_msg(strstr(err.message, needle) != NULL,
		    "message lacks \"%s\": %s", needle, err.message);
	after = slurp(dbpath, &na);
	ck_assert_int_eq(na, nb);
	ck_assert_mem_eq(after, before, nb);
	free(before);
	free(after);
}

START_TEST(test_fresh_latest)
{
	sbox_error err = {0};
	struct store *st = store_open(dbpath, &err);

	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_VERSION);
	store_close(st);
	ck_assert_int_eq(raw_int("PRAGMA user_version"), STORE_SCHEMA_VERSION);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sqlite_schema WHERE "
	    "type = 'table' AND name IN ('sessions','commands','refusals',"
	    "'approvals','events','meta')"), 6);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sqlite_schema WHERE "
	    "type = 'index' AND name = 'refusals_command'"), 1);
	ck_assert_int_gt(raw_int("SELECT value FROM meta WHERE key = "
	    "'created_at'"), 1600000000000LL);
	/* opening again changes nothing */
	st = store_open(dbpath, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_VERSION);
	store_close(st);
}
END_TEST

START_TEST(test_old_version_migrates)
{
	struct store_session s = {0};
	sbox_error err = {0};
	struct store *st;
	json_t *o;

	st = store_open_version(dbpath, 1, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(store_schema_version(st), 1);
	s.id = "0123456789abcdef";
	s.project = "/p";
	s.profile = "workspace";
	s.creator_uid = 1000;
	ck_assert_int_eq(store_session_insert(st, &s, &err), 0);
	store_close(st);
	ck_assert_int_eq(raw_int("PRAGMA user_version"), 1);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sqlite_schema WHERE "
	    "type = 'index' AND name = 'sessions_live'"), 0);

	st = store_open(dbpath, &err);
	ck_assert_msg(st != NULL, "%s", err.message);
	ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_VERSION);
	o = store_session_get(st, "0123456789abcdef", &err);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_string_value(json_object_get(o, "profile")),
	    "workspace");
	json_decref(o);
	store_close(st);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sqlite_schema WHERE "
	    "type = 'index' AND name = 'sessions_live'"), 1);
}
END_TEST

START_TEST(test_refusals_aggregated_by_migration)
{
	sbox_error err = {0};
	struct store *st;
	json_t *list;

	st = store_open_version(dbpath, 2, &err);
	ck_assert_ptr_nonnull(st);
	store_close(st);
	raw_exec("INSERT INTO refusals (session, command_id, host, port, reason,"
	    " rule, created_at) VALUES"
	    " ('s1', NULL, 'a.example', 443, 'no', 'r', 1000),"
	    " ('s1', NULL, 'a.example', 443, 'no again', 'r', 3000),"
	    " ('s1', NULL, 'b.example', 80, 'no', 'r', 2000),"
	    " ('s1', 7, 'a.example', 443, 'no', 'r', 2500)");
	st = store_open(dbpath, &err);
	ck_assert_msg(st != NULL, "%s", err.message);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM refusals"), 3);
	ck_assert_int_eq(raw_int("SELECT count FROM refusals WHERE"
	    " host = 'a.example' AND command_id IS NULL"), 2);
	ck_assert_int_eq(raw_int("SELECT first_at FROM refusals WHERE"
	    " host = 'a.example' AND command_id IS NULL"), 1000);
	ck_assert_int_eq(raw_int("SELECT last_at FROM refusals WHERE"
	    " host = 'a.example' AND command_id IS NULL"), 3000);
	list = store_refusal_recent(st, "s1", 0, &err);
	ck_assert_int_eq(json_array_size(list), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(list,
	    0), "host")), "a.example");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(list,
	    0), "count")), 3);
	json_decref(list);
	store_close(st);
}
END_TEST

/* Version 4 adds what a run outside executes to the approvals: an older
 * record reads with those fields null, a new one with their JSON types;
 * a database at the version kept for another step (3) moves on too. */
START_TEST(test_approvals_what_ran)
{
	struct store_session s = {0};
	struct store_approval a = {0};
	sbox_error err = {0};
	struct store *st;
	long long id;
	json_t *o;

	st = store_open_version(dbpath, 2, &err);
	ck_assert_ptr_nonnull(st);
	s.id = "s1";
	s.project = "/p";
	s.profile = "workspace";
	ck_assert_int_eq(store_session_insert(st, &s, &err), 0);
	store_close(st);
	raw_exec("INSERT INTO approvals (session, argv, cwd, reason,"
	    " requested_at) VALUES ('s1', '[\"true\"]', '/p', 'old', 1);");
	st = store_open_version(dbpath, 3, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(store_schema_version(st), 3);
	store_close(st);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM pragma_table_info("
	    "'approvals') WHERE name = 'program'"), 0);
	st = store_open(dbpath, &err);
	ck_assert_msg(st != NULL, "%s", err.message);
	ck_assert_int_eq(store_schema_version(st), 4);
	o = store_approval_get(st, 1, &err);
	ck_assert_ptr_nonnull(o);
	ck_assert(json_is_null(json_object_get(o, "program")));
	ck_assert(json_is_null(json_object_get(o, "env")));
	ck_assert_str_eq(json_string_value(json_object_get(o, "reason")),
	    "old");
	json_decref(o);
	a.session = "s1";
	a.argv = json_pack("[ss]", "git", "push");
	a.cwd = "/p";
	a.program = "/usr/bin/git";
	a.program_writable = 1;
	a.cwd_writable = 1;
	a.env = json_pack("{s:s}", "TAG", "v1");
	a.env_dropped = json_pack("[ss]", "LD_PRELOAD", "PATH");
	a.reason = "push";
	id = store_approval_create(st, &a, &err);
	ck_assert_int_gt(id, 1);
	o = store_approval_get(st, id, &err);
	ck_assert_str_eq(json_string_value(json_object_get(o, "program")),
	    "/usr/bin/git");
	ck_assert(json_is_true(json_object_get(o, "program_writable")));
	ck_assert(json_is_true(json_object_get(o, "cwd_writable")));
	ck_assert(json_equal(json_object_get(o, "env"), a.env));
	ck_assert(json_equal(json_object_get(o, "env_dropped"), a.env_dropped));
	json_decref(o);
	json_decref(a.argv);
	json_decref(a.env);
	json_decref(a.env_dropped);
	store_close(st);
}
END_TEST

START_TEST(test_failed_step_rolls_back)
{
	sbox_error err = {0};
	struct store *st;

	st = store_open_version(dbpath, 1, &err);
	ck_assert_ptr_nonnull(st);
	store_close(st);
	/* something in the way of step 2 (an object with an index's name) */
	raw_exec("CREATE TABLE refusals_command (x)");
	st = store_open(dbpath, &err);
	ck_assert_ptr_null(st);
	ck_assert_str_eq(err.name, E_STORE);
	ck_assert_ptr_nonnull(strstr(err.message, dbpath));
	ck_assert_ptr_nonnull(strstr(err.message, "from schema version 1 to 2"));
	/* step 2 left nothing behind */
	ck_assert_int_eq(raw_int("PRAGMA user_version"), 1);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sqlite_schema WHERE "
	    "type = 'index' AND name = 'sessions_live'"), 0);
}
END_TEST

START_TEST(test_newer_refused)
{
	char want[64];

	raw_exec("CREATE TABLE future (x); INSERT INTO future VALUES (1);"
	    "PRAGMA user_version = 99;");
	snprintf(want, sizeof want, "schema version 99, newer than this sbox "
	    "knows (%d)", STORE_SCHEMA_VERSION);
	assert_refused_untouched(E_STORE_VERSION, want);
	ck_assert_int_eq(raw_int("PRAGMA user_version"), 99);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sqlite_schema WHERE "
	    "name = 'sessions'"), 0);
}
END_TEST

START_TEST(test_newer_wal_refused)
{
	sbox_error err = {0};
	struct store *st;

	/* a database this program made, later upgraded by a newer sbox */
	st = store_open(dbpath, &err);
	ck_assert_ptr_nonnull(st);
	store_close(st);
	raw_exec("PRAGMA user_version = 7;");
	st = store_open(dbpath, &err);
	ck_assert_ptr_null(st);
	ck_assert_str_eq(err.name, E_STORE_VERSION);
	ck_assert_ptr_nonnull(strstr(err.message, dbpath));
	ck_assert_ptr_nonnull(strstr(err.message, "7"));
	ck_assert_int_eq(raw_int("PRAGMA user_version"), 7);
}
END_TEST

START_TEST(test_garbage_untouched)
{
	char wal[600], shm[600], buf[4096];
	size_t i;

	for (i = 0; i < sizeof buf; i++)
		buf[i] = (char)("this is not a database\n"[i % 23]);
	spew(dbpath, buf, sizeof buf);
	assert_refused_untouched(E_STORE, "not an SQLite database");
	snprintf(wal, sizeof wal, "%s-wal", dbpath);
	snprintf(shm, sizeof shm, "%s-shm", dbpath);
	ck_assert(!exists(wal));
	ck_assert(!exists(shm));
	/* a short one too */
	spew(dbpath, "SQLite", 6);
	assert_refused_untouched(E_STORE, NULL);
}
END_TEST

START_TEST(test_damaged_untouched)
{
	char *bytes;
	size_t n, off;
	int i;

	raw_exec("PRAGMA page_size = 4096; CREATE TABLE t (x TEXT);"
	    "CREATE INDEX t_x ON t (x);");
	for (i = 0; i < 20; i++)
		raw_exec("INSERT INTO t VALUES (hex(randomblob(200)))");
	/* scribble over the middle of page 2 (the table's b-tree) and 3 */
	bytes = slurp(dbpath, &n);
	ck_assert_int_ge(n, 3 * 4096);
	for (off = 4096; off < 3 * 4096; off++)
		bytes[off] = (char)0xa5;
	spew(dbpath, bytes, n);
	free(bytes);
	assert_refused_untouched(E_STORE, NULL);
}
END_TEST

START_TEST(test_not_a_file)
{
	sbox_error err = {0};

	ck_assert_int_eq(mkdir(dbpath, 0700), 0);
	ck_assert_ptr_null(store_open(dbpath, &err));
	ck_assert_str_eq(err.name, E_STORE);
	ck_assert_ptr_nonnull(strstr(err.message, dbpath));
	ck_assert_ptr_null(store_open("", &err));
	ck_assert_str_eq(err.name, E_STORE);
}
END_TEST

/* In a child without root's override (dropping to nobody when root): open
 * must fail with E_STORE naming the path. Exit 0 when it does. */
static int
open_refused_as_user(void)
{
	sbox_error err = {0};
	pid_t pid;
	int status;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct store *st;

		if (geteuid() == 0 && (setgid(65534) == -1 ||
		    setuid(65534) == -1))
			_exit(10);
		st = store_open(dbpath, &err);
		if (st != NULL)
			_exit(11);
		if (strcmp(err.name, E_STORE) != 0)
			_exit(12);
		if (strstr(err.message, dbpath) == NULL)
			_exit(13);
		if (strstr(err.message, "ermission denied") == NULL &&
		    strstr(err.message, "read-only") == NULL)
			_exit(14);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(test_unreadable_untouched)
{
	sbox_error err = {0};
	struct store *st;
	struct stat sb;

	st = store_open(dbpath, &err);
	ck_assert_ptr_nonnull(st);
	store_close(st);
	/* let an unprivileged child reach the folder and the file's name */
	ck_assert_int_eq(chmod(tmpdir, 0711), 0);
	ck_assert_int_eq(chmod(dbpath, 0000), 0);
	ck_assert_int_eq(open_refused_as_user(), 0);
	ck_assert_int_eq(stat(dbpath, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0);
	/* read-only for its owner: refused too, not opened read-only */
	ck_assert_int_eq(chmod(dbpath, 0444), 0);
	ck_assert_int_eq(open_refused_as_user(), 0);
	ck_assert_int_eq(chmod(dbpath, 0600), 0);
	if (geteuid() == 0) {
		/* root itself can read it: no assertion about root (but the
		 * file was not replaced, which store_open never does) */
		ck_assert_int_eq(stat(dbpath, &sb), 0);
		ck_assert_int_gt(sb.st_size, 0);
	}
}
END_TEST

/* The suite. */
static Suite *
store_migrate_suite(void)
{
	Suite *s = suite_create("store-migrate");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_fresh_latest);
	tcase_add_test(tc, test_old_version_migrates);
	tcase_add_test(tc, test_refusals_aggregated_by_migration);
	tcase_add_test(tc, test_approvals_what_ran);
	tcase_add_test(tc, test_failed_step_rolls_back);
	tcase_add_test(tc, test_newer_refused);
	tcase_add_test(tc, test_newer_wal_refused);
	tcase_add_test(tc, test_garbage_untouched);
	tcase_add_test(tc, test_damaged_untouched);
	tcase_add_test(tc, test_not_a_file);
	tcase_add_test(tc, test_unreadable_untouched);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(store_migrate_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
