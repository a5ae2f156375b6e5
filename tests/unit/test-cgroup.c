/* test-cgroup.c: sboxd's cgroup paths, delegation and leftovers, against a
 * fake cgroup tree in a temp folder (cgroup_set_paths). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "daemon/container/cgroup.h"
#include "daemon/container/child.h"
#include "daemon/container/container-internal.h"

static char root[PATH_MAX];
static char self[PATH_MAX + 16];

/* Write a file below the fake root. */
static void
put(const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* Make a folder (and its parents) below the fake root. */
static void
dir(const char *rel)
{
	char path[PATH_MAX * 2], *p;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	mkdir(path, 0755);
}

/* Does a path below the fake root exist? */
static int
exists(const char *rel)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	return access(path, F_OK) == 0;
}

/* A fresh fake tree; /proc/self/cgroup is the file "self". */
static void
setup(void)
{
	snprintf(root, sizeof root, "/tmp/sbox-test-cgroup-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(self, sizeof self, "%s/self", root);
	cgroup_set_paths(root, self);
}

/* Remove the fake tree. */
static void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	cgroup_set_paths(NULL, NULL);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* A pid that is certainly gone. */
static pid_t
dead_pid(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

/* Mark a folder below the fake root as made by pid (started at start) in
 * the boot boot (NULL: this one). */
static void
mark(const char *rel, pid_t pid, unsigned long long start, const char *boot)
{
	char path[PATH_MAX * 2], val[160], id[64] = "";
	FILE *f;

	if (boot == NULL) {
		ck_assert_ptr_nonnull(f = fopen("/proc/sys/kernel/random/boot_id",
		    "r"));
		ck_assert_ptr_nonnull(fgets(id, sizeof id, f));
		fclose(f);
		id[strcspn(id, "\n")] = '\0';
		boot = id;
	}
	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(val, sizeof val, "%s %d %llu", boot, (int)pid, start);
	ck_assert_int_eq(setxattr(path, CGROUP_MARK_XATTR, val, strlen(val), 0),
	    0);
}

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

/* Read the first line of a file below the fake root. */
static void
get(const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	ck_assert_msg((f = fopen(path, "r")) != NULL, "%s", path);
	if (fgets(buf, (int)size, f) == NULL)
		buf[0] = '\0';
	fclose(f);
}

/* A delegated cgroup v2 fake tree (user.slice/u.service, with cpu, memory
 * and pids), its mode taken on base. */
static void
delegated_tree(struct event_base *base)
{
	put("self", "0::/user.slice/u.service\n");
	dir("user.slice/u.service");
	put("user.slice/u.service/cgroup.subtree_control", "");
	put("user.slice/u.service/cgroup.procs", "");
	put("user.slice/u.service/cgroup.controllers", "cpu memory pids\n");
	container_cgroup_init(base, 0);
}

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

/* Take the files out of a fake cgroup folder (cgroupfs removes an empty
 * cgroup with its files; a fake one needs them gone for rmdir). */
static void
empty(const char *d)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof cmd, "rm -f '%s'/*", d);
	ck_assert_int_eq(system(cmd), 0);
}

/* Is pid gone (reaped: no such process)? */
static int
gone(pid_t pid)
{
	return kill(pid, 0) == -1 && errno == ESRCH;
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
	tcase_add_test(tc, test_owner_gone);
	tcase_add_test(tc, test_container_in_delegated_cgroup);
	tcase_add_test(tc, test_spare_launcher);
	tcase_add_test(tc, test_spare_that_cannot_join_is_not_used);
	tcase_add_test(tc, test_spare_take_survives_signals);
	tcase_add_test(tc, test_join_failure_names_the_cgroup);
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
	sr = srunner_create(cgroup_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
