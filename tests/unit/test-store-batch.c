/* test-store-batch.c: the batched tables (refusals, events): not written
 * before a flush, one transaction per flush, the bounded queue, reads and a
 * command's end that flush first. */
#include <check.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/test-store-fixture.h"

START_TEST(test_refusals_batched)
{
	struct store *st = open_db();
	struct store_stats stats;
	sbox_error err = {0};
	unsigned long long commits;
	json_t *list, *r;
	int i;

	add_session(st, "s1");
	add_session(st, "s2");
	ck_assert_int_eq(store_refusal_add(st, "s1", 0, "evil.example", 443,
	    "not in the allowlist", "network.hosts", &err), 0);
	ck_assert_int_eq(store_refusal_add(st, "s1", 0, "pypi.org", 443,
	    "not in the allowlist", "network.hosts", &err), 0);
	ck_assert_int_eq(store_refusal_add(st, "s1", 0, "evil.example", 443,
	    "not in the allowlist (again)", "network.hosts", &err), 0);
	ck_assert_int_eq(store_refusal_add(st, "s2", 0, "10.0.0.1", 80,
	    "private address", NULL, &err), 0);
	ck_assert_int_eq(store_refusal_add(st, NULL, 0, "x", 80, "r", NULL,
	    &err), -1);
	/* not in the table yet */
	ck_assert_int_eq(raw_int("SELECT count(*) FROM refusals"), 0);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.pending, 4);
	/* reading flushes first, then groups, newest first */
	list = store_refusal_recent(st, "s1", 10, &err);
	ck_assert_ptr_nonnull(list);
	ck_assert_int_eq(json_array_size(list), 2);
	r = json_array_get(list, 0);
	ck_assert_str_eq(jstr(r, "host"), "evil.example");
	ck_assert_int_eq(jint(r, "port"), 443);
	ck_assert_int_eq(jint(r, "count"), 2);
	ck_assert_str_eq(jstr(r, "reason"), "not in the allowlist (again)");
	ck_assert_str_eq(jstr(r, "rule"), "network.hosts");
	ck_assert(json_is_string(json_object_get(r, "last_at")));
	ck_assert_str_eq(jstr(json_array_get(list, 1), "host"), "pypi.org");
	json_decref(list);
	/* one counted row per (session, command, host, port, rule) */
	ck_assert_int_eq(raw_int("SELECT count(*) FROM refusals"), 3);
	ck_assert_int_eq(raw_int("SELECT sum(count) FROM refusals"), 4);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.pending, 0);
	ck_assert_int_eq(stats.flushes, 1);
	list = store_refusal_recent(st, "s1", 1, &err);
	ck_assert_int_eq(json_array_size(list), 1);
	json_decref(list);
	list = store_refusal_recent(st, NULL, 0, &err);
	ck_assert_int_eq(json_array_size(list), 3);
	ck_assert_str_eq(jstr(json_array_get(list, 0), "host"), "10.0.0.1");
	ck_assert_str_eq(jstr(json_array_get(list, 0), "session"), "s2");
	json_decref(list);

	/* one flush = one transaction, however many records */
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(store_event_add(st, "host.refused", "s1",
		    NULL, &err), 0);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(store_refusal_add(st, "s2", 0, "a.example",
		    443, "no", NULL, &err), 0);
	store_stats(st, &stats);
	commits = stats.commits;
	ck_assert_int_eq(store_flush(st, &err), 200);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.commits, commits + 1);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM refusals"), 4);
	ck_assert_int_eq(raw_int("SELECT sum(count) FROM refusals"), 104);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM events"), 100);
	ck_assert_int_eq(store_flush(st, &err), 0);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.commits, commits + 1);
	store_close(st);
}
END_TEST

START_TEST(test_batch_full)
{
	struct store *st = open_db();
	struct store_stats stats;
	sbox_error err = {0};
	int i;

	add_session(st, "s1");
	for (i = 0; i < STORE_BATCH_MAX + 10; i++)
		ck_assert_int_eq(store_refusal_add(st, "s1", 0, "h.example",
		    i, "no", NULL, &err), 0);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.pending, 10);
	ck_assert_int_eq(stats.flushes, 1);
	ck_assert_int_eq(stats.dropped, 0);
	ck_assert_int_eq(raw_int("SELECT sum(count) FROM refusals"),
	    STORE_BATCH_MAX);
	/* close flushes the rest */
	store_close(st);
	ck_assert_int_eq(raw_int("SELECT sum(count) FROM refusals"),
	    STORE_BATCH_MAX + 10);
	/* at most STORE_REFUSAL_ROWS_MAX rows, plus the one counting the rest */
	ck_assert_int_eq(raw_int("SELECT count(*) FROM refusals"),
	    STORE_REFUSAL_ROWS_MAX + 1);
	ck_assert_int_eq(raw_int("SELECT count FROM refusals WHERE host = '*'"),
	    STORE_BATCH_MAX + 10 - STORE_REFUSAL_ROWS_MAX);
}
END_TEST

START_TEST(test_batch_drops_oldest)
{
	struct store *st = open_db();
	struct store_stats stats;
	sbox_error err = {0};
	sqlite3 *db;
	int i;

	add_session(st, "s1");
	for (i = 0; i < STORE_BATCH_MAX; i++)
		ck_assert_int_eq(store_refusal_add(st, "s1", 0, "h.example",
		    i, "no", NULL, &err), 0);
	/* make every flush fail: the table is gone */
	ck_assert_int_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "DROP TABLE refusals", NULL, NULL,
	    NULL), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(store_flush(st, &err), -1);
	ck_assert_str_eq(err.name, E_STORE);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.pending, STORE_BATCH_MAX);
	/* full and unflushable: the oldest goes to the spill file beside
	 * the database (issue 45: was dropped), the new one stays queued */
	ck_assert_int_eq(store_refusal_add(st, "s1", 0, "new.example", 1, "no",
	    NULL, &err), 0);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.pending, STORE_BATCH_MAX);
	ck_assert_int_eq(stats.dropped, 0);
	ck_assert_int_eq(stats.spilled, 1);
	ck_assert(stats.spill_bytes > 0);
	store_close(st);
}
END_TEST

START_TEST(test_refusal_flood_one_row)
{
	struct store *st = open_db();
	sbox_error err = {0};
	json_t *list, *r;
	int i;

	add_session(st, "s1");
	for (i = 0; i < 50000; i++)
		ck_assert_int_eq(store_refusal_add(st, "s1", 0, "flood.example",
		    443, "not in the allowlist", "network allowlist", &err), 0);
	list = store_refusal_recent(st, "s1", 10, &err);
	ck_assert_int_eq(json_array_size(list), 1);
	r = json_array_get(list, 0);
	ck_assert_int_eq(jint(r, "count"), 50000);
	ck_assert(json_is_string(json_object_get(r, "first_at")));
	ck_assert(json_is_string(json_object_get(r, "last_at")));
	json_decref(list);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM refusals"), 1);
	store_close(st);
}
END_TEST

START_TEST(test_finish_commits_refusals)
{
	struct store *st = open_db();
	struct store_stats stats;
	sbox_error err = {0};
	json_t *list;
	long long a;

	add_session(st, "s1");
	a = add_command(st, "s1", "curl", 0, 0);
	ck_assert_int_eq(store_refusal_add(st, "s1", a, "evil.example", 443,
	    "not allowed", "network.hosts", &err), 0);
	ck_assert_int_eq(store_refusal_add(st, "s1", a, "evil.example", 443,
	    "not allowed", "network.hosts", &err), 0);
	ck_assert_int_eq(store_refusal_add(st, "s1", a, "10.1.2.3", 22,
	    "private address", "addresses", &err), 0);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM refusals"), 0);
	ck_assert_int_eq(store_command_finish(st, a, 6, -1, 20, "exited",
	    NULL, &err), 0);
	/* the command's end and its refusals were committed together */
	ck_assert_int_eq(raw_int("SELECT sum(count) FROM refusals"), 3);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM refusals"), 2);
	store_stats(st, &stats);
	ck_assert_int_eq(stats.pending, 0);
	list = store_refusals_for_command(st, a, &err);
	ck_assert_int_eq(json_array_size(list), 2);
	ck_assert_str_eq(jstr(json_array_get(list, 0), "host"),
	    "evil.example");
	ck_assert_int_eq(jint(json_array_get(list, 0), "count"), 2);
	ck_assert_str_eq(jstr(json_array_get(list, 1), "rule"), "addresses");
	json_decref(list);
	list = store_refusals_for_command(st, a + 1, &err);
	ck_assert_int_eq(json_array_size(list), 0);
	json_decref(list);
	store_close(st);
}
END_TEST

START_TEST(test_events)
{
	struct store *st = open_db();
	sbox_error err = {0};
	json_t *list, *data;
	long long last;
	int i;

	data = json_pack("{s:s,s:i}", "host", "evil.example", "port", 443);
	ck_assert_int_eq(store_event_add(st, "host.refused", "s1", data, &err),
	    0);
	json_decref(data);
	ck_assert_int_eq(store_event_add(st, "session.created", NULL, NULL,
	    &err), 0);
	ck_assert_int_eq(store_event_add(st, NULL, NULL, NULL, &err), -1);
	list = store_event_list(st, 0, 0, &err);
	ck_assert_int_eq(json_array_size(list), 2);
	ck_assert_str_eq(jstr(json_array_get(list, 0), "topic"),
	    "host.refused");
	ck_assert_str_eq(jstr(json_object_get(json_array_get(list, 0), "data"),
	    "host"), "evil.example");
	ck_assert(json_is_null(json_object_get(json_array_get(list, 1),
	    "session")));
	last = jint(json_array_get(list, 1), "id");
	json_decref(list);
	for (i = 0; i < 5; i++) {
		data = json_integer(i);
		ck_assert_int_eq(store_event_add(st, "x", NULL, data, &err), 0);
		json_decref(data);
	}
	list = store_event_list(st, last, 3, &err);
	ck_assert_int_eq(json_array_size(list), 3);
	ck_assert_int_eq(jint(json_array_get(list, 0), "id"), last + 1);
	json_decref(list);
	ck_assert_int_eq(store_event_prune(st, store_clock_now_ms() + 1000, &err), 7);
	list = store_event_list(st, 0, 0, &err);
	ck_assert_int_eq(json_array_size(list), 0);
	json_decref(list);
	store_close(st);
}
END_TEST

/* The suite. */
static Suite *
store_batch_suite(void)
{
	Suite *s = suite_create("store-batch");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_refusals_batched);
	tcase_add_test(tc, test_refusal_flood_one_row);
	tcase_add_test(tc, test_batch_full);
	tcase_add_test(tc, test_batch_drops_oldest);
	tcase_add_test(tc, test_finish_commits_refusals);
	tcase_add_test(tc, test_events);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(store_batch_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
