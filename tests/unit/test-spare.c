/* test-spare.c: the spare launcher (daemon/container/container-spare.c), a
 * process made ahead in the next container's cgroups, against a fake
 * delegated cgroup tree (cgroup-fixture.h): taken only when it fits and
 * has joined, ended with its cgroup otherwise, never dropped for a
 * signal. */
#include "tests/unit/cgroup-fixture.h"

/* What a spare is made for: bwrap's path, and staged binds as root. */
#define BWRAP  "/usr/bin/bwrap"
#define STAGED (geteuid() == 0)

/* A delegated fake tree (delegated_tree) and the SIGCHLD handler on
 * base. */
static void
spare_tree(struct event_base *base)
{
	sbox_error err = {0};

	delegated_tree(base);
	ck_assert_int_eq(child_init(base, &err), 0);
}

/* Make a spare for l from the loop; its pid, *dir its cgroup. */
static pid_t
spare_made(struct event_base *base, const struct plan_limits *l, char *dirp,
    size_t size)
{
	const struct container_cg *cg = NULL;
	pid_t pid;

	container_spare_later(base, l, BWRAP);
	event_base_loop(base, EVLOOP_NONBLOCK);
	pid = container_spare_waiting(&cg);
	ck_assert_int_gt(pid, 0);
	ck_assert_ptr_nonnull(cg);
	ck_assert_int_eq(cg->n, 1);
	snprintf(dirp, size, "%s", cg->dirs[0]);
	return pid;
}

/* A spare is a process in a cgroup made ahead for the limits: the create
 * that takes it gets that process and that cgroup, which the process has
 * joined (its procs file), with the limits written; one for other limits
 * is ended and its cgroup removed; so is one left at shutdown. */
START_TEST(test_spare_launcher)
{
	struct event_base *base = event_base_new();
	struct plan_limits l = {0}, other;
	struct container_spare sp;
	char d1[PATH_MAX], d2[PATH_MAX], d3[PATH_MAX], buf[64];
	pid_t p1, p2, p3;
	int listener;

	spare_tree(base);
	l.pids = 50;
	ck_assert_int_ge(listener = open("/dev/null", O_RDONLY), 0);
	p1 = spare_made(base, &l, d1, sizeof d1);
	/* one at a time: asking again for the same limits keeps it */
	container_spare_later(base, &l, BWRAP);
	event_base_loop(base, EVLOOP_NONBLOCK);
	ck_assert_int_eq(container_spare_waiting(NULL), p1);
	ck_assert_int_eq(container_spare_take(&l, STAGED, BWRAP, &sp), 0);
	ck_assert_int_eq(sp.pid, p1);
	ck_assert_int_eq(sp.cg.n, 1);
	ck_assert_str_eq(sp.cg.dirs[0], d1);
	ck_assert_int_eq(container_spare_waiting(NULL), 0);
	/* it holds nothing of its parent's but stdio and its socket (this
	 * process's fds, say a fake "listener", are not its) */
	{
		char fdd[64];
		struct dirent *de;
		DIR *dd;
		int n = 0;

		snprintf(fdd, sizeof fdd, "/proc/%d/fd", (int)p1);
		ck_assert_ptr_nonnull(dd = opendir(fdd));
		while ((de = readdir(dd)) != NULL)
			if (de->d_name[0] != '.') {
				ck_assert_msg(atoi(de->d_name) <= 3, "fd %s",
				    de->d_name);
				n++;
			}
		closedir(dd);
		ck_assert_int_le(n, 4);
	}
	/* as root it made bwrap's mount namespace ahead: its own, with an
	 * empty /tmp for the held trees, without the host's /sys */
	if (STAGED) {
		char a[64], b[64], la[128] = "", lb[128] = "", line[1024];
		int tmp = 0, sys = 0;
		FILE *mi;

		snprintf(a, sizeof a, "/proc/%d/ns/mnt", (int)p1);
		snprintf(b, sizeof b, "/proc/self/ns/mnt");
		ck_assert_int_gt(readlink(a, la, sizeof la - 1), 0);
		ck_assert_int_gt(readlink(b, lb, sizeof lb - 1), 0);
		ck_assert_str_ne(la, lb);
		snprintf(a, sizeof a, "/proc/%d/mountinfo", (int)p1);
		ck_assert_ptr_nonnull(mi = fopen(a, "r"));
		while (fgets(line, sizeof line, mi) != NULL) {
			tmp |= strstr(line, " /tmp ") != NULL;
			sys |= strstr(line, " /sys ") != NULL;
		}
		fclose(mi);
		ck_assert(tmp);
		ck_assert(!sys);
	}
	/* it joined (the fake procs file got its "0") before it said so */
	{
		char rel[PATH_MAX];

		snprintf(rel, sizeof rel, "%s/cgroup.procs", d1 + strlen(root) + 1);
		get(rel, buf, sizeof buf);
		ck_assert_str_eq(buf, "0\n");
		snprintf(rel, sizeof rel, "%s/pids.max", d1 + strlen(root) + 1);
		get(rel, buf, sizeof buf);
		ck_assert_str_eq(buf, "50\n");
	}
	empty(d1);
	container_spare_drop(&sp);
	ck_assert(gone(p1));
	ck_assert_int_ne(access(d1, F_OK), 0);

	/* other limits: the waiting one is not taken, but ended */
	p2 = spare_made(base, &l, d2, sizeof d2);
	other = l;
	other.pids = 51;
	empty(d2);
	ck_assert_int_eq(container_spare_take(&other, STAGED, BWRAP, &sp), -1);
	ck_assert_int_eq(container_spare_waiting(NULL), 0);
	ck_assert(gone(p2));
	ck_assert_int_ne(access(d2, F_OK), 0);

	/* another bwrap (or staged binds where it has none): not taken either */
	p2 = spare_made(base, &l, d2, sizeof d2);
	empty(d2);
	ck_assert_int_eq(container_spare_take(&l, STAGED, "/opt/bwrap", &sp), -1);
	ck_assert(gone(p2));
	ck_assert_int_ne(access(d2, F_OK), 0);
	p2 = spare_made(base, &l, d2, sizeof d2);
	empty(d2);
	ck_assert_int_eq(container_spare_take(&l, !STAGED, BWRAP, &sp), -1);
	ck_assert(gone(p2));
	ck_assert_int_ne(access(d2, F_OK), 0);

	/* shutdown ends the waiting one and removes its cgroup; no more are
	 * made after */
	p3 = spare_made(base, &l, d3, sizeof d3);
	empty(d3);
	container_start_shutdown();
	ck_assert_int_eq(container_spare_waiting(NULL), 0);
	ck_assert(gone(p3));
	ck_assert_int_ne(access(d3, F_OK), 0);
	container_spare_later(base, &l, BWRAP);
	event_base_loop(base, EVLOOP_NONBLOCK);
	ck_assert_int_eq(container_spare_waiting(NULL), 0);
	child_shutdown();
	close(listener);
	event_base_free(base);
}
END_TEST

/* A signal handler that does nothing (installed without SA_RESTART). */
static void
on_alarm(int sig)
{
	(void)sig;
}

/* sboxd takes signals (a child's end) while a create waits for the
 * spare's word on its join: a signal is no reason to drop a spare that
 * joined (it was dropped, and the create forked bwrap instead: about one
 * create in fifty, in runs of 60). */
START_TEST(test_spare_take_survives_signals)
{
	struct event_base *base = event_base_new();
	struct sigaction sa, old;
	struct itimerval every = { { 0, 100 }, { 0, 100 } }, off = { { 0, 0 },
	    { 0, 0 } };
	struct plan_limits l = {0};
	struct container_spare sp;
	char d[PATH_MAX];
	pid_t p;
	int i;

	spare_tree(base);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;	/* no SA_RESTART: poll fails EINTR */
	ck_assert_int_eq(sigaction(SIGALRM, &sa, &old), 0);
	for (i = 0; i < 5; i++) {
		p = spare_made(base, &l, d, sizeof d);
		/* at once: the spare is still starting, the take waits */
		ck_assert_int_eq(setitimer(ITIMER_REAL, &every, NULL), 0);
		ck_assert_int_eq(container_spare_take(&l, STAGED, BWRAP, &sp), 0);
		ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
		ck_assert_int_eq(sp.pid, p);
		empty(d);
		container_spare_drop(&sp);
		ck_assert(gone(p));
	}
	ck_assert_int_eq(sigaction(SIGALRM, &old, NULL), 0);
	container_start_shutdown();
	child_shutdown();
	event_base_free(base);
}
END_TEST

/* A spare that cannot join its cgroup (here: its write to cgroup.procs is
 * cut short by RLIMIT_FSIZE) is never handed over: a take fails, the spare
 * is ended and its cgroup removed. */
START_TEST(test_spare_that_cannot_join_is_not_used)
{
	struct event_base *base = event_base_new();
	struct plan_limits l = {0};
	struct container_spare sp;
	struct rlimit one = { 1, RLIM_INFINITY }, all = { RLIM_INFINITY,
	    RLIM_INFINITY };
	char d[PATH_MAX];
	pid_t p;

	spare_tree(base);
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &one), 0);
	p = spare_made(base, &l, d, sizeof d);
	/* (the spare was forked with it; Check's own files need it back) */
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &all), 0);
	empty(d);
	ck_assert_int_eq(container_spare_take(&l, STAGED, BWRAP, &sp), -1);
	ck_assert_int_eq(sp.pid, 0);
	ck_assert_int_eq(container_spare_waiting(NULL), 0);
	ck_assert(gone(p));
	ck_assert_int_ne(access(d, F_OK), 0);
	container_start_shutdown();
	child_shutdown();
	event_base_free(base);
}
END_TEST

/* The suite. */
static Suite *
spare_suite(void)
{
	Suite *s = suite_create("spare");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_spare_launcher);
	tcase_add_test(tc, test_spare_that_cannot_join_is_not_used);
	tcase_add_test(tc, test_spare_take_survives_signals);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	/* a spare launcher is the binary that makes it run again (sboxd's
	 * main, here this suite's) */
	container_spare_child();
	sr = srunner_create(spare_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
