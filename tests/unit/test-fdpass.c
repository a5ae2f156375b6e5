/* test-fdpass.c: descriptors put into a message's control part arrive as
 * the same open files; none means no control part; more than the buffer
 * holds is refused (EMSGSIZE), never cut short. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/fdpass.h"

/* Send "x" with fds over a fresh socket pair; the descriptors received
 * (at most 8) in got, their count returned. */
static int
roundtrip(const int *fds, int nfds, int got[8])
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} out, in;
	struct iovec iov = { "x", 1 };
	struct msghdr mh = { 0 }, rh = { 0 };
	struct cmsghdr *cm;
	char c;
	int sp[2], n = 0;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sp), 0);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	ck_assert_int_eq(fdpass_put(&mh, out.buf, sizeof out.buf, fds, nfds), 0);
	if (nfds == 0)
		ck_assert_ptr_null(mh.msg_control);
	ck_assert_int_eq(sendmsg(sp[0], &mh, 0), 1);
	iov.iov_base = &c;
	rh.msg_iov = &iov;
	rh.msg_iovlen = 1;
	rh.msg_control = in.buf;
	rh.msg_controllen = sizeof in.buf;
	ck_assert_int_eq(recvmsg(sp[1], &rh, MSG_CMSG_CLOEXEC), 1);
	for (cm = CMSG_FIRSTHDR(&rh); cm != NULL; cm = CMSG_NXTHDR(&rh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			memcpy(got, CMSG_DATA(cm), sizeof(int) * (size_t)n);
		}
	close(sp[0]);
	close(sp[1]);
	return n;
}

START_TEST(test_same_files_arrive)
{
	int fds[3], got[8], i;
	struct stat a, b;

	fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fds[1] = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fds[2] = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(roundtrip(fds, 3, got), 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_ne(got[i], fds[i]);
		ck_assert_int_eq(fstat(fds[i], &a), 0);
		ck_assert_int_eq(fstat(got[i], &b), 0);
		ck_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
		close(got[i]);
		close(fds[i]);
	}
	ck_assert_int_eq(roundtrip(NULL, 0, got), 0);
}
END_TEST

START_TEST(test_too_many_refused)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 2)];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { 0 };
	int fds[3] = { 0, 1, 2 };

	errno = 0;
	ck_assert_int_eq(fdpass_put(&mh, u.buf, sizeof u.buf, fds, 3), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	ck_assert_ptr_null(mh.msg_control);
	ck_assert_int_eq(fdpass_put(&mh, u.buf, sizeof u.buf, fds, 2), 0);
	ck_assert_uint_eq(mh.msg_controllen, CMSG_SPACE(sizeof(int) * 2));
}
END_TEST

/* The suite. */
static Suite *
fdpass_suite(void)
{
	Suite *s = suite_create("fdpass");
	TCase *tc = tcase_create("fdpass");

	tcase_add_test(tc, test_same_files_arrive);
	tcase_add_test(tc, test_too_many_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(fdpass_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
