/* test-cgroup.c: sboxd's cgroup paths, delegation and leftovers, against a
 * fake cgroup tree in a temp folder (cgroup_set_paths). */
#include "tests/unit/cgroup-fixture.h"

START_TEST(test_own_paths)
{
	char out[PATH_MAX], want[PATH_MAX * 2];

	put("self", "9:name=systemd:/\n8:pids:/box\n4:memory,foo:/\n"
	    "0::/user.slice/sboxd.service\n");
	dir("pids/box");
	dir("memory");
	dir("user.slice/sboxd.service");
	ck_assert_int_eq(cgroup_own("pids", out, sizeof out), 0);
	snprintf(want, sizeof want, "%s/pids/box", root);
	ck_assert_str_eq(out, want);
	ck_assert_int_eq(cgroup_own("memory", out, sizeof out), 0);
	snprintf(want, sizeof want, "%s/memory", root);
	ck_assert_str_eq(out, want);
	ck_assert_int_eq(cgroup_own("", out, sizeof out), 0);
	snprintf(want, sizeof want, "%s/user.slice/sboxd.service", root);
	ck_assert_str_eq(out, want);
	/* not listed, or listed but not there */
	ck_assert_int_eq(cgroup_own("cpu", out, sizeof out), -1);
	put("self", "8:pids:/gone\n0::/../../etc\n");
	ck_assert_int_eq(cgroup_own("pids", out, sizeof out), -1);
	ck_assert_int_eq(cgroup_own("", out, sizeof out), -1);
	/* no such file */
	unlink(self);
	ck_assert_int_eq(cgroup_own("", out, sizeof out), -1);
}
END_TEST

START_TEST(test_delegate)
{
	char parent[PATH_MAX], want[PATH_MAX * 2], buf[64], path[PATH_MAX * 2];
	sbox_error err = {0};
	FILE *f;

	put("self", "0::/user.slice/u.service\n");
	dir("user.slice/u.service");
	/* not delegated: the control files are not ours */
	ck_assert_int_eq(cgroup_delegate(parent, sizeof parent, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "not delegated"));
	put("user.slice/u.service/cgroup.subtree_control", "");
	put("user.slice/u.service/cgroup.procs", "");
	/* delegated, but no controller to enable */
	ck_assert_int_eq(cgroup_delegate(parent, sizeof parent, &err), 0);
	put("user.slice/u.service/cgroup.controllers", "cpuset cpu io memory pids\n");
	ck_assert_int_eq(cgroup_delegate(parent, sizeof parent, &err),
	    CGROUP_MEMORY | CGROUP_PIDS | CGROUP_CPU);
	snprintf(want, sizeof want, "%s/user.slice/u.service", root);
	ck_assert_str_eq(parent, want);
	/* sboxd moved itself into the leaf */
	ck_assert(exists("user.slice/u.service/sboxd"));
	snprintf(path, sizeof path, "%s/user.slice/u.service/sboxd/cgroup.procs",
	    root);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	fclose(f);
	ck_assert_int_eq(atoi(buf), getpid());
	/* only the controllers there are enabled */
	put("user.slice/u.service/cgroup.controllers", "io pids\n");
	ck_assert_int_eq(cgroup_delegate(parent, sizeof parent, &err),
	    CGROUP_PIDS);
	/* no v2 line at all */
	put("self", "8:pids:/\n");
	ck_assert_int_eq(cgroup_delegate(parent, sizeof parent, &err), -1);
}
END_TEST

START_TEST(test_sweep_leftovers)
{
	struct event_base *base = event_base_new();
	struct timeval tick = { 0, 50 * 1000 };
	char name[64], busy[64], mine[64], other[2][64], path[PATH_MAX * 2];
	pid_t gone = dead_pid();
	int i;

	dir("pids/box");
	snprintf(name, sizeof name, "pids/box/sbox-%d-1", (int)gone);
	snprintf(busy, sizeof busy, "pids/box/sbox-%d-2", (int)gone);
	snprintf(mine, sizeof mine, "pids/box/sbox-%d-7", (int)getpid());
	dir(name);
	dir(busy);
	dir(mine);
	mark(name, gone, 123, NULL);
	mark(busy, gone, 123, NULL);
	/* our pid, but an earlier process (another start time) */
	mark(mine, getpid(), 1, NULL);
	/* a folder that is not empty stands for a busy cgroup */
	snprintf(path, sizeof path, "%s/x", busy);
	put(path, "");
	dir("pids/box/sbox-abc-1");
	dir("pids/box/sbox-12");
	dir("pids/box/user.slice");
	/* named like ours, but unmarked (a test harness's, a renamed
	 * program's), or marked in another boot: never touched */
	snprintf(other[0], sizeof other[0], "pids/box/sbox-%d-3", (int)gone);
	dir(other[0]);
	snprintf(other[1], sizeof other[1], "pids/box/sbox-%d-4", (int)gone);
	dir(other[1]);
	mark(other[1], gone, 123, "00000000-0000-0000-0000-000000000000");
	cgroup_timer(base);
	snprintf(path, sizeof path, "%s/pids/box", root);
	ck_assert_int_eq(cgroup_sweep(path), 3);
	ck_assert(!exists(name));
	ck_assert(!exists(mine));
	ck_assert(exists(busy));
	ck_assert(exists(other[0]));
	ck_assert(exists(other[1]));
	ck_assert_int_eq(cgroup_pending(), 1);
	/* the retry timer removes it once it is free */
	snprintf(path, sizeof path, "%s/%s/x", root, busy);
	unlink(path);
	for (i = 0; i < 40 && cgroup_pending() > 0; i++) {
		event_base_loopexit(base, &tick);
		event_base_dispatch(base);
	}
	ck_assert_int_eq(cgroup_pending(), 0);
	ck_assert(!exists(busy));
	/* names that are not ours stay */
	ck_assert(exists("pids/box/sbox-abc-1"));
	ck_assert(exists("pids/box/sbox-12"));
	ck_assert(exists("pids/box/user.slice"));
	cgroup_timer(NULL);
	event_base_free(base);
}
END_TEST

/* Unprivileged with a delegated cgroup: each container gets a child of
 * sboxd's cgroup with memory.max, pids.max and cpu.weight. */
START_TEST(test_container_in_delegated_cgroup)
{
	struct event_base *base = event_base_new();
	struct plan_limits l;
	struct container_cg cg;
	sbox_error err = {0};
	char buf[256], rel[PATH_MAX], *slash;
	json_t *j;

	delegated_tree(base);
	ck_assert_msg(strncmp(container_cgroup_mode(), "v2 (delegated): ", 16) == 0,
	    "%s", container_cgroup_mode());
	ck_assert_ptr_nonnull(strstr(container_cgroup_mode(), "memory.max"));
	memset(&l, 0, sizeof l);
	l.pids = 50;
	l.memory_bytes = 1 << 20;
	ck_assert_int_eq(container_cgroup_setup(&l, &cg, &err), 0);
	ck_assert_int_eq(cg.n, 1);
	snprintf(rel, sizeof rel, "%s", cg.dirs[0] + strlen(root) + 1);
	slash = strrchr(rel, '/');
	ck_assert_ptr_nonnull(slash);
	ck_assert_int_eq(strncmp(slash, "/sbox-", 6), 0);
	*slash = '\0';
	ck_assert_str_eq(rel, "user.slice/u.service");
	snprintf(rel, sizeof rel, "%s/memory.max", cg.dirs[0] + strlen(root) + 1);
	get(rel, buf, sizeof buf);
	ck_assert_str_eq(buf, "1048576\n");
	snprintf(rel, sizeof rel, "%s/pids.max", cg.dirs[0] + strlen(root) + 1);
	get(rel, buf, sizeof buf);
	ck_assert_str_eq(buf, "50\n");
	snprintf(rel, sizeof rel, "%s/cpu.weight", cg.dirs[0] + strlen(root) + 1);
	get(rel, buf, sizeof buf);
	ck_assert_str_eq(buf, "100\n");
	j = container_cgroup_describe(&cg);
	ck_assert_str_eq(json_string_value(json_object_get(j, "cgroup")),
	    cg.dirs[0]);
	json_decref(j);
	container_cgroup_cleanup(&cg);
	container_start_shutdown();

	/* not delegated: no cgroup, and the mode says why */
	unlink(self);
	put("self", "0::/\n");
	container_cgroup_init(base, 0);
	ck_assert_int_eq(strncmp(container_cgroup_mode(), "none: memory is "
	    "limited per process (RLIMIT_AS)", 47), 0);
	ck_assert_int_eq(container_cgroup_setup(&l, &cg, &err), 0);
	ck_assert_int_eq(cg.n, 0);
	j = container_cgroup_describe(&cg);
	ck_assert_str_eq(json_string_value(json_object_get(j, "cgroup")),
	    container_cgroup_mode());
	json_decref(j);
	container_start_shutdown();
	event_base_free(base);
}
END_TEST

/* A process's start time (/proc/PID/stat field 22). */
static unsigned long long
test_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
	fclose(f);
	ck_assert_ptr_nonnull(p = strrchr(buf, ')'));
	for (i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p + 1, "%llu", &t), 1);
	return t;
}

/* The name marks a cgroup in the mkdir itself: an unmarked
 * sbox-<pid>-<start>-<n> of a gone sboxd is swept, one of this process
 * stays; the parser takes exactly the two forms. */
START_TEST(test_sweep_unmarked_by_name)
{
	struct event_base *base = event_base_new();
	char gone_name[96], live_name[PATH_MAX * 2], earlier[96];
	char path[PATH_MAX], *slash;
	unsigned long long start;
	pid_t gone = dead_pid();
	long pid;

	ck_assert_int_eq(cgroup_name_parse("sbox-12-3", &pid, &start), 0);
	ck_assert_int_eq(pid, 12);
	ck_assert(start == 0);
	ck_assert_int_eq(cgroup_name_parse("sbox-12-456-3", &pid, &start), 0);
	ck_assert_int_eq(pid, 12);
	ck_assert(start == 456);
	ck_assert_int_eq(cgroup_name_parse("sbox-12", &pid, &start), -1);
	ck_assert_int_eq(cgroup_name_parse("sbox-12-4-5-6", &pid, &start), -1);
	ck_assert_int_eq(cgroup_name_parse("sbox-12-x", &pid, &start), -1);
	ck_assert_int_eq(cgroup_name_parse("sbox-0-1", &pid, &start), -1);
	ck_assert_int_eq(cgroup_name_parse("sbox-12--1", &pid, &start), -1);
	ck_assert_int_eq(cgroup_name_parse("sbox-12-1-", &pid, &start), -1);
	ck_assert_int_eq(cgroup_name_parse("box-12-1", &pid, &start), -1);

	dir("pids/box");
	snprintf(path, sizeof path, "%s/pids/box", root);
	/* this process's own name, as container_cgroup_make makes it */
	ck_assert_int_eq(cgroup_name(live_name, sizeof live_name, path, 9), 0);
	slash = strrchr(live_name, '/');
	ck_assert_int_eq(cgroup_name_parse(slash + 1, &pid, &start), 0);
	ck_assert_int_eq(pid, getpid());
	ck_assert(start != 0);
	/* this process counts as gone (the sweep runs before it makes any):
	 * the live one is its parent's, with the parent's start time */
	ck_assert_int_eq(mkdir(live_name, 0755), 0);
	rmdir(live_name);
	snprintf(live_name, sizeof live_name, "%s/sbox-%d-%llu-1", path,
	    (int)getppid(), test_start_time(getppid()));
	ck_assert_int_eq(mkdir(live_name, 0755), 0);
	snprintf(gone_name, sizeof gone_name, "pids/box/sbox-%d-777-1",
	    (int)gone);
	dir(gone_name);
	/* our pid, an earlier start time: an earlier sboxd's */
	snprintf(earlier, sizeof earlier, "pids/box/sbox-%d-1-2", (int)getpid());
	dir(earlier);
	cgroup_timer(base);
	ck_assert_int_eq(cgroup_sweep(path), 2);
	ck_assert(!exists(gone_name));
	ck_assert(!exists(earlier));
	ck_assert_int_eq(access(live_name, F_OK), 0);
	rmdir(live_name);
	cgroup_timer(NULL);
	event_base_free(base);
}
END_TEST

START_TEST(test_owner_gone)
{
	char path[PATH_MAX * 2];
	int p[2], q[2];
	pid_t pid;
	char c;

	ck_assert(cgroup_owner_gone(dead_pid(), 0));
	ck_assert(cgroup_owner_gone(getpid(), 0));
	ck_assert(cgroup_owner_gone(0, 0));
	/* alive, but another start time: the pid was reused */
	ck_assert(cgroup_owner_gone(getppid(), 1));
	/* a live process's own mark keeps its cgroup; once it is gone, the
	 * cgroup goes */
	dir("pids/live");
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(pipe(q), 0);
	snprintf(path, sizeof path, "%s/pids/live/sbox-1-1", root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	if ((pid = fork()) == 0) {
		close(p[0]);
		close(q[1]);
		c = cgroup_mark(path) == 0 ? 'y' : 'n';
		if (write(p[1], &c, 1) != 1 || read(q[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	close(p[1]);
	close(q[0]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	ck_assert_int_eq(cgroup_mark_gone(path), 0);
	snprintf(path, sizeof path, "%s/pids/live", root);
	ck_assert_int_eq(cgroup_sweep(path), 0);
	ck_assert(exists("pids/live/sbox-1-1"));
	close(q[1]);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(cgroup_sweep(path), 1);
	ck_assert(!exists("pids/live/sbox-1-1"));
	close(p[0]);
}
END_TEST

/* Joining a container's cgroup: the process is written to its procs
 * file; a write that fails (here the file size limit) is -1 naming the
 * cgroup, which bwrap's forked child turns into "cannot put the sandbox
 * in its cgroup" and an exit without bwrap. */
START_TEST(test_join_failure_names_the_cgroup)
{
	struct event_base *base = event_base_new();
	struct rlimit one = { 1, RLIM_INFINITY };
	struct plan_limits l = {0};
	struct container_cg cg;
	sbox_error err = {0};
	const char *which = NULL;
	int status, k;
	pid_t p;

	put("self", "0::/user.slice/u.service\n");
	dir("user.slice/u.service");
	put("user.slice/u.service/cgroup.subtree_control", "");
	put("user.slice/u.service/cgroup.procs", "");
	put("user.slice/u.service/cgroup.controllers", "memory pids\n");
	container_cgroup_init(base, 0);
	l.pids = 50;
	ck_assert_int_eq(container_cgroup_setup(&l, &cg, &err), 0);
	ck_assert_int_eq(cg.n, 1);
	for (k = 0; k < 2; k++) {
		signal(SIGXFSZ, SIG_IGN);
		if ((p = fork()) == 0) {
			if (k == 1 && setrlimit(RLIMIT_FSIZE, &one) < 0)
				_exit(3);
			if (k == 1)	/* past the one byte the limit leaves */
				(void)!write(cg.procs_fd[0], "0\n", 2);
			if (container_cgroup_join(&cg, &which) == 0)
				_exit(k == 0 ? 0 : 1);
			_exit(k == 1 && which == cg.dirs[0] && errno == EFBIG ?
			    0 : 2);
		}
		ck_assert_int_gt(p, 0);
		ck_assert_int_eq(waitpid(p, &status, 0), p);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "case %d: status %d", k, status);
	}
	container_cgroup_cleanup(&cg);
	container_start_shutdown();
	event_base_free(base);
}
END_TEST

/* The suite. */
static Suite *
cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_own_paths);
	tcase_add_test(tc, test_delegate);
	tcase_add_test(tc, test_sweep_leftovers);
	tcase_add_test(tc, test_sweep_unmarked_by_name);
	tcase_add_test(tc, test_owner_gone);
	tcase_add_test(tc, test_container_in_delegated_cgroup);
	tcase_add_test(tc, test_join_failure_names_the_cgroup);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	sr = srunner_create(cgroup_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
