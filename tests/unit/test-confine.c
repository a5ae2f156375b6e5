/* test-confine.c: what confines a real container: seccomp (the test binary
 * re-runs itself inside as a probe: `test-confine --probe NAME`), limits,
 * and the proxy's listeners in its network namespace. Run it as root and
 * as an unprivileged user. */
#include "tests/unit/container-fixture.h"

/* ---------- probe mode: runs inside the sandbox ---------- */

/* Call one system call by name; returns errno (0 = it succeeded). */
static int
probe_call(const char *name)
{
	struct iovec l, r;
	char a[8], b[8] = "abcdefg";
	long rc = -2;
	int fd;

	errno = 0;
	if (strcmp(name, "unshare") == 0)
		rc = unshare(CLONE_NEWUSER);
	else if (strcmp(name, "unshare_net") == 0)
		rc = unshare(CLONE_NEWNET);
	else if (strcmp(name, "clone_newuser") == 0)
		rc = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	else if (strcmp(name, "clone3") == 0)
		rc = syscall(SYS_clone3, NULL, 0);
	else if (strcmp(name, "tiocsti") == 0)
		rc = syscall(SYS_ioctl, 0, TIOCSTI, "x");
	else if (strcmp(name, "tiocsti_high") == 0)
		rc = syscall(SYS_ioctl, 0, (1UL << 32) | TIOCSTI, "x");
	else if (strcmp(name, "tioclinux") == 0)
		rc = syscall(SYS_ioctl, 0, TIOCLINUX, "x");
	else if (strcmp(name, "ptrace") == 0)
		rc = syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
	else if (strcmp(name, "perf_event_open") == 0)
		rc = syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
	else if (strcmp(name, "af_packet") == 0)
		rc = socket(AF_PACKET, SOCK_RAW, 0);
	else if (strcmp(name, "af_vsock") == 0)
		rc = socket(AF_VSOCK, SOCK_STREAM, 0);
	else if (strcmp(name, "af_inet") == 0)
		rc = socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : -1;
	else if (strcmp(name, "io_uring_setup") == 0)
		rc = syscall(SYS_io_uring_setup, 1, NULL);
	else if (strcmp(name, "mount") == 0)
		rc = mount("none", "/tmp", "tmpfs", 0, NULL);
	else if (strcmp(name, "umount") == 0)
		rc = umount2("/proc", MNT_DETACH);
	else if (strcmp(name, "personality") == 0)
		rc = personality(PER_LINUX32);
	else if (strcmp(name, "personality_query") == 0)
		rc = personality(0xffffffff) >= 0 ? 0 : -1;
	else if (strcmp(name, "keyctl") == 0)
		rc = syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */, -3, 0);
	else if (strcmp(name, "add_key") == 0)
		rc = syscall(SYS_add_key, "user", "k", "v", 1, -3);
	else if (strcmp(name, "process_vm_readv") == 0) {
		l.iov_base = a;
		l.iov_len = sizeof a;
		r.iov_base = b;
		r.iov_len = sizeof b;
		rc = syscall(SYS_process_vm_readv, getpid(), &l, 1, &r, 1, 0);
	} else if (strcmp(name, "chroot") == 0)
		rc = chroot("/");
	else if (strcmp(name, "pivot_root") == 0)
		rc = syscall(SYS_pivot_root, "/tmp", "/tmp");
	else if (strcmp(name, "setns") == 0) {
		fd = open("/proc/self/ns/net", O_RDONLY);
		rc = syscall(SYS_setns, fd, 0);
	} else if (strcmp(name, "fsopen") == 0)
		rc = syscall(SYS_fsopen, "tmpfs", 0);
	else if (strcmp(name, "open_tree") == 0)
		rc = syscall(SYS_open_tree, AT_FDCWD, "/tmp", 0);
	else if (strcmp(name, "bpf") == 0)
		rc = syscall(SYS_bpf, 0, NULL, 0);
	else if (strcmp(name, "userfaultfd") == 0)
		rc = syscall(SYS_userfaultfd, 0);
	else if (strcmp(name, "fork") == 0) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		rc = p > 0 && waitpid(p, NULL, 0) == p ? 0 : -1;
	} else
		return 250;
	return rc == -1 ? errno : 0;
}

/* Connect to the proxy port inside, say ping, expect pong. */
static int
probe_connect(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char buf[4];
	int fd;

	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		return 1;
	if (write(fd, "ping", 4) != 4 || read(fd, buf, 4) != 4 ||
	    memcmp(buf, "pong", 4) != 0)
		return 2;
	return 0;
}

/* Run this binary inside as `--probe name`; returns the errno it saw. */
static int
probe(struct tctx *t, const char *name)
{
	char *argv[] = { self_path, "--probe", (char *)name, NULL };
	struct cmdres r;
	char out[256];

	run_cmd(t, argv, 0, out, sizeof out, &r);
	ck_assert_msg(!r.failed && r.sig == 0, "probe %s: %s", name,
	    r.err.message);
	return r.code;
}

/* Each blocked call and the errno it must fail with. */
static const struct {
	const char *name;
	int         err;
} probes[] = {
	{ "unshare", EPERM }, { "unshare_net", EPERM },
	{ "clone_newuser", EPERM }, { "clone3", ENOSYS },
	{ "tiocsti", EPERM }, { "tiocsti_high", EPERM }, { "tioclinux", EPERM },
	{ "ptrace", EPERM }, { "perf_event_open", EPERM },
	{ "af_packet", EAFNOSUPPORT }, { "af_vsock", EAFNOSUPPORT },
	{ "io_uring_setup", EPERM }, { "mount", EPERM }, { "umount", EPERM },
	{ "personality", EPERM }, { "keyctl", EPERM }, { "add_key", EPERM },
	{ "process_vm_readv", EPERM }, { "chroot", EPERM },
	{ "pivot_root", EPERM }, { "setns", EPERM }, { "fsopen", EPERM },
	{ "open_tree", EPERM }, { "bpf", EPERM }, { "userfaultfd", EPERM },
	/* and what must keep working */
	{ "af_inet", 0 }, { "personality_query", 0 }, { "fork", 0 },
};

START_TEST(test_seccomp)
{
	struct tctx t;
	struct plan p;
	size_t i;
	int got;

	make_project();
	p = make_plan();
	start(&t, &p);
	for (i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		got = probe(&t, probes[i].name);
		ck_assert_msg(got == probes[i].err, "%s: errno %d (%s), want %d",
		    probes[i].name, got, strerror(got), probes[i].err);
	}
	stop(&t);
	remove_project();
}
END_TEST

START_TEST(test_limits)
{
	char *sleeper[] = { "sleep", "30", NULL };
	struct container_cmd cmd = { 0 };
	char out[8192];
	sbox_error err = { 0 };
	struct cmdres r;
	struct tctx t;
	struct plan p;
	uint64_t id;
	int code;

	make_project();
	p = make_plan();
	start(&t, &p);
	/* A fork bomb is capped at limits.pids processes in the sandbox. */
	code = sh(&t, "i=0; while [ $i -lt 200 ]; do sleep 5 & i=$((i+1)); "
	    "done 2>&1 | head -c 200; ps -e 2>/dev/null | wc -l", out,
	    sizeof out);
	ck_assert_msg(strstr(out, "fork") != NULL || strstr(out,
	    "Resource temporarily unavailable") != NULL,
	    "no fork failure: %d %s", code, out);
	/* ... and the host still forks fine (sh here is outside). */
	ck_assert_int_eq(system("true"), 0);
	/* A file larger than limits.fsize_bytes cannot be written. */
	ck_assert_int_ne(sh(&t, "head -c 2000000 /dev/zero > big", NULL, 0), 0);
	/* A timeout kills the command's group. */
	run_cmd(&t, sleeper, 200, NULL, 0, &r);
	ck_assert_int_eq(r.sig, SIGKILL);
	ck_assert_int_eq(r.timed_out, 1);
	/* container_kill signals it. */
	memset(&r, 0, sizeof r);
	cmd.argv = sleeper;
	cmd.env = test_env;
	cmd.fds[0] = cmd.fds[1] = cmd.fds[2] = -1;
	cmd.on_spawned = cmd_spawned;
	cmd.on_exit = cmd_exit;
	cmd.arg = &r;
	ck_assert_int_eq(container_spawn(t.c, &cmd, &id, &err), 0);
	ck_assert(run_until(&t, &r.spawned, 5000));
	ck_assert_int_eq(container_kill(t.c, id, SIGTERM, &err), 0);
	ck_assert(run_until(&t, &r.done, 5000));
	ck_assert_int_eq(r.sig, SIGTERM);
	ck_assert_int_eq(r.timed_out, 0);
	ck_assert_int_eq(container_kill(t.c, id, SIGTERM, &err), -1);
	ck_assert_str_eq(err.name, E_COMMAND_NOT_FOUND);
	/* /tmp is the plan's size (8 MiB). */
	ck_assert_int_ne(sh(&t, "head -c 900000 /dev/zero > /tmp/a && "
	    "for i in 1 2 3 4 5 6 7 8 9 10; do cat /tmp/a > /tmp/b$i || "
	    "exit 1; done", NULL, 0), 0);
	stop(&t);
	remove_project();
}
END_TEST

struct ptest {
	struct tctx *t;
	int          lfd;
	int          served;
};

static void
proxy_accept(evutil_socket_t fd, short what, void *arg)
{
	struct ptest *pt = arg;
	char buf[4];
	int s;

	(void)what;
	s = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (s < 0)
		return;
	if (read(s, buf, 4) == 4 && memcmp(buf, "ping", 4) == 0 &&
	    write(s, "pong", 4) == 4)
		pt->served = 1;
	close(s);
}

struct lres {
	int done, n, fds[2];
};

static void
listen_cb(struct container *c, const int *fds, int nfds,
    const sbox_error *err, void *arg)
{
	struct lres *l = arg;
	int i;

	(void)c;
	(void)err;
	for (i = 0; i < nfds && i < 2; i++)
		l->fds[i] = fds[i];
	l->n = nfds;
	l->done = 1;
}

START_TEST(test_proxy_listener)
{
	char port[16], *argv[] = { self_path, "--connect", port, NULL };
	const char *fam[2];
	struct ptest pt = { 0 };
	struct lres lr;
	sbox_error err = { 0 };
	struct event *ev;
	struct cmdres r;
	struct tctx t;
	struct plan p;
	int fds[2], n;

	make_project();
	p = make_plan();
	start(&t, &p);
	n = container_proxy_fds(t.c, fds, fam);
	ck_assert_int_ge(n, 1);
	ck_assert_str_eq(fam[0], "inet");
	ck_assert_int_eq(container_proxy_port(t.c), 3128);
	/* sboxd accepts on the listener that lives in the sandbox's netns. */
	pt.t = &t;
	ev = event_new(t.base, fds[0], EV_READ | EV_PERSIST, proxy_accept, &pt);
	event_add(ev, NULL);
	snprintf(port, sizeof port, "%d", container_proxy_port(t.c));
	run_cmd(&t, argv, 0, NULL, 0, &r);
	ck_assert_int_eq(r.code, 0);
	ck_assert(pt.served);
	event_free(ev);
	/* listen_local gives more listeners inside (for local_ports). */
	memset(&lr, 0, sizeof lr);
	ck_assert_int_eq(container_listen_local(t.c, 5432, listen_cb, &lr,
	    &err), 0);
	ck_assert(run_until(&t, &lr.done, 5000));
	ck_assert_int_ge(lr.n, 1);
	pt.served = 0;
	ev = event_new(t.base, lr.fds[0], EV_READ | EV_PERSIST, proxy_accept,
	    &pt);
	event_add(ev, NULL);
	snprintf(port, sizeof port, "5432");
	run_cmd(&t, argv, 0, NULL, 0, &r);
	ck_assert_int_eq(r.code, 0);
	ck_assert(pt.served);
	event_free(ev);
	close(lr.fds[0]);
	if (lr.n > 1)
		close(lr.fds[1]);
	ck_assert_int_eq(container_listen_local(t.c, 0, listen_cb, &lr, &err),
	    -1);
	stop(&t);
	remove_project();
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("confine");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_seccomp);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_proxy_listener);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	/* Probes exit with _exit: a sanitizer's exit-time leak check needs
	 * ptrace, which the sandbox refuses. */
	if (argc == 3 && strcmp(argv[1], "--probe") == 0)
		_exit(probe_call(argv[2]));
	if (argc == 3 && strcmp(argv[1], "--connect") == 0)
		_exit(probe_connect(atoi(argv[2])));
	return container_fixture_run(suite());
}
