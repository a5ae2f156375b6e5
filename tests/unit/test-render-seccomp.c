/* test-render-seccomp.c: the exported program is a BPF program, and loaded
 * into a child process it refuses what it should and lets the rest through.
 * (The sandbox-level checks are in test-confine.) */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy/plan.h"
#include "policy/render-seccomp.h"

#define ALL_SYS 0x1ff

/* Read the whole program from the memfd. */
static size_t
read_prog(int fd, char *buf, size_t size)
{
	size_t off = 0;
	ssize_t n;

	while ((n = read(fd, buf + off, size - off)) > 0)
		off += (size_t)n;
	return off;
}

START_TEST(test_program_shape)
{
	static char buf[1 << 16];
	sbox_error err = { 0 };
	struct stat st;
	size_t all, none;
	int fd;

	ck_assert_int_eq(render_seccomp(ALL_SYS, &fd, &err), 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	all = read_prog(fd, buf, sizeof buf);
	close(fd);
	ck_assert_uint_gt(all, 0);
	ck_assert_uint_eq(all % sizeof(struct sock_filter), 0);
	ck_assert_uint_le(all / sizeof(struct sock_filter), BPF_MAXINSNS);

	ck_assert_int_eq(render_seccomp(0, &fd, &err), 0);
	none = read_prog(fd, buf, sizeof buf);
	close(fd);
	ck_assert_uint_gt(none, 0);
	ck_assert_uint_eq(none % sizeof(struct sock_filter), 0);
	ck_assert_uint_lt(none, all);
}
END_TEST

/* In a child: load the program, then report each probe as one byte. */
static int
probe(long rc, int want)
{
	return rc == -1 && errno == want;
}

/* In the filtered child: no call sets S_ISUID/S_ISGID or a capability,
 * plain modes still work (1 when all hold). */
static int
privbits_probes(void)
{
	char dir[] = "/tmp/sbox-seccomp-XXXXXX", p[64], q[64];
	int ok = 1, fd;

	if (mkdtemp(dir) == NULL)
		return 0;
	snprintf(p, sizeof p, "%s/f", dir);
	snprintf(q, sizeof q, "%s/d", dir);
	ok &= probe(open(p, O_CREAT | O_WRONLY, 04755), EPERM);
	ok &= probe(syscall(SYS_openat, AT_FDCWD, p, O_CREAT | O_WRONLY,
	    02755), EPERM);
	ok &= probe(creat(p, 06755), EPERM);
	ok &= probe(mknod(p, S_IFREG | 04755, 0), EPERM);
	ok &= probe(mkdir(q, 02755), EPERM);
	/* high bits set by the caller do not hide the mode */
	ok &= probe(syscall(SYS_mkdir, q, (1UL << 40) | 04755), EPERM);
	fd = open(p, O_CREAT | O_WRONLY, 0755);
	ok &= fd >= 0;
	ok &= probe(chmod(p, 04755), EPERM);
	ok &= probe(fchmod(fd, 02755), EPERM);
	ok &= probe(fchmodat(AT_FDCWD, p, 06755, 0), EPERM);
	ok &= probe(syscall(SYS_setxattr, p, "security.capability", "x", 1,
	    0), EOPNOTSUPP);
	ok &= probe(syscall(SYS_fsetxattr, fd, "user.x", "x", 1, 0),
	    EOPNOTSUPP);
	ok &= chmod(p, 0700) == 0 && fchmod(fd, 01755) == 0;
	/* open without O_CREAT ignores the mode: not refused */
	ok &= open(p, O_RDONLY, 04755) >= 0;
	ok &= mkdir(q, 0755) == 0;
	unlink(p);
	rmdir(q);
	rmdir(dir);
	return ok;
}

START_TEST(test_program_behaviour)
{
	static char buf[1 << 16];
	sbox_error err = { 0 };
	struct sock_fprog prog;
	int fd, st, ok, s;
	size_t n;
	pid_t pid;

	ck_assert_int_eq(render_seccomp(ALL_SYS, &fd, &err), 0);
	n = read_prog(fd, buf, sizeof buf);
	close(fd);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prog.len = (unsigned short)(n / sizeof(struct sock_filter));
		prog.filter = (struct sock_filter *)buf;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(100);
		ok = 1;
		ok &= probe(syscall(SYS_clone3, NULL, 0), ENOSYS);
		ok &= probe(unshare(CLONE_NEWUSER), EPERM);
		ok &= probe(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0,
		    0), EPERM);
		ok &= probe(syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0,
		    0), EPERM);
		ok &= probe(syscall(SYS_ioctl, 0, TIOCSTI, "x"), EPERM);
		ok &= probe(syscall(SYS_ioctl, 0, (1UL << 32) | TIOCSTI, "x"),
		    EPERM);
		ok &= probe(syscall(SYS_ioctl, 0, TIOCLINUX, "x"), EPERM);
		/* the terminal ioctls that change the other side (fd -1:
		 * EBADF if the filter let one through) */
		ok &= probe(syscall(SYS_ioctl, -1, TIOCSETD, "x"), EPERM);
		ok &= probe(syscall(SYS_ioctl, -1, (1UL << 32) | TIOCSETD,
		    "x"), EPERM);
		ok &= probe(syscall(SYS_ioctl, -1, TIOCCONS, 0), EPERM);
		ok &= probe(syscall(SYS_ioctl, -1, TIOCEXCL, 0), EPERM);
		ok &= probe(syscall(SYS_ioctl, -1, TIOCSSERIAL, "x"), EPERM);
		ok &= probe(syscall(SYS_ioctl, -1, TIOCVHANGUP, 0), EPERM);
		ok &= probe(syscall(SYS_ioctl, -1, TIOCSCTTY, 1), EPERM);
		/* what sbox-init does on the sandbox's own pty passes */
		ok &= probe(syscall(SYS_ioctl, -1, TIOCSCTTY, 0), EBADF);
		ok &= probe(syscall(SYS_ioctl, -1, TCSETS, "x"), EBADF);
		ok &= probe(syscall(SYS_ptrace, 0, 0, 0, 0), EPERM);
		ok &= probe(syscall(SYS_keyctl, 0, 0, 0, 0), EPERM);
		ok &= probe(syscall(SYS_io_uring_setup, 1, NULL), EPERM);
		ok &= probe(socket(AF_PACKET, SOCK_RAW, 0),
		    RENDER_SECCOMP_SOCKET_ERRNO);
		ok &= probe(socket(AF_VSOCK, SOCK_STREAM, 0),
		    RENDER_SECCOMP_SOCKET_ERRNO);
		ok &= probe(personality(PER_LINUX32), EPERM);
		ok &= personality(0xffffffff) >= 0;
		ok &= personality(PER_LINUX) >= 0;
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		ok &= s >= 0;
		ok &= socket(AF_INET, SOCK_STREAM, 0) >= 0;
		ok &= privbits_probes();
		/* Plain fork still works (clone without namespace flags). */
		pid = fork();
		if (pid == 0)
			_exit(0);
		ok &= pid > 0 && waitpid(pid, NULL, 0) == pid;
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

START_TEST(test_flags_select_rules)
{
	static char buf[1 << 16];
	sbox_error err = { 0 };
	struct sock_fprog prog;
	int fd, st, ok;
	size_t n;
	pid_t pid;

	/* Only the keyring blocked: unshare is not refused by the filter. */
	ck_assert_int_eq(render_seccomp(PLAN_SYS_BLOCK_KEYRING, &fd, &err), 0);
	n = read_prog(fd, buf, sizeof buf);
	close(fd);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prog.len = (unsigned short)(n / sizeof(struct sock_filter));
		prog.filter = (struct sock_filter *)buf;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(100);
		ok = probe(syscall(SYS_keyctl, 0, 0, 0, 0), EPERM);
		ok &= syscall(SYS_clone3, NULL, 0) == -1 && errno != ENOSYS;
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("render-seccomp");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_program_shape);
	tcase_add_test(tc, test_program_behaviour);
	tcase_add_test(tc, test_flags_select_rules);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
