/* test-store.c: opening, each table's queries, the session timeline, crash
 * marking, and that a committed record survives SIGKILL. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"
#include "tests/unit/test-store-fixture.h"

START_TEST(test_open_creates)
{
	struct store *st;
	struct stat sb;
	char dir[600], buf[64];

	st = open_db();
	ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_VERSION);
	ck_assert_str_eq(store_path(st), dbpath);
	ck_assert_int_eq(stat(dbpath, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	snprintf(dir, sizeof dir, "%s/state/sbox", tmpdir);
	ck_assert_int_eq(stat(dir, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0700);
	snprintf(dir, sizeof dir, "%s/state", tmpdir);
	ck_assert_int_eq(stat(dir, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0700);
	ck_assert_str_eq(raw_text("PRAGMA journal_mode", buf, sizeof buf),
	    "wal");
	ck_assert_int_eq(raw_int("PRAGMA user_version"), STORE_SCHEMA_VERSION);
	store_close(st);
	/* after a clean close the WAL is checkpointed and the mode persists */
	ck_assert_str_eq(raw_text("PRAGMA journal_mode", buf, sizeof buf),
	    "wal");
	store_close(NULL);
}
END_TEST

START_TEST(test_open_widens_nothing)
{
	struct store *st;
	struct stat sb;
	int fd;

	/* an existing database file with loose permissions is tightened */
	st = open_db();
	store_close(st);
	ck_assert_int_eq(chmod(dbpath, 0644), 0);
	st = open_db();
	store_close(st);
	ck_assert_int_eq(stat(dbpath, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	/* an empty file is a new database */
	snprintf(dbpath, sizeof dbpath, "%s/empty.db", tmpdir);
	fd = open(dbpath, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	st = open_db();
	ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_VERSION);
	store_close(st);
}
END_TEST

START_TEST(test_reopen_keeps_data)
{
	struct store *st;
	json_t *s;
	sbox_error err = {0};

	st = open_db();
	add_session(st, "0123456789abcdef");
	add_command(st, "0123456789abcdef", "make", 0, 0);
	store_close(st);
	st = open_db();
	s = store_session_get(st, "0123456789abcdef", &err);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(jstr(s, "project"), "/home/u/proj");
	ck_assert_int_eq(jint(s, "commands"), 1);
	json_decref(s);
	store_close(st);
}
END_TEST

START_TEST(test_sessions)
{
	struct store *st = open_db();
	struct store_session s = {0};
	sbox_error err = {0};
	json_t *o, *list;

	s.id = "aaaaaaaaaaaaaaaa";
	s.title = "fix the build";
	s.project = "/p";
	s.profile = "workspace";
	s.resolved_profile = json_pack("{s:s,s:[s]}", "network", "allowlist",
	    "hosts", "github.com");
	s.provenance = json_pack("{s:s}", "network", "builtin:workspace");
	s.provider = "anthropic";
	s.model = "m1";
	s.space = "default";
	s.created_at = 1700000000123LL;
	s.creator_uid = 1000;
	ck_assert_int_eq(store_session_insert(st, &s, &err), 0);
	/* the same id twice */
	ck_assert_int_eq(store_session_insert(st, &s, &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	json_decref(s.resolved_profile);
	json_decref(s.provenance);

	o = store_session_get(st, "aaaaaaaaaaaaaaaa", &err);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(jstr(o, "title"), "fix the build");
	ck_assert_str_eq(jstr(o, "profile"), "workspace");
	ck_assert_str_eq(jstr(json_object_get(o, "resolved_profile"),
	    "network"), "allowlist");
	ck_assert_str_eq(jstr(json_object_get(o, "provenance"), "network"),
	    "builtin:workspace");
	ck_assert_str_eq(jstr(o, "state"), "starting");
	ck_assert_str_eq(jstr(o, "created_at"), "2023-11-14T22:13:20.123Z");
	ck_assert_int_eq(jint(o, "created_at_ms"), 1700000000123LL);
	ck_assert(json_is_null(json_object_get(o, "closed_at")));
	ck_assert_int_eq(jint(o, "creator_uid"), 1000);
	ck_assert_int_eq(jint(o, "commands"), 0);
	json_decref(o);

	/* a child session; an unknown parent is refused */
	memset(&s, 0, sizeof s);
	s.id = "bbbbbbbbbbbbbbbb";
	s.project = "/p";
	s.profile = "strict";
	s.parent = "nope";
	s.creator_uid = -1;
	ck_assert_int_eq(store_session_insert(st, &s, &err), -1);
	ck_assert_str_eq(err.name, E_SESSION_NOT_FOUND);
	s.parent = "aaaaaaaaaaaaaaaa";
	ck_assert_int_eq(store_session_insert(st, &s, &err), 0);
	o = store_session_get(st, "bbbbbbbbbbbbbbbb", &err);
	ck_assert_str_eq(jstr(o, "parent"), "aaaaaaaaaaaaaaaa");
	ck_assert(json_is_null(json_object_get(o, "creator_uid")));
	ck_assert_int_eq(json_object_size(json_object_get(o,
	    "resolved_profile")), 0);
	json_decref(o);
	s.id = "cccccccccccccccc";
	s.parent = NULL;
	s.state = "bogus";
	ck_assert_int_eq(store_session_insert(st, &s, &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	ck_assert_str_eq(err.field, "state");
	s.project = NULL;
	s.state = NULL;
	ck_assert_int_eq(store_session_insert(st, &s, &err), -1);
	ck_assert_str_eq(err.field, "project");

	/* states */
	ck_assert_int_eq(store_session_set_state(st, "aaaaaaaaaaaaaaaa",
	    "ready", NULL, &err), 0);
	ck_assert_int_eq(store_session_set_state(st, "bbbbbbbbbbbbbbbb",
	    "closed", "closed by client", &err), 0);
	ck_assert_int_eq(store_session_set_state(st, "bbbbbbbbbbbbbbbb",
	    "ready", NULL, &err), -1);
	ck_assert_str_eq(err.name, E_SESSION_CLOSED);
	ck_assert_ptr_nonnull(strstr(err.message, "closed"));
	ck_assert_int_eq(store_session_set_state(st, "zzz", "ready", NULL,
	    &err), -1);
	ck_assert_str_eq(err.name, E_SESSION_NOT_FOUND);
	ck_assert_int_eq(store_session_set_state(st, "aaaaaaaaaaaaaaaa",
	    "sleeping", NULL, &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	o = store_session_get(st, "bbbbbbbbbbbbbbbb", &err);
	ck_assert_str_eq(jstr(o, "state"), "closed");
	ck_assert_str_eq(jstr(o, "close_reason"), "closed by client");
	ck_assert(json_is_string(json_object_get(o, "closed_at")));
	ck_assert_int_ge(jint(o, "closed_at_ms"), jint(o, "created_at_ms"));
	json_decref(o);
	ck_assert_ptr_null(store_session_get(st, "nope", &err));
	ck_assert_str_eq(err.name, E_SESSION_NOT_FOUND);

	/* lists */
	list = store_session_list(st, 0, &err);
	ck_assert_int_eq(json_array_size(list), 1);
	ck_assert_str_eq(jstr(json_array_get(list, 0), "id"),
	    "aaaaaaaaaaaaaaaa");
	ck_assert_ptr_null(json_object_get(json_array_get(list, 0),
	    "resolved_profile"));
	json_decref(list);
	list = store_session_list(st, 1, &err);
	ck_assert_int_eq(json_array_size(list), 2);
	ck_assert_str_eq(jstr(json_array_get(list, 0), "id"),
	    "aaaaaaaaaaaaaaaa");
	json_decref(list);
	store_close(st);
}
END_TEST

START_TEST(test_commands)
{
	struct store *st = open_db();
	struct store_command c = {0};
	sbox_error err = {0};
	json_t *o, *list, *blocked;
	long long a, b;

	add_session(st, "s1");
	add_session(st, "s2");
	a = add_command(st, "s1", "make", 0, 0);
	add_command(st, "s2", "ls", 0, 0);
	c.session = "s1";
	c.argv = json_pack("[sss]", "sh", "-c", "sleep 100 &");
	c.env_names = json_pack("[s]", "FOO");
	c.detach = 1;
	c.started_at = 1700000000000LL;
	b = store_command_start(st, &c, &err);
	ck_assert_int_gt(b, a);

	o = store_command_get(st, b, &err);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(jint(o, "seq"), 2);
	ck_assert_str_eq(jstr(o, "session"), "s1");
	ck_assert(json_equal(json_object_get(o, "argv"), c.argv));
	ck_assert(json_equal(json_object_get(o, "env_names"), c.env_names));
	ck_assert(json_is_true(json_object_get(o, "detach")));
	ck_assert(json_is_false(json_object_get(o, "outside")));
	ck_assert_str_eq(jstr(o, "state"), "running");
	ck_assert(json_is_null(json_object_get(o, "exit_code")));
	ck_assert_str_eq(jstr(o, "started_at"), "2023-11-14T22:13:20.000Z");
	json_decref(o);

	/* finish */
	blocked = json_pack("{s:[{s:s,s:s}]}", "files", "path",
	    ".git/hooks/pre-commit", "rule", "read-only");
	ck_assert_int_eq(store_command_finish(st, a, 2, -1, 1234, "exited",
	    blocked, &err), 0);
	ck_assert_int_eq(store_command_finish(st, a, 0, -1, 1, "exited", NULL,
	    &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	ck_assert_int_eq(store_command_finish(st, 99999, 0, -1, 1, "exited",
	    NULL, &err), -1);
	ck_assert_str_eq(err.name, E_COMMAND_NOT_FOUND);
	ck_assert_int_eq(store_command_finish(st, b, -1, 9, 50, "running",
	    NULL, &err), -1);
	ck_assert_str_eq(err.field, "state");
	ck_assert_int_eq(store_command_finish(st, b, -1, 9, 50, "killed",
	    NULL, &err), 0);
	o = store_command_get(st, a, &err);
	ck_assert_int_eq(jint(o, "exit_code"), 2);
	ck_assert(json_is_null(json_object_get(o, "signal")));
	ck_assert_int_eq(jint(o, "duration_ms"), 1234);
	ck_assert_str_eq(jstr(o, "state"), "exited");
	ck_assert(json_equal(json_object_get(o, "blocked"), blocked));
	ck_assert(json_is_string(json_object_get(o, "ended_at")));
	json_decref(o);
	o = store_command_get(st, b, &err);
	ck_assert_int_eq(jint(o, "signal"), 9);
	ck_assert(json_is_null(json_object_get(o, "exit_code")));
	json_decref(o);
	json_decref(blocked);

	list = store_command_list(st, "s1", &err);
	ck_assert_int_eq(json_array_size(list), 2);
	ck_assert_int_eq(jint(json_array_get(list, 0), "id"), a);
	ck_assert_int_eq(jint(json_array_get(list, 1), "seq"), 2);
	json_decref(list);
	ck_assert_ptr_null(store_command_list(st, "nope", &err));
	ck_assert_str_eq(err.name, E_SESSION_NOT_FOUND);
	ck_assert_ptr_null(store_command_get(st, 4242, &err));
	ck_assert_str_eq(err.name, E_COMMAND_NOT_FOUND);

	/* refused: unknown or closed session, empty argv */
	c.session = "nope";
	ck_assert_int_eq(store_command_start(st, &c, &err), -1);
	ck_assert_str_eq(err.name, E_SESSION_NOT_FOUND);
	ck_assert_int_eq(store_session_set_state(st, "s2", "closed", NULL,
	    &err), 0);
	c.session = "s2";
	ck_assert_int_eq(store_command_start(st, &c, &err), -1);
	ck_assert_str_eq(err.name, E_SESSION_CLOSED);
	json_decref(c.argv);
	c.argv = json_array();
	c.session = "s1";
	ck_assert_int_eq(store_command_start(st, &c, &err), -1);
	ck_assert_str_eq(err.field, "argv");
	json_decref(c.argv);
	json_decref(c.env_names);
	store_close(st);
}
END_TEST

START_TEST(test_approvals)
{
	struct store *st = open_db();
	struct store_approval a = {0};
	sbox_error err = {0};
	json_t *o, *list;
	long long id1, id2, id3, cmd;

	add_session(st, "s1");
	add_session(st, "s2");
	a.session = "s1";
	a.argv = json_pack("[ss]", "npm", "publish");
	a.cwd = "/home/u/proj";
	a.reason = "needs the npm token";
	a.requested_at = 1000;
	id1 = store_approval_create(st, &a, &err);
	ck_assert_int_gt(id1, 0);
	o = store_approval_get(st, id1, &err);
	ck_assert_str_eq(jstr(o, "decision"), "pending");
	ck_assert_str_eq(jstr(o, "reason"), "needs the npm token");
	ck_assert(json_equal(json_object_get(o, "argv"), a.argv));
	ck_assert(json_is_null(json_object_get(o, "decided_at")));
	json_decref(o);

	/* decide, once */
	ck_assert_int_eq(store_approval_decide(st, id1, "allow_once",
	    "uid 1000 pid 1234 via sbox approvals", &err), 0);
	ck_assert_int_eq(store_approval_decide(st, id1, "deny", "x", &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	ck_assert_ptr_nonnull(strstr(err.message, "allow_once"));
	ck_assert_int_eq(store_approval_decide(st, 777, "deny", "x", &err), -1);
	ck_assert_str_eq(err.name, E_APPROVAL_NOT_FOUND);
	ck_assert_int_eq(store_approval_decide(st, id1, "pending", "x", &err),
	    -1);
	ck_assert_str_eq(err.field, "decision");

	/* the run: command linked both ways, then the result */
	cmd = add_command(st, "s1", "npm", 1, id1);
	o = store_approval_get(st, id1, &err);
	ck_assert_int_eq(jint(o, "command_id"), cmd);
	ck_assert_str_eq(jstr(o, "command_state"), "running");
	ck_assert_str_eq(jstr(o, "decided_by"),
	    "uid 1000 pid 1234 via sbox approvals");
	ck_assert(json_is_string(json_object_get(o, "decided_at")));
	json_decref(o);
	ck_assert_int_eq(store_command_finish(st, cmd, 0, -1, 3000, "exited",
	    NULL, &err), 0);
	ck_assert_int_eq(store_approval_finish(st, id1, 0, 3000, 0, &err), 0);
	o = store_approval_get(st, id1, &err);
	ck_assert_int_eq(jint(o, "exit_code"), 0);
	ck_assert_int_eq(jint(o, "duration_ms"), 3000);
	ck_assert_int_eq(jint(o, "command_id"), cmd);
	ck_assert_str_eq(jstr(o, "command_state"), "exited");
	json_decref(o);

	/* denied, and refused at once */
	a.requested_at = 2000;
	id2 = store_approval_create(st, &a, &err);
	ck_assert_int_eq(store_approval_decide(st, id2, "deny", "uid 1000",
	    &err), 0);
	ck_assert_int_eq(store_approval_finish(st, id2, 0, 1, 0, &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	a.session = "s2";
	a.requested_at = 3000;
	a.decision = "refused_never";
	a.decided_by = "profile strict: run_outside never";
	id3 = store_approval_create(st, &a, &err);
	ck_assert_int_gt(id3, id2);
	o = store_approval_get(st, id3, &err);
	ck_assert_str_eq(jstr(o, "decision"), "refused_never");
	ck_assert(json_is_string(json_object_get(o, "decided_at")));
	json_decref(o);

	/* bad requests */
	a.decision = NULL;
	a.reason = "";
	ck_assert_int_eq(store_approval_create(st, &a, &err), -1);
	ck_assert_str_eq(err.field, "reason");
	a.reason = "r";
	a.session = "nope";
	ck_assert_int_eq(store_approval_create(st, &a, &err), -1);
	ck_assert_str_eq(err.name, E_SESSION_NOT_FOUND);
	a.session = "s1";
	a.decision = "maybe";
	ck_assert_int_eq(store_approval_create(st, &a, &err), -1);
	ck_assert_str_eq(err.field, "decision");
	ck_assert_ptr_null(store_approval_get(st, 999, &err));
	ck_assert_str_eq(err.name, E_APPROVAL_NOT_FOUND);

	/* the audit list and its filters */
	list = store_approval_list(st, NULL, 0, NULL, &err);
	ck_assert_int_eq(json_array_size(list), 3);
	ck_assert_int_eq(jint(json_array_get(list, 0), "id"), id1);
	json_decref(list);
	list = store_approval_list(st, "s1", 0, NULL, &err);
	ck_assert_int_eq(json_array_size(list), 2);
	json_decref(list);
	list = store_approval_list(st, NULL, 1500, NULL, &err);
	ck_assert_int_eq(json_array_size(list), 2);
	ck_assert_int_eq(jint(json_array_get(list, 0), "id"), id2);
	json_decref(list);
	list = store_approval_list(st, NULL, 0, "deny", &err);
	ck_assert_int_eq(json_array_size(list), 1);
	ck_assert_int_eq(jint(json_array_get(list, 0), "id"), id2);
	json_decref(list);
	ck_assert_ptr_null(store_approval_list(st, NULL, 0, "nah", &err));
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);
	json_decref(a.argv);
	store_close(st);
}
END_TEST

START_TEST(test_session_log)
{
	struct store *st = open_db();
	struct store_approval a = {0};
	sbox_error err = {0};
	json_t *log, *e, *blocked;
	long long c1, c2, ap1, ap2;

	add_session(st, "s1");
	add_session(st, "s2");
	c1 = add_command(st, "s1", "curl", 0, 0);
	store_refusal_add(st, "s1", c1, "evil.example", 443, "not allowed",
	    "network.hosts", &err);
	blocked = json_pack("{s:[s]}", "hosts", "evil.example:443");
	ck_assert_int_eq(store_command_finish(st, c1, 6, -1, 10, "exited",
	    blocked, &err), 0);
	json_decref(blocked);
	usleep(2000);
	a.session = "s1";
	a.argv = json_pack("[s]", "docker");
	a.reason = "needs docker";
	ap1 = store_approval_create(st, &a, &err);
	store_approval_decide(st, ap1, "deny", "uid 1000", &err);
	usleep(2000);
	ap2 = store_approval_create(st, &a, &err);
	store_approval_decide(st, ap2, "allow_once", "uid 1000", &err);
	usleep(2000);
	c2 = add_command(st, "s1", "docker", 1, ap2);
	store_command_finish(st, c2, 0, -1, 5, "exited", NULL, &err);
	store_approval_finish(st, ap2, 0, 5, c2, &err);
	add_command(st, "s2", "other", 0, 0);
	/* a pending refusal is still part of the log */
	store_refusal_add(st, "s1", c2, "x.example", 80, "no", NULL, &err);

	log = store_session_log(st, "s1", &err);
	ck_assert_ptr_nonnull(log);
	ck_assert_int_eq(json_array_size(log), 3);
	e = json_array_get(log, 0);
	ck_assert_int_eq(jint(e, "command_id"), c1);
	ck_assert(json_is_false(json_object_get(e, "outside")));
	ck_assert_int_eq(jint(e, "exit_code"), 6);
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(e,
	    "blocked"), "hosts")), 1);
	ck_assert_int_eq(json_array_size(json_object_get(e, "refused")), 1);
	ck_assert_str_eq(jstr(json_array_get(json_object_get(e, "refused"), 0),
	    "host"), "evil.example");
	ck_assert(json_is_null(json_object_get(e, "decision")));
	e = json_array_get(log, 1);
	ck_assert(json_is_null(json_object_get(e, "command_id")));
	ck_assert_int_eq(jint(e, "approval_id"), ap1);
	ck_assert(json_is_true(json_object_get(e, "outside")));
	ck_assert_str_eq(jstr(e, "state"), "not_run");
	ck_assert_str_eq(jstr(e, "decision"), "deny");
	ck_assert_str_eq(jstr(e, "reason"), "needs docker");
	e = json_array_get(log, 2);
	ck_assert_int_eq(jint(e, "command_id"), c2);
	ck_assert_int_eq(jint(e, "approval_id"), ap2);
	ck_assert(json_is_true(json_object_get(e, "outside")));
	ck_assert_str_eq(jstr(e, "decision"), "allow_once");
	ck_assert_str_eq(jstr(e, "decided_by"), "uid 1000");
	ck_assert_str_eq(jstr(e, "reason"), "needs docker");
	ck_assert_int_eq(jint(e, "exit_code"), 0);
	ck_assert_str_eq(jstr(json_array_get(json_object_get(e, "refused"), 0),
	    "host"), "x.example");
	json_decref(log);
	ck_assert_ptr_null(store_session_log(st, "nope", &err));
	ck_assert_str_eq(err.name, E_SESSION_NOT_FOUND);
	json_decref(a.argv);
	store_close(st);
}
END_TEST

START_TEST(test_mark_crashed)
{
	struct store *st = open_db();
	struct store_approval a = {0};
	sbox_error err = {0};
	json_t *ids, *o;
	long long c1, c2, ap;

	add_session(st, "live1");
	add_session(st, "live2");
	add_session(st, "done");
	store_session_set_state(st, "done", "closed", "client", &err);
	c1 = add_command(st, "live1", "sleep", 0, 0);
	c2 = add_command(st, "live1", "true", 0, 0);
	store_command_finish(st, c2, 0, -1, 1, "exited", NULL, &err);
	a.session = "live2";
	a.argv = json_pack("[s]", "docker");
	a.reason = "r";
	ap = store_approval_create(st, &a, &err);
	json_decref(a.argv);
	store_close(st);

	st = open_db();
	ids = store_session_mark_crashed(st, &err);
	ck_assert_ptr_nonnull(ids);
	ck_assert_int_eq(json_array_size(ids), 2);
	ck_assert_str_eq(json_string_value(json_array_get(ids, 0)), "live1");
	ck_assert_str_eq(json_string_value(json_array_get(ids, 1)), "live2");
	json_decref(ids);
	ck_assert_int_eq(store_command_mark_crashed(st, &err), 1);
	ck_assert_int_eq(store_approval_mark_crashed(st, &err), 1);
	o = store_session_get(st, "live1", &err);
	ck_assert_str_eq(jstr(o, "state"), "ended_by_crash");
	ck_assert(json_is_string(json_object_get(o, "closed_at")));
	json_decref(o);
	o = store_session_get(st, "done", &err);
	ck_assert_str_eq(jstr(o, "state"), "closed");
	json_decref(o);
	o = store_command_get(st, c1, &err);
	ck_assert_str_eq(jstr(o, "state"), "ended_by_crash");
	json_decref(o);
	o = store_command_get(st, c2, &err);
	ck_assert_str_eq(jstr(o, "state"), "exited");
	json_decref(o);
	o = store_approval_get(st, ap, &err);
	ck_assert_str_eq(jstr(o, "decision"), "not_run_crash");
	ck_assert(json_is_string(json_object_get(o, "decided_at")));
	json_decref(o);
	/* idempotent */
	ids = store_session_mark_crashed(st, &err);
	ck_assert_int_eq(json_array_size(ids), 0);
	json_decref(ids);
	ck_assert_int_eq(store_command_mark_crashed(st, &err), 0);
	ck_assert_int_eq(store_approval_mark_crashed(st, &err), 0);
	store_close(st);
}
END_TEST

START_TEST(test_survives_sigkill)
{
	struct store_approval a = {0};
	struct store *st;
	sbox_error err = {0};
	json_t *o;
	pid_t pid;
	int status;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		long long c;

		st = store_open(dbpath, &err);
		if (st == NULL)
			_exit(2);
		add_session(st, "killed");
		c = add_command(st, "killed", "make", 0, 0);
		if (store_command_finish(st, c, 0, -1, 7, "exited", NULL,
		    &err) == -1)
			_exit(3);
		a.session = "killed";
		a.argv = json_pack("[s]", "docker");
		a.reason = "r";
		if (store_approval_create(st, &a, &err) < 1)
			_exit(4);
		/* queued, never flushed: lost with the process */
		store_refusal_add(st, "killed", 0, "h", 1, "no", NULL, &err);
		kill(getpid(), SIGKILL);
		_exit(5);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGKILL);

	st = open_db();
	o = store_session_get(st, "killed", &err);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(jint(o, "commands"), 1);
	json_decref(o);
	o = store_command_list(st, "killed", &err);
	ck_assert_str_eq(jstr(json_array_get(o, 0), "state"), "exited");
	ck_assert_int_eq(jint(json_array_get(o, 0), "duration_ms"), 7);
	json_decref(o);
	o = store_approval_list(st, "killed", 0, "pending", &err);
	ck_assert_int_eq(json_array_size(o), 1);
	json_decref(o);
	o = store_refusal_recent(st, "killed", 0, &err);
	ck_assert_int_eq(json_array_size(o), 0);
	json_decref(o);
	store_close(st);
}
END_TEST

/* The suite. */
static Suite *
store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_open_creates);
	tcase_add_test(tc, test_open_widens_nothing);
	tcase_add_test(tc, test_reopen_keeps_data);
	tcase_add_test(tc, test_sessions);
	tcase_add_test(tc, test_commands);
	tcase_add_test(tc, test_approvals);
	tcase_add_test(tc, test_session_log);
	tcase_add_test(tc, test_mark_crashed);
	tcase_add_test(tc, test_survives_sigkill);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(store_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
