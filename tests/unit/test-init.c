/* test-init.c: the control channel (ctl_send/ctl_recv) and a bare
 * bin/sbox-init as pid 1 of a minimal bwrap: it refuses every malformed
 * message from its untrusted peer and keeps serving, and refuses to run
 * outside a sandbox. Run it as root and as an unprivileged user. */
#include "tests/unit/container-fixture.h"
#include "policy/guard-filter.h"
#include <sys/mman.h>

START_TEST(test_ctl_channel)
{
	char big[CTL_MSG_MAX + 100];
	int sp[2], p[2], fds[CTL_FDS_MAX], nfds, two[2];
	sbox_error err = { 0 };
	json_t *m, *got;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp), 0);
	ck_assert_int_eq(pipe(p), 0);
	fcntl(sp[1], F_SETFL, O_NONBLOCK);
	ck_assert_int_eq(ctl_recv(sp[1], &got, fds, &nfds, 2, &err), CTL_AGAIN);
	/* A message with descriptors. */
	m = ctl_msg("open", "{s:i,s:s}", "req", 7, "path", "/x");
	two[0] = p[0];
	two[1] = p[1];
	ck_assert_int_eq(ctl_send(sp[0], m, two, 2, &err), 0);
	ck_assert_int_eq(ctl_recv(sp[1], &got, fds, &nfds, 2, &err), CTL_MSG);
	ck_assert_str_eq(ctl_type(got), "open");
	ck_assert_int_eq(json_integer_value(json_object_get(got, "req")), 7);
	ck_assert_int_eq(nfds, 2);
	ck_assert_int_ne(fcntl(fds[0], F_GETFD) & FD_CLOEXEC, 0);
	ctl_close_fds(fds, nfds);
	json_decref(got);
	/* More descriptors than expected: an error, and none are left open. */
	ck_assert_int_eq(ctl_send(sp[0], m, two, 2, &err), 0);
	ck_assert_int_eq(ctl_recv(sp[1], &got, fds, &nfds, 1, &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_REQUEST);
	ck_assert_int_eq(nfds, 0);
	json_decref(m);
	/* Not an object; not JSON; too large. */
	ck_assert_int_eq(send(sp[0], "[1,2]", 5, 0), 5);
	ck_assert_int_eq(ctl_recv(sp[1], &got, fds, &nfds, 2, &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_REQUEST);
	ck_assert_int_eq(send(sp[0], "{\"a\":", 5, 0), 5);
	ck_assert_int_eq(ctl_recv(sp[1], &got, fds, &nfds, 2, &err), -1);
	memset(big, ' ', sizeof big);
	big[0] = '{';
	big[sizeof big - 1] = '}';
	ck_assert_int_eq(send(sp[0], big, sizeof big, 0), (ssize_t)sizeof big);
	ck_assert_int_eq(ctl_recv(sp[1], &got, fds, &nfds, 2, &err), -1);
	ck_assert_str_eq(err.name, E_TOO_LARGE);
	m = json_pack("{s:s%}", "x", big, (size_t)CTL_MSG_MAX);
	ck_assert_int_eq(ctl_send(sp[0], m, NULL, 0, &err), -1);
	ck_assert_str_eq(err.name, E_TOO_LARGE);
	json_decref(m);
	close(sp[0]);
	ck_assert_int_eq(ctl_recv(sp[1], &got, fds, &nfds, 2, &err), CTL_EOF);
	close(sp[1]);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* Talk to a bare sbox-init (pid 1 of a minimal bwrap) over our own socket. */
static int init_sock = -1;
static pid_t init_bwrap;

static void
init_up(void)
{
	int sp[2];
	json_t *m;
	int fds[CTL_FDS_MAX], nfds;
	sbox_error err = { 0 };

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp), 0);
	init_bwrap = fork();
	ck_assert_int_ge(init_bwrap, 0);
	if (init_bwrap == 0) {
		dup2(sp[1], 3);
		execlp("bwrap", "bwrap", "--unshare-user", "--unshare-pid",
		    "--unshare-net", "--as-pid-1", "--die-with-parent",
		    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		    "--", init_path, "--ctl", "3",
		    "--proxy-port", "3129", (char *)NULL);
		_exit(127);
	}
	close(sp[1]);
	init_sock = sp[0];
	ck_assert_int_eq(ctl_recv(init_sock, &m, fds, &nfds, 2, &err), CTL_MSG);
	ck_assert_str_eq(ctl_type(m), "ready");
	ck_assert_int_eq(json_integer_value(json_object_get(m, "proxy_port")),
	    3129);
	ck_assert_int_eq(json_integer_value(json_object_get(m, "pid")), 1);
	ctl_close_fds(fds, nfds);
	json_decref(m);
}

/* Send raw text (and fds); return the reply (a new reference). */
static json_t *
init_ask(const char *text, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)text, strlen(text) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	int got[CTL_FDS_MAX], ngot;
	sbox_error err = { 0 };
	json_t *m;

	if (nfds > 0) {
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	ck_assert_int_eq(sendmsg(init_sock, &mh, 0), (ssize_t)strlen(text));
	ck_assert_int_eq(ctl_recv(init_sock, &m, got, &ngot, 2, &err), CTL_MSG);
	ctl_close_fds(got, ngot);
	return m;
}

/* Expect an error reply with this errno. */
static void
init_refuses(const char *text, const int *fds, int nfds, int errnum)
{
	json_t *m = init_ask(text, fds, nfds);

	ck_assert_msg(strcmp(ctl_type(m), "error") == 0, "%s: got %s", text,
	    ctl_type(m));
	ck_assert_int_eq(json_integer_value(json_object_get(m, "errno")),
	    errnum);
	json_decref(m);
}

/* Send a guard message for /tmp ("bulk": [0, 0]: no protected names, no
 * rules) with its bytes in a memfd (none when nofd): the filters sboxd
 * would build, or, when filter is not NULL, filter as its "filter" member
 * and the len bytes at extra after the bulk ("NOBULK": the spec's JSON
 * form, protected names in the JSON, no bulk, no supervisor); return the
 * reply. */
static json_t *
init_ask_guard(const char *filter, const void *extra, size_t len, int nofd)
{
	struct guard_filter_kind k = { 0, 0 };
	struct guard_filter f = { 0 };
	char *text;
	json_t *m;
	int fd;

	ck_assert_int_ge(fd = memfd_create("test-guard", MFD_CLOEXEC), 0);
	if (filter == NULL) {
		ck_assert_ptr_null(guard_filter_build(&k, &f));
		ck_assert_int_gt(asprintf(&text, "{\"type\":\"guard\",\"roots\":"
		    "[\"/tmp\"],\"home\":\"/root\",\"bulk\":[0,0],"
		    "\"supervise\":true,\"filter\":{\"exclude\":false,"
		    "\"reads\":false,\"notify\":%zu,\"seal\":%zu}}",
		    f.len * sizeof *f.prog, f.seal_len * sizeof *f.seal), 0);
		ck_assert_int_eq(write(fd, f.prog, f.len * sizeof *f.prog),
		    (ssize_t)(f.len * sizeof *f.prog));
		ck_assert_int_eq(write(fd, f.seal, f.seal_len * sizeof *f.seal),
		    (ssize_t)(f.seal_len * sizeof *f.seal));
		guard_filter_free(&f);
	} else if (strcmp(filter, "NOBULK") == 0) {
		ck_assert_int_gt(asprintf(&text, "{\"type\":\"guard\",\"roots\":"
		    "[\"/tmp\"],\"home\":\"/root\",\"protected\":\"\","
		    "\"supervise\":false}"), 0);
	} else {
		ck_assert_int_gt(asprintf(&text, "{\"type\":\"guard\",\"roots\":"
		    "[\"/tmp\"],\"home\":\"/root\",\"bulk\":[0,0],"
		    "\"supervise\":true,\"filter\":%s}", filter), 0);
		ck_assert_int_eq(write(fd, extra, len), (ssize_t)len);
	}
	m = init_ask(text, nofd ? NULL : &fd, nofd ? 0 : 1);
	close(fd);
	free(text);
	return m;
}

/* Shut the bare sbox-init down and wait for its bwrap. */
static void
init_down(void)
{
	sbox_error err = { 0 };
	int fds[CTL_FDS_MAX], nfds, st;
	json_t *m = ctl_msg("shutdown", NULL);

	ck_assert_int_eq(ctl_send(init_sock, m, NULL, 0, &err), 0);
	json_decref(m);
	ck_assert_int_eq(ctl_recv(init_sock, &m, fds, &nfds, 2, &err), CTL_EOF);
	ck_assert_int_eq(waitpid(init_bwrap, &st, 0), init_bwrap);
	close(init_sock);
}

START_TEST(test_init_validates)
{
	int three[3], five[5], i, fds[CTL_FDS_MAX], nfds;
	sbox_error err = { 0 };
	json_t *m;

	init_up();
	for (i = 0; i < 5; i++)
		five[i] = open("/dev/null", O_RDONLY);
	for (i = 0; i < 3; i++)
		three[i] = five[i];
	init_refuses("[1]", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"nope\"}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"spawn\",\"argv\":[\"true\"],"
	    "\"stdio\":\"none\"}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"spawn\",\"id\":1,\"argv\":[],"
	    "\"stdio\":\"none\"}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"spawn\",\"id\":1,\"argv\":[\"true\"],"
	    "\"stdio\":\"fds\"}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"spawn\",\"id\":1,\"argv\":[\"true\"],"
	    "\"stdio\":\"none\"}", three, 3, EINVAL);
	init_refuses("{\"type\":\"spawn\",\"id\":1,\"argv\":[\"true\"],"
	    "\"env\":[\"NOEQUALS\"],\"stdio\":\"none\"}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"spawn\",\"id\":1,\"argv\":[\"true\"],"
	    "\"cwd\":\"rel\",\"stdio\":\"none\"}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"spawn\",\"id\":1,\"argv\":[\"true\"],"
	    "\"stdio\":\"none\",\"limits\":{\"bogus\":1}}", NULL, 0,
	    EINVAL);
	init_refuses("{\"type\":\"spawn\",\"id\":1,\"argv\":[\"a\\u0000b\"],"
	    "\"stdio\":\"none\"}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"open\",\"req\":2,\"path\":\"rel\"}",
	    NULL, 0, EINVAL);
	init_refuses("{\"type\":\"open\",\"req\":2,\"path\":\"/tmp\","
	    "\"flags\":[\"bogus\"]}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"open\",\"req\":2,\"path\":\"/tmp/x\","
	    "\"flags\":[\"create\"]}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"stat\",\"req\":3,\"path\":\"/nope\"}",
	    NULL, 0, ENOENT);
	init_refuses("{\"type\":\"listen_local\",\"req\":4,\"port\":70000}",
	    NULL, 0, EINVAL);
	init_refuses("{\"type\":\"kill\",\"id\":1,\"signal\":999}", NULL, 0,
	    EINVAL);
	/* Too many descriptors on one message. */
	init_refuses("{\"type\":\"stat\",\"req\":5,\"path\":\"/\"}", five, 4,
	    EINVAL);
	/* sbox-init's one table (init-main.c): no type, a descriptor on a
	 * message that takes none, a field out of its range */
	init_refuses("{\"req\":6}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"kill\",\"id\":1,\"signal\":9}", five, 1,
	    EINVAL);
	init_refuses("{\"type\":\"told\",\"ticket\":0}", NULL, 0, EINVAL);
	init_refuses("{\"type\":\"mkdir\",\"req\":-1,\"path\":\"/x\"}",
	    NULL, 0, EINVAL);
	/* No command before the file guard is set up. */
	init_refuses("{\"type\":\"spawn\",\"id\":8,\"argv\":[\"true\"],"
	    "\"stdio\":\"fds\"}", three, 3, EINVAL);
	m = init_ask_guard(NULL, NULL, 0, 0);
	ck_assert_str_eq(ctl_type(m), "guarded");
	json_decref(m);
	/* Still serving after all that: a command runs and exits. */
	m = init_ask("{\"type\":\"spawn\",\"id\":9,\"argv\":[\"sh\",\"-c\","
	    "\"exit 4\"],\"env\":[\"PATH=/usr/bin:/bin\"],\"stdio\":\"fds\"}",
	    three, 3);
	ck_assert_str_eq(ctl_type(m), "spawned");
	json_decref(m);
	ck_assert_int_eq(ctl_recv(init_sock, &m, fds, &nfds, 2, &err), CTL_MSG);
	ck_assert_str_eq(ctl_type(m), "exit");
	ck_assert_int_eq(json_integer_value(json_object_get(m, "id")), 9);
	ck_assert_int_eq(json_integer_value(json_object_get(m, "code")), 4);
	json_decref(m);
	/* shutdown: init ends, bwrap with it. */
	init_down();
	for (i = 0; i < 5; i++)
		close(five[i]);
}
END_TEST

/* The guard's filters and bulk come from sboxd with the guard message: a
 * message without them (the spec's JSON form too), with filters built for
 * another kind of spec, with
 * sizes that are not whole BPF programs, or bytes that do not add up sets
 * no guard, and no command runs after it. */
START_TEST(test_init_takes_only_a_whole_filter)
{
	static const struct {
		const char *filter;
		size_t      len;    /* zero bytes after the bulk */
		int         nofd;
	} bad[] = {
		{ "null", 16, 0 },
		{ "{\"exclude\":false,\"reads\":false}", 16, 0 },
		/* built for a spec with hidden rules, or an `exclude` list:
		 * this one has neither */
		{ "{\"exclude\":false,\"reads\":true,\"notify\":8,"
		    "\"seal\":8}", 16, 0 },
		{ "{\"exclude\":true,\"reads\":false,\"notify\":8,"
		    "\"seal\":8}", 16, 0 },
		/* half an instruction; an empty program; negative */
		{ "{\"exclude\":false,\"reads\":false,\"notify\":4,"
		    "\"seal\":8}", 12, 0 },
		{ "{\"exclude\":false,\"reads\":false,\"notify\":0,"
		    "\"seal\":8}", 8, 0 },
		{ "{\"exclude\":false,\"reads\":false,\"notify\":-8,"
		    "\"seal\":24}", 16, 0 },
		/* bytes missing, bytes left over, no bytes at all */
		{ "{\"exclude\":false,\"reads\":false,\"notify\":8,"
		    "\"seal\":8}", 8, 0 },
		{ "{\"exclude\":false,\"reads\":false,\"notify\":8,"
		    "\"seal\":8}", 24, 0 },
		{ "{\"exclude\":false,\"reads\":false,\"notify\":8,"
		    "\"seal\":8}", 16, 1 },
		/* no bulk: the spec's JSON form is refused, not parsed (with
		 * no supervisor it set a guard before) */
		{ "NOBULK", 0, 0 },
		/* sizes far past the bytes */
		{ "{\"exclude\":false,\"reads\":false,\"notify\":"
		    "9223372036854775800,\"seal\":9223372036854775800}", 16, 0 },
	};
	static const char zero[64];
	int three[3], i;
	size_t k;
	json_t *m;

	for (i = 0; i < 3; i++)
		three[i] = open("/dev/null", O_RDONLY);
	for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		init_up();
		m = init_ask_guard(bad[k].filter, zero, bad[k].len, bad[k].nofd);
		ck_assert_msg(strcmp(ctl_type(m), "error") == 0 &&
		    json_integer_value(json_object_get(m, "errno")) == EPERM,
		    "%s (%zu bytes): got %s", bad[k].filter, bad[k].len,
		    json_dumps(m, 0));
		json_decref(m);
		/* and no command runs: the reason is the guard's */
		m = init_ask("{\"type\":\"spawn\",\"id\":1,\"argv\":[\"true\"],"
		    "\"env\":[\"PATH=/usr/bin:/bin\"],\"stdio\":\"fds\"}", three,
		    3);
		ck_assert_str_eq(ctl_type(m), "error");
		ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(m,
		    "message")), "file guard"));
		json_decref(m);
		init_down();
	}
	for (i = 0; i < 3; i++)
		close(three[i]);
}
END_TEST

START_TEST(test_init_refuses_outside)
{
	char *argv[] = { init_path, "--ctl", "3", NULL };
	int st;
	pid_t pid = fork();

	/* Not pid 1 of a sandbox: it is the exclusion shim, which finds no
	 * sbox-init to hand itself to: it refuses (126) and kills nothing. */
	if (pid == 0) {
		execv(init_path, argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 126);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("init");
	TCase *tc = tcase_create("ctl");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_ctl_channel);
	tcase_add_test(tc, test_init_validates);
	tcase_add_test(tc, test_init_takes_only_a_whole_filter);
	tcase_add_test(tc, test_init_refuses_outside);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return container_fixture_run(suite());
}
