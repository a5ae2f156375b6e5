/* test-dispatch.c: the one place requests become calls and errors become
 * JSON-RPC errors (daemon/rpc/dispatch.c), driven through a real
 * connection on a socket pair and the real method tables: parse errors,
 * invalid requests, unknown methods, notifications, batches, ids still in
 * flight, methods a sandbox may not call, bad params. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "daemon/rpc/conn.h"
#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"

static int peer = -1;            /* our end of the socket pair */
static char pending[65536];      /* bytes read, not yet a whole line */
static size_t npending;

/* A daemon's loop and one connection (inside_session: a sandbox's). */
static void
open_conn(const char *inside_session)
{
	int sv[2];

	if (sboxd.base == NULL) {
		sboxd.base = event_base_new();
		sboxd.lim.max_line = 1024 * 1024;
		sboxd.lim.max_conns = 16;
		sboxd.lim.max_conns_per_uid = 16;
		sboxd.lim.max_inflight = 64;
		sboxd.lim.max_output_queue = 1 << 20;
		conn_start();
		dispatch_start();
	}
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
	    0);
	ck_assert_ptr_nonnull(conn_new(sv[0], getuid(), getgid(), getpid(),
	    inside_session));
	peer = sv[1];
	npending = 0;
}

/* Send one line (a newline is added). */
static void
send_line(const char *text)
{
	size_t n = strlen(text);

	ck_assert_int_eq((int)write(peer, text, n), (int)n);
	ck_assert_int_eq((int)write(peer, "\n", 1), 1);
}

/* The next reply line as JSON, or NULL when none comes within ms. */
static json_t *
reply(int ms)
{
	struct pollfd pfd = { .fd = peer, .events = POLLIN };
	char *nl;
	ssize_t n;
	int i;
	json_t *j;

	for (i = 0; i < ms; i++) {
		if ((nl = memchr(pending, '\n', npending)) != NULL) {
			*nl = '\0';
			j = json_loads(pending, 0, NULL);
			npending -= (size_t)(nl + 1 - pending);
			memmove(pending, nl + 1, npending);
			ck_assert_ptr_nonnull(j);
			return j;
		}
		event_base_loop(sboxd.base, EVLOOP_NONBLOCK);
		if (poll(&pfd, 1, 1) == 1 && (n = read(peer, pending + npending,
		    sizeof pending - npending)) > 0)
			npending += (size_t)n;
	}
	return NULL;
}

/* The error code of a reply (0: none). */
static int
code_of(const json_t *r)
{
	return (int)json_integer_value(json_object_get(json_object_get(r,
	    "error"), "code"));
}

/* Close our end (the daemon's end follows). */
static void
close_conn(void)
{
	close(peer);
	peer = -1;
	event_base_loop(sboxd.base, EVLOOP_NONBLOCK);
}

START_TEST(test_parse_and_envelope_errors)
{
	json_t *r;

	open_conn(NULL);
	send_line("{not json");
	r = reply(2000);
	ck_assert_int_eq(code_of(r), -32700);
	ck_assert(json_is_null(json_object_get(r, "id")));
	json_decref(r);
	send_line("{\"id\": 1, \"method\": \"rpc.ping\"}");	/* no jsonrpc */
	r = reply(2000);
	ck_assert_int_eq(code_of(r), -32600);
	json_decref(r);
	send_line("[]");
	r = reply(2000);
	ck_assert_int_eq(code_of(r), -32600);
	json_decref(r);
	send_line("{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"no.such\"}");
	r = reply(2000);
	ck_assert_int_eq(code_of(r), -32601);
	ck_assert_int_eq((int)json_integer_value(json_object_get(r, "id")), 2);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(
	    json_object_get(r, "error"), "message")), "no.such"));
	json_decref(r);
	/* and the connection still serves */
	send_line("{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"rpc.ping\"}");
	r = reply(2000);
	ck_assert_int_eq(code_of(r), 0);
	ck_assert_ptr_nonnull(json_object_get(r, "result"));
	json_decref(r);
	close_conn();
}
END_TEST

START_TEST(test_notifications_and_batches)
{
	json_t *r;

	open_conn(NULL);
	/* a notification gets no answer, even for an unknown method */
	send_line("{\"jsonrpc\": \"2.0\", \"method\": \"rpc.ping\"}");
	send_line("{\"jsonrpc\": \"2.0\", \"method\": \"no.such\"}");
	send_line("{\"jsonrpc\": \"2.0\", \"id\": \"a\", \"method\": "
	    "\"rpc.ping\"}");
	r = reply(2000);
	ck_assert_str_eq(json_string_value(json_object_get(r, "id")), "a");
	json_decref(r);
	/* a batch: one array of the answers, none for its notification */
	send_line("[{\"jsonrpc\": \"2.0\", \"id\": 10, \"method\": "
	    "\"rpc.ping\"}, {\"jsonrpc\": \"2.0\", \"method\": \"rpc.ping\"}, "
	    "{\"jsonrpc\": \"2.0\", \"id\": 11, \"method\": \"no.such\"}]");
	r = reply(2000);
	ck_assert(json_is_array(r));
	ck_assert_int_eq((int)json_array_size(r), 2);
	json_decref(r);
	/* a batch of notifications only: nothing */
	send_line("[{\"jsonrpc\": \"2.0\", \"method\": \"rpc.ping\"}]");
	ck_assert_ptr_null(reply(300));
	/* $/cancelRequest with an id is refused */
	send_line("{\"jsonrpc\": \"2.0\", \"id\": 12, \"method\": "
	    "\"$/cancelRequest\", \"params\": {\"id\": 1}}");
	r = reply(2000);
	ck_assert_int_eq(code_of(r), -32600);
	json_decref(r);
	close_conn();
}
END_TEST

START_TEST(test_params_and_sandbox_callers)
{
	json_t *r;

	open_conn(NULL);
	/* params of the wrong type */
	send_line("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": "
	    "\"session.info\", \"params\": {\"session\": 5}}");
	r = reply(2000);
	ck_assert_int_eq(code_of(r), -32602);
	json_decref(r);
	send_line("{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": "
	    "\"rpc.ping\", \"params\": [1]}");
	r = reply(2000);
	ck_assert_int_ne(code_of(r), 0);
	json_decref(r);
	close_conn();
	/* a connection from inside a sandbox: host-only methods refused */
	open_conn("0123456789abcdef");
	send_line("{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": "
	    "\"daemon.stop\"}");
	r = reply(2000);
	ck_assert_int_ne(code_of(r), 0);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(
	    json_object_get(r, "error"), "message")), "inside a sandbox"));
	json_decref(r);
	close_conn();
}
END_TEST

START_TEST(test_method_table)
{
	const struct rpc_method *m = dispatch_find("rpc.ping");

	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->name, "rpc.ping");
	ck_assert_ptr_null(dispatch_find("rpc.pingx"));
	ck_assert_ptr_null(dispatch_find(""));
}
END_TEST

/* Suite of the dispatcher. */
static Suite *
dispatch_suite(void)
{
	Suite *s = suite_create("dispatch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_parse_and_envelope_errors);
	tcase_add_test(tc, test_notifications_and_batches);
	tcase_add_test(tc, test_params_and_sandbox_callers);
	tcase_add_test(tc, test_method_table);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(dispatch_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
