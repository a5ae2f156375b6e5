/* test-store-faults.c: the store under faults: writes refused by a locked
 * database are kept and written later in order, the busy wait is short,
 * refusals are merged in a full queue and what is dropped is counted (and
 * stored), a deleted database is noticed and re-created. */
#include <check.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/test-store-fixture.h"

/* Another connection that holds the database with BEGIN EXCLUSIVE. */
static sqlite3 *
lock_db(void)
{
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL),
	    SQLITE_OK);
	return db;
}

/* Let the lock go. */
static void
unlock_db(sqlite3 *db)
{
	ck_assert_int_eq(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);
}

/* Monotonic milliseconds. */
static long long
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

START_TEST(test_locked_writes_delayed_then_written)
{
	struct store *st = open_db();
	struct store_stats stats;
	sbox_error err = {0};
	long long id, t;
	sqlite3 *lock;
	char buf[64];

	add_session(st, "s1");
	id = add_command(st, "s1", "make", 0, 0);
	lock = lock_db();
	t = mono_ms();
	/* kept, not lost: 1 = delayed, err says why */
	ck_assert_int_eq(store_command_finish(st, id, 0, -1, 5, "exited", NULL,
	    &err), 1);
	ck_assert_ptr_nonnull(strstr(err.message, "locked"));
	/* the wait for the lock is short (the event loop waits that long) */
	ck_assert_int_lt(mono_ms() - t, 1000);
	ck_assert_int_eq(store_session_set_state(st, "s1", "closed", "bye",
	    &err), 1);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.delayed, 2);
	ck_assert_int_eq(stats.delayed_total, 2);
	ck_assert_int_eq(stats.healthy, 0);
	ck_assert_ptr_nonnull(strstr(stats.last_error, "locked"));
	/* while it fails, a flush backs off at once (no busy wait) */
	t = mono_ms();
	ck_assert_int_eq(store_flush(st, &err), -1);
	ck_assert_int_lt(mono_ms() - t, 20);
	unlock_db(lock);
	store_retry_now(st);
	ck_assert_int_eq(store_flush(st, &err), 0);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.delayed, 0);
	ck_assert_int_eq(stats.healthy, 1);
	ck_assert_int_eq(stats.dropped, 0);
	snprintf(buf, sizeof buf, "SELECT exit_code FROM commands WHERE id = %lld",
	    id);
	ck_assert_int_eq(raw_int(buf), 0);
	ck_assert_str_eq(raw_text("SELECT state FROM sessions WHERE id = 's1'",
	    buf, sizeof buf), "closed");
	store_close(st);
}
END_TEST

START_TEST(test_delayed_keep_order_and_drop_refused)
{
	struct store *st = open_db();
	struct store_stats stats;
	sbox_error err = {0};
	sqlite3 *lock;
	long long a;
	char buf[64];

	add_session(st, "s1");
	a = add_command(st, "s1", "a", 0, 0);
	lock = lock_db();
	ck_assert_int_eq(store_command_finish(st, a, 1, -1, 5, "exited", NULL,
	    &err), 1);
	/* the same command again: kept behind, refused when written */
	ck_assert_int_eq(store_command_finish(st, a, 2, -1, 5, "exited", NULL,
	    &err), 1);
	unlock_db(lock);
	store_retry_now(st);
	ck_assert_int_eq(store_flush(st, &err), 0);
	snprintf(buf, sizeof buf, "SELECT exit_code FROM commands WHERE id = %lld",
	    a);
	ck_assert_int_eq(raw_int(buf), 1);	/* the first one, in order */
	store_stats(st, &stats);
	/* (a second end of an ended command is no loss) */
	ck_assert_int_eq(stats.dropped_delayed, 0);
	/* a kept write that can never be written is dropped and counted */
	lock = lock_db();
	ck_assert_int_eq(store_session_set_state(st, "ghost", "closed", NULL,
	    &err), 1);
	unlock_db(lock);
	store_retry_now(st);
	ck_assert_int_eq(store_flush(st, &err), 0);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.dropped_delayed, 1);
	ck_assert_int_eq(stats.dropped, 1);
	ck_assert_int_eq(stats.delayed, 0);
	/* a write refused for its content is not delayed */
	ck_assert_int_eq(store_command_finish(st, a, 3, -1, 5, "exited", NULL,
	    &err), -1);
	ck_assert_int_eq(store_session_set_state(st, "nope", "closed", NULL,
	    &err), -1);
	ck_assert_str_eq(err.name, E_SESSION_NOT_FOUND);
	store_close(st);
}
END_TEST

START_TEST(test_full_queue_merges_and_counts)
{
	struct store *st = open_db();
	struct store_stats stats;
	sbox_error err = {0};
	sqlite3 *lock;
	char buf[64];
	int i;

	add_session(st, "s1");
	lock = lock_db();
	/* one host again and again: counted in the queued record */
	for (i = 0; i < STORE_BATCH_MAX + 500; i++)
		ck_assert_int_eq(store_refusal_add(st, "s1", 0, "evil.example",
		    443, "no", "network.hosts", &err), 0);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.dropped, 0);
	ck_assert_int_eq(stats.merged, 500);
	/* events cannot merge: the oldest records go to the spill file
	 * (issue 45: were dropped) */
	for (i = 0; i < 10; i++)
		store_event_add(st, "x.y", NULL, NULL, &err);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.dropped_events, 0);
	ck_assert_int_eq(stats.dropped_refusals, 0);
	ck_assert_int_eq(stats.dropped, 0);
	ck_assert_int_eq(stats.spilled, 10);
	unlock_db(lock);
	store_retry_now(st);
	ck_assert_int_ge(store_flush(st, &err), 1);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.spilled, 0);
	ck_assert_int_eq(stats.spill_bytes, 0);
	/* every refusal is in the rows, none lost */
	ck_assert_int_eq(raw_int("SELECT sum(count) FROM refusals"),
	    STORE_BATCH_MAX + 500);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM events WHERE topic = "
	    "'x.y'"), 10);
	(void)buf;
	store_close(st);
}
END_TEST

START_TEST(test_deleted_database_reopened)
{
	struct store *st = open_db();
	sbox_error err = {0};
	char wal[600];

	add_session(st, "s1");
	ck_assert_int_eq(store_fault_moved(st), 0);
	unlink(dbpath);
	snprintf(wal, sizeof wal, "%s-wal", dbpath);
	unlink(wal);
	ck_assert_int_eq(store_fault_moved(st), 1);
	ck_assert_int_eq(store_reopen(st, &err), 0);
	ck_assert_int_eq(store_fault_moved(st), 0);
	ck_assert_int_eq(access(dbpath, F_OK), 0);
	/* a fresh database: the caller writes the live state again */
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sessions"), 0);
	add_session(st, "s1");
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sessions"), 1);
	store_close(st);
}
END_TEST

START_TEST(test_replaced_database_set_aside)
{
	struct store *st = open_db();
	sbox_error err = {0};
	char junk[600];
	FILE *f;

	add_session(st, "s1");
	snprintf(junk, sizeof junk, "%s.junk", dbpath);
	ck_assert_ptr_nonnull(f = fopen(junk, "w"));
	fputs("this is not a database, not at all, really not\n", f);
	fclose(f);
	ck_assert_int_eq(rename(junk, dbpath), 0);
	ck_assert_int_eq(store_fault_moved(st), 1);
	ck_assert_int_eq(store_reopen(st, &err), 0);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sessions"), 0);
	store_close(st);
}
END_TEST

/* The suite. */
static Suite *
store_faults_suite(void)
{
	Suite *s = suite_create("store-faults");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_locked_writes_delayed_then_written);
	tcase_add_test(tc, test_delayed_keep_order_and_drop_refused);
	tcase_add_test(tc, test_full_queue_merges_and_counts);
	tcase_add_test(tc, test_deleted_database_reopened);
	tcase_add_test(tc, test_replaced_database_set_aside);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(store_faults_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
