/* test-proxy-msg.c: the datagrams between sboxd and its proxy process: a
 * message and its descriptors arrive whole; what is malformed, oversized or
 * not an object with a kind is dropped with its descriptors. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "daemon/proxy/proxy-msg.h"
#include "protocol/channel.h"

/* A SOCK_SEQPACKET pair. */
static void
pair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
}

/* True when fd is open. */
static int
is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

START_TEST(test_roundtrip_with_fds)
{
	int sv[2], p[2], fds[PROXY_MSG_FDS], nfds;
	json_t *o = json_pack("{s:s, s:i}", "type", "session", "id", 7), *m;
	char c = 0;

	pair(sv);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(proxy_msg_send(sv[0], o, p, 2), 0);
	ck_assert_int_eq(proxy_msg_recv(sv[1], &m, fds, &nfds), 1);
	ck_assert_str_eq(channel_type(m), "session");
	ck_assert_int_eq(json_integer_value(json_object_get(m, "id")), 7);
	ck_assert_int_eq(nfds, 2);
	/* the descriptors are the pipe's ends */
	ck_assert_int_eq(write(fds[1], "x", 1), 1);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	ck_assert_int_eq(c, 'x');
	ck_assert(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	json_decref(m);
	close(fds[0]);
	close(fds[1]);
	close(p[0]);
	close(p[1]);
	/* nothing more: EAGAIN, not a block */
	ck_assert_int_eq(proxy_msg_recv(sv[1], &m, fds, &nfds) == -1 &&
	    errno == EAGAIN, 1);
	close(sv[0]);
	ck_assert_int_eq(proxy_msg_recv(sv[1], &m, fds, &nfds), 0);
	close(sv[1]);
	json_decref(o);
}
END_TEST

START_TEST(test_malformed_dropped_with_fds)
{
	static const char *bad[] = { "not json", "[1,2]", "{\"x\":1}",
	    "{\"type\":5}", "{\"type\":\"a\",\"type\":\"b\"}" };
	int sv[2], p[2], fds[PROXY_MSG_FDS], nfds;
	size_t i;
	json_t *m;

	pair(sv);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct msghdr mh;
		struct iovec iov = { (void *)bad[i], strlen(bad[i]) };
		struct cmsghdr *cm;

		ck_assert_int_eq(pipe(p), 0);
		memset(&mh, 0, sizeof mh);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof cbuf;
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &p[0], sizeof(int));
		ck_assert_int_eq(sendmsg(sv[0], &mh, 0), (ssize_t)strlen(bad[i]));
		close(p[0]);
		ck_assert_int_eq(proxy_msg_recv(sv[1], &m, fds, &nfds), -1);
		ck_assert_int_eq(errno, EBADMSG);
		ck_assert_ptr_null(m);
		ck_assert_int_eq(nfds, 0);
		/* the received copy was closed: the pipe has no reader left */
		ck_assert_int_eq(write(p[1], "x", 1) == -1 && errno == EPIPE, 1);
		close(p[1]);
	}
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(test_bounds)
{
	int sv[2], fds[PROXY_MSG_FDS + 1], nfds, i;
	char *big = malloc(PROXY_MSG_MAX + 10);
	json_t *o;

	pair(sv);
	memset(big, 'a', PROXY_MSG_MAX + 9);
	big[PROXY_MSG_MAX + 9] = '\0';
	o = json_pack("{s:s, s:s}", "type", "x", "v", big);
	ck_assert_int_eq(proxy_msg_send(sv[0], o, NULL, 0), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	json_decref(o);
	o = json_pack("{s:s}", "type", "x");
	for (i = 0; i < PROXY_MSG_FDS + 1; i++)
		fds[i] = 0;
	ck_assert_int_eq(proxy_msg_send(sv[0], o, fds, PROXY_MSG_FDS + 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	json_decref(o);
	/* a datagram longer than a message is refused whole */
	ck_assert_int_eq(send(sv[0], big, PROXY_MSG_MAX + 9, 0),
	    PROXY_MSG_MAX + 9);
	ck_assert_int_eq(proxy_msg_recv(sv[1], &o, fds, &nfds), -1);
	ck_assert_int_eq(errno, EBADMSG);
	ck_assert_int_eq(is_open(sv[1]), 1);
	free(big);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

static Suite *
proxy_msg_suite(void)
{
	Suite *s = suite_create("proxy-msg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_roundtrip_with_fds);
	tcase_add_test(tc, test_malformed_dropped_with_fds);
	tcase_add_test(tc, test_bounds);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(proxy_msg_suite());
	int failed;

	signal(SIGPIPE, SIG_IGN);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
