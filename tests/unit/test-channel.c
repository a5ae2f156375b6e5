/* test-channel.c: the one dispatch of sboxd's channels (protocol/channel.c):
 * a message goes over a real SEQPACKET pair (protocol/ctl.c) and through a
 * table; an unknown type, the wrong sender, the wrong descriptors and a
 * missing or ill-typed field are refused before the handler runs, and a
 * good message reaches its handler once. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "protocol/channel.h"
#include "protocol/ctl.h"

/* What the handlers saw. */
static int calls, seen_nfds, ctx_token;
static void *seen_ctx;
static long long seen_id;

/* ping {id, path, name?, args[]}: counted; keeps its first descriptor. */
static int
on_ping(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)err;
	calls++;
	seen_ctx = ctx;
	seen_nfds = nfds;
	seen_id = json_integer_value(json_object_get(m, "id"));
	if (nfds > 0) {
		close(fds[0]);
		fds[0] = -1;
	}
	return 0;
}

/* nope {}: always refused, with a reason. */
static int
on_nope(void *ctx, json_t *m, int *fds, int nfds, sbox_error *err)
{
	(void)ctx; (void)m; (void)fds; (void)nfds;
	calls++;
	return error_set(err, E_INVALID_REQUEST, "not now");
}

static const struct channel_field f_ping[] = {
	{ "id", CHANNEL_INT, 0, 1, 1000 },
	{ "path", CHANNEL_PATH, 0, 1, 64 },
	{ "name", CHANNEL_STR, CHANNEL_OPTIONAL, 1, 8 },
	{ "args", CHANNEL_STRV, 0, 1, 3 },
	{ "req", CHANNEL_INT, CHANNEL_OPTIONAL | CHANNEL_NULLABLE, 0, 9 },
	{ NULL, 0, 0, 0, 0 }
};
static const struct channel_row rows[] = {
	{ "ping", on_ping, CHANNEL_INIT, 0, 1, f_ping },
	{ "nope", on_nope, CHANNEL_INIT | CHANNEL_PROXY, 0, 0, NULL },
	{ "daemon_only", on_ping, CHANNEL_SBOXD, 0, 0, NULL },
};
static const struct channel_table table = { "test from sbox-init", rows,
    sizeof rows / sizeof rows[0] };

/* Send text over a fresh SEQPACKET pair (with fd when >= 0), receive it
 * with ctl_recv and dispatch it as sent by from: channel_dispatch's
 * result, err filled; *left: the descriptors the handler did not take. */
static int
send_and_dispatch(const char *text, int fd, unsigned from, sbox_error *err,
    int *left)
{
	int sv[2], fds[CTL_FDS_MAX], nfds, rc, i;
	sbox_error e = { 0 };
	json_t *m;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
	ck_assert_int_eq(ctl_send_text(sv[0], text, strlen(text),
	    fd >= 0 ? &fd : NULL, fd >= 0 ? 1 : 0, &e), 0);
	ck_assert_int_eq(ctl_recv(sv[1], &m, fds, &nfds, CTL_FDS_MAX, &e),
	    CTL_MSG);
	error_clear(err);
	rc = channel_dispatch(&table, from, &ctx_token, m, fds, nfds, err);
	*left = 0;
	for (i = 0; i < nfds; i++)
		if (fds[i] >= 0) {
			(*left)++;
			close(fds[i]);
		}
	json_decref(m);
	close(sv[0]);
	close(sv[1]);
	return rc;
}

/* Dispatch text from sbox-init with no descriptor: the result. */
static int
run(const char *text, sbox_error *err)
{
	int left;

	return send_and_dispatch(text, -1, CHANNEL_INIT, err, &left);
}

START_TEST(test_good_message_dispatched_once)
{
	sbox_error err;
	int p[2], left;

	calls = 0;
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(send_and_dispatch("{\"type\":\"ping\",\"id\":7,"
	    "\"path\":\"/a/b\",\"name\":\"x\",\"args\":[\"a\",\"b\"],"
	    "\"req\":null,\"extra\":{}}", p[0], CHANNEL_INIT, &err, &left), 0);
	ck_assert_int_eq(calls, 1);
	ck_assert_ptr_eq(seen_ctx, &ctx_token);
	ck_assert_int_eq(seen_id, 7);
	ck_assert_int_eq(seen_nfds, 1);
	ck_assert_int_eq(left, 0);   /* the handler took it */
	ck_assert(!error_isset(&err));
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_unknown_type_refused)
{
	sbox_error err;

	calls = 0;
	ck_assert_int_eq(run("{\"type\":\"pong\",\"id\":1}", &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_REQUEST);
	ck_assert_ptr_nonnull(strstr(err.message, "unknown message type pong"));
	ck_assert_ptr_nonnull(strstr(err.message, "test from sbox-init"));
	/* no type, a type that is not a string, an empty one */
	ck_assert_int_eq(run("{\"id\":1}", &err), -1);
	ck_assert_int_eq(run("{\"type\":3}", &err), -1);
	ck_assert_int_eq(run("{\"type\":\"\"}", &err), -1);
	ck_assert_int_eq(calls, 0);
	ck_assert_ptr_null(channel_row(&table, "pong"));
	ck_assert_ptr_eq(channel_row(&table, "nope"), &rows[1]);
}
END_TEST

START_TEST(test_wrong_sender_refused)
{
	sbox_error err;
	int left;

	calls = 0;
	ck_assert_int_eq(send_and_dispatch("{\"type\":\"daemon_only\"}", -1,
	    CHANNEL_INIT, &err, &left), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "sbox-init may not send "
	    "daemon_only"));
	ck_assert_int_eq(send_and_dispatch("{\"type\":\"ping\",\"id\":1,"
	    "\"path\":\"/\",\"args\":[\"a\"]}", -1, CHANNEL_PROXY, &err,
	    &left), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "the proxy may not send "
	    "ping"));
	/* a sender is one side, never a mask of two */
	ck_assert_int_eq(send_and_dispatch("{\"type\":\"ping\",\"id\":1,"
	    "\"path\":\"/\",\"args\":[\"a\"]}", -1, CHANNEL_INIT |
	    CHANNEL_SBOXD, &err, &left), -1);
	ck_assert_int_eq(calls, 0);
}
END_TEST

START_TEST(test_fields_missing_or_ill_typed_refused)
{
	static const char *const bad[] = {
	    /* missing */
	    "{\"type\":\"ping\",\"path\":\"/\",\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":1,\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"/\"}",
	    /* ill-typed or out of range */
	    "{\"type\":\"ping\",\"id\":\"1\",\"path\":\"/\",\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":1.0,\"path\":\"/\",\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":0,\"path\":\"/\",\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":1001,\"path\":\"/\",\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":null,\"path\":\"/\",\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"a/b\",\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"/\",\"name\":\"\","
	    "\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"/\",\"name\":\"123456789\","
	    "\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"/\",\"name\":null,"
	    "\"args\":[\"a\"]}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"/\",\"args\":[]}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"/\",\"args\":[\"a\",1]}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"/\","
	    "\"args\":[\"a\",\"b\",\"c\",\"d\"]}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"/\",\"args\":\"a\"}",
	    "{\"type\":\"ping\",\"id\":1,\"path\":\"/\",\"args\":[\"a\"],"
	    "\"req\":10}",
	};
	sbox_error err;
	size_t i;

	calls = 0;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(run(bad[i], &err) == -1, "taken: %s", bad[i]);
		ck_assert_str_eq(err.name, E_INVALID_REQUEST);
		ck_assert_msg(err.field[0] != '\0', "no field named: %s", bad[i]);
	}
	ck_assert_int_eq(calls, 0);
	/* a NUL inside a string (which ctl_recv's parse refuses already) */
	{
		json_t *m = json_pack("{s:s, s:i, s:o, s:[s]}", "type", "ping",
		    "id", 1, "path", json_stringn("/a\0b", 4), "args", "a");

		ck_assert_int_eq(channel_dispatch(&table, CHANNEL_INIT, NULL, m,
		    NULL, 0, &err), -1);
		ck_assert_str_eq(err.field, "path");
		json_object_set_new(m, "path", json_string("/"));
		json_object_set_new(m, "args", json_pack("[o]",
		    json_stringn("a\0", 2)));
		ck_assert_int_eq(channel_dispatch(&table, CHANNEL_INIT, NULL, m,
		    NULL, 0, &err), -1);
		ck_assert_str_eq(err.field, "args");
		json_decref(m);
	}
	ck_assert_int_eq(calls, 0);
	/* the field is named */
	ck_assert_int_eq(run("{\"type\":\"ping\",\"id\":1,\"path\":\"x\","
	    "\"args\":[\"a\"]}", &err), -1);
	ck_assert_str_eq(err.field, "path");
	ck_assert_ptr_nonnull(strstr(err.message, "ping"));
}
END_TEST

START_TEST(test_descriptors_counted)
{
	sbox_error err;
	int p[2], left;

	calls = 0;
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(send_and_dispatch("{\"type\":\"nope\"}", p[0],
	    CHANNEL_INIT, &err, &left), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "descriptors"));
	ck_assert_int_eq(left, 1);   /* the caller's to close */
	ck_assert_int_eq(calls, 0);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_handler_refusal_says_why)
{
	sbox_error err;

	calls = 0;
	ck_assert_int_eq(run("{\"type\":\"nope\"}", &err), -1);
	ck_assert_int_eq(calls, 1);
	ck_assert_ptr_nonnull(strstr(err.message, "nope: not now"));
}
END_TEST

static Suite *
channel_suite(void)
{
	Suite *s = suite_create("channel");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_good_message_dispatched_once);
	tcase_add_test(tc, test_unknown_type_refused);
	tcase_add_test(tc, test_wrong_sender_refused);
	tcase_add_test(tc, test_fields_missing_or_ill_typed_refused);
	tcase_add_test(tc, test_descriptors_counted);
	tcase_add_test(tc, test_handler_refusal_says_why);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(channel_suite());
	int failed;

	signal(SIGPIPE, SIG_IGN);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
