/* test-ctl.c: the control channel's messages and its send queue: a full
 * socket queues (in order, with the descriptors), a full queue is a clear
 * E_LIMIT, and a flush once the reader drains sends everything. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "protocol/ctl.h"

/* A non-blocking sender and a blocking receiver. The sender's buffer is
 * small: each message waiting in it holds a descriptor in flight, which
 * the kernel counts per user against RLIMIT_NOFILE (a full default buffer
 * holds thousands, and a sandbox of the same uid started meanwhile could
 * not pass its guard's listener: ETOOMANYREFS). */
static void
pair(int sp[2])
{
	int small = 4096;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sp), 0);
	ck_assert_int_eq(setsockopt(sp[0], SOL_SOCKET, SO_SNDBUF, &small,
	    sizeof small), 0);
	ck_assert_int_eq(fcntl(sp[0], F_SETFL, O_NONBLOCK), 0);
}

/* Receive one message; its "n". */
static long long
recv_n(int fd, int *nfds)
{
	sbox_error err = { 0 };
	int fds[CTL_FDS_MAX];
	json_t *m;
	long long n;

	ck_assert_int_eq(ctl_recv(fd, &m, fds, nfds, CTL_FDS_MAX, &err), CTL_MSG);
	n = json_integer_value(json_object_get(m, "n"));
	json_decref(m);
	ctl_close_fds(fds, *nfds);
	return n;
}

START_TEST(test_queue_order_and_fds)
{
	sbox_error err = { 0 };
	struct ctl_queue *q = ctl_queue_new();
	int sp[2], fd, nfds, rc, queued = 0, i, total;
	json_t *m;

	pair(sp);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	/* send until the socket is full and messages wait in the queue */
	for (i = 0; queued < 50; i++) {
		m = ctl_msg("spawn", "{s:i, s:s}", "n", i, "pad",
		    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		rc = ctl_queue_send(q, sp[0], m, &fd, 1, &err);
		json_decref(m);
		ck_assert_int_ge(rc, 0);
		queued += rc == 1;
		ck_assert(i < 100000);
	}
	total = i;
	ck_assert_uint_eq(ctl_queue_len(q), 50);
	/* the caller's descriptor stays its own: the queue holds copies */
	close(fd);
	/* the reader drains; flushes send the rest, in order */
	for (i = 0; i < total; i++) {
		if (ctl_queue_len(q) > 0)
			ck_assert_int_ge(ctl_queue_flush(q, sp[0], &err), 0);
		ck_assert_int_eq(recv_n(sp[1], &nfds), i);
		ck_assert_int_eq(nfds, 1);
	}
	ck_assert_int_eq(ctl_queue_flush(q, sp[0], &err), 0);
	ck_assert_uint_eq(ctl_queue_len(q), 0);
	ctl_queue_free(q);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

START_TEST(test_queue_bound)
{
	sbox_error err = { 0 };
	struct ctl_queue *q = ctl_queue_new();
	int sp[2], rc, i;
	json_t *m;

	pair(sp);
	q->max_msgs = 3;
	for (i = 0; ; i++) {
		m = ctl_msg("kill", "{s:i}", "n", i);
		rc = ctl_queue_send(q, sp[0], m, NULL, 0, &err);
		json_decref(m);
		if (rc < 0)
			break;
		ck_assert(i < 100000);
	}
	ck_assert_str_eq(err.name, E_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.message, "not keeping up"));
	ck_assert_uint_eq(ctl_queue_len(q), 3);
	/* a closed reader is an error of the socket, not a queue entry */
	close(sp[1]);
	ck_assert_int_eq(ctl_queue_flush(q, sp[0], &err), -1);
	ck_assert_str_eq(err.name, E_IO);
	ctl_queue_free(q);
	close(sp[0]);
}
END_TEST

/* A message passed on as it came (sbox-init to a spare): the same bytes
 * and descriptors arrive; a failed or empty receive leaves no text. */
START_TEST(test_pass_on_text)
{
	sbox_error err = { 0 };
	int a[2], b[2], fd, fds[CTL_FDS_MAX], nfds;
	const char *text;
	size_t len;
	json_t *m, *got;

	pair(a);
	pair(b);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	m = ctl_msg("spawn", "{s:i, s:[s,s]}", "n", 7, "argv", "a\"b", "\u00e9");
	ck_assert_int_eq(ctl_send(a[0], m, &fd, 1, &err), 0);
	ck_assert_int_eq(ctl_recv(a[1], &got, fds, &nfds, CTL_FDS_MAX, &err),
	    CTL_MSG);
	ck_assert_int_eq(nfds, 1);
	ck_assert_ptr_nonnull(text = ctl_recv_text(&len));
	ck_assert_int_eq(ctl_send_text(b[0], text, len, fds, nfds, &err), 0);
	ctl_close_fds(fds, nfds);
	json_decref(got);
	ck_assert_int_eq(ctl_recv(b[1], &got, fds, &nfds, CTL_FDS_MAX, &err),
	    CTL_MSG);
	ck_assert_int_eq(nfds, 1);
	ck_assert(json_equal(got, m));
	ctl_close_fds(fds, nfds);
	json_decref(got);
	/* nothing waiting: no text of an earlier message */
	fcntl(b[1], F_SETFL, O_NONBLOCK);
	ck_assert_int_eq(ctl_recv(b[1], &got, fds, &nfds, CTL_FDS_MAX, &err),
	    CTL_AGAIN);
	ck_assert_ptr_null(ctl_recv_text(&len));
	ck_assert_int_eq(ctl_send_text(b[0], "{}", CTL_MSG_MAX + 1, NULL, 0,
	    &err), -1);
	json_decref(m);
	close(fd);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}
END_TEST

/* The suite. */
static Suite *
ctl_suite(void)
{
	Suite *s = suite_create("ctl");
	TCase *tc = tcase_create("queue");

	tcase_add_test(tc, test_queue_order_and_fds);
	tcase_add_test(tc, test_queue_bound);
	tcase_add_test(tc, test_pass_on_text);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ctl_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
