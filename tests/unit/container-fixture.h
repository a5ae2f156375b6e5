/* container-fixture.h: what the container suites share (test-container.c,
 * test-confine.c, test-init.c): where this binary and bin/sbox-init are,
 * a plan like a profile's over a fresh project folder, starting and closing
 * a container on a private loop, and running commands in it. Static inline
 * functions, since each tests/unit/test-NAME.c is linked on its own. */
#ifndef SBOX_TEST_CONTAINER_FIXTURE_H
#define SBOX_TEST_CONTAINER_FIXTURE_H

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/container/child.h"
#include "daemon/container/container.h"
#include "protocol/ctl.h"
#include "policy/guard.h"
#include "policy/plan.h"

#define ALL_SYS 0x1ff

static char self_path[PATH_MAX]; /* this binary */
static char bin_dir[PATH_MAX - 64]; /* its bin/ (holds sbox-init) */
static char init_path[PATH_MAX];
static char proj[256];

/* ---------- helpers ---------- */

struct tctx {
	struct event_base *base;
	struct container  *c;
	int                got_ready;
	int                ready_ok;
	sbox_error         ready_err;
	int                closed;
	int                timed_out;
};

struct cmdres {
	int        done;
	int        spawned;
	pid_t      pid;
	int        code, sig, timed_out;
	int        failed;
	sbox_error err;
};

static inline void
on_ready(struct container *c, const sbox_error *err, void *arg)
{
	struct tctx *t = arg;

	(void)c;
	t->got_ready = 1;
	t->ready_ok = err == NULL;
	if (err)
		t->ready_err = *err;
}

static inline void
on_closed(struct container *c, void *arg)
{
	(void)c;
	((struct tctx *)arg)->closed = 1;
}

static inline void
on_deadline(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	((struct tctx *)arg)->timed_out = 1;
}

/* Run the loop until *flag is set or ms pass; returns *flag. */
static inline int
run_until(struct tctx *t, int *flag, int ms)
{
	struct event *ev = evtimer_new(t->base, on_deadline, t);
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	t->timed_out = 0;
	evtimer_add(ev, &tv);
	while (!*flag && !t->timed_out)
		event_base_loop(t->base, EVLOOP_ONCE);
	event_free(ev);
	return *flag;
}

/* A plan like a profile's: system read-only, private /tmp, the project
 * writable with protected paths, this binary's folder visible. */
static struct plan_mount mounts[32];
static inline struct plan
make_plan(void)
{
	static char p_hooks[PATH_MAX], p_envrc[PATH_MAX], p_ro[PATH_MAX],
	    p_secret[PATH_MAX];
	struct plan p;
	size_t n = 0;

#define ADD(k, s, d, o) mounts[n++] = (struct plan_mount){ .kind = (k), \
	.src = (s), .dst = (d), .optional = (o) }
	ADD(PLAN_MOUNT_RO_BIND, "/usr", "/usr", 0);
	ADD(PLAN_MOUNT_RO_BIND, "/bin", "/bin", 1);
	ADD(PLAN_MOUNT_RO_BIND, "/sbin", "/sbin", 1);
	ADD(PLAN_MOUNT_RO_BIND, "/lib", "/lib", 1);
	ADD(PLAN_MOUNT_RO_BIND, "/lib64", "/lib64", 1);
	ADD(PLAN_MOUNT_RO_BIND, "/etc", "/etc", 0);
	mounts[n++] = (struct plan_mount){ .kind = PLAN_MOUNT_TMPFS,
	    .dst = "/tmp", .mode = 01777, .size_bytes = 8 << 20 };
	ADD(PLAN_MOUNT_PROC, NULL, "/proc", 0);
	ADD(PLAN_MOUNT_DEV, NULL, "/dev", 0);
	ADD(PLAN_MOUNT_RW_BIND, proj, proj, 0);
	ADD(PLAN_MOUNT_RO_BIND, bin_dir, bin_dir, 0);
	snprintf(p_hooks, sizeof p_hooks, "%s/.git/hooks", proj);
	snprintf(p_envrc, sizeof p_envrc, "%s/.envrc", proj);
	snprintf(p_ro, sizeof p_ro, "%s/ro.txt", proj);
	snprintf(p_secret, sizeof p_secret, "%s/secret.txt", proj);
	mounts[n++] = (struct plan_mount){ .kind = PLAN_MOUNT_RO_BIND,
	    .src = p_hooks, .dst = p_hooks, .missing = 1, .is_dir = 1 };
	mounts[n++] = (struct plan_mount){ .kind = PLAN_MOUNT_RO_BIND,
	    .src = p_envrc, .dst = p_envrc, .missing = 1 };
	ADD(PLAN_MOUNT_RO_BIND, p_ro, p_ro, 0);
	ADD(PLAN_MOUNT_HIDE_FILE, NULL, p_secret, 0);
#undef ADD
	memset(&p, 0, sizeof p);
	/* the file guard keeps the missing protected paths uncreatable */
	static char *roots[2], *missing[3];
	static struct guard_spec guard;
	roots[0] = proj;
	missing[0] = p_hooks;
	missing[1] = p_envrc;
	guard.roots = roots;
	guard.missing = missing;
	guard.home = "/nonexistent-home";
	guard.supervise = 1;
	p.guard = &guard;
	p.mounts = mounts;
	p.n_mounts = n;
	p.syscalls = ALL_SYS;
	p.cwd = proj;
	p.project = proj;
	p.hostname = "sbox-test";
	p.uid = getuid();
	p.gid = getgid();
	p.limits.pids = 64;
	p.limits.nofile = 256;
	p.limits.fsize_bytes = 1 << 20;
	p.sandboxed = 1;
	return p;
}

/* Write a file in the project (host side). */
static inline void
put(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", proj, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* True when name exists in the project (host side, no follow). */
static inline int
exists(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", proj, name);
	return lstat(path, &st) == 0;
}

/* A fresh project folder with ro.txt and secret.txt. */
static inline void
make_project(void)
{
	snprintf(proj, sizeof proj, "%s/sbox-ctest-XXXXXX",
	    getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(proj));
	put("ro.txt", "read only\n");
	put("secret.txt", "s3cret\n");
}

/* Remove the project folder (one level deep is all the tests make). */
static inline void
remove_project(void)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", proj);
	ck_assert_int_eq(system(cmd), 0);
}

/* Start a container for plan p and wait until it is ready. */
static inline void
start(struct tctx *t, const struct plan *p)
{
	struct container_opts o = { 0 };
	sbox_error err = { 0 };

	memset(t, 0, sizeof *t);
	t->base = event_base_new();
	ck_assert_ptr_nonnull(t->base);
	o.base = t->base;
	o.init_path = init_path;
	o.on_ready = on_ready;
	o.arg = t;
	t->c = container_start(p, &o, &err);
	ck_assert_msg(t->c != NULL, "container_start: %s", err.message);
	ck_assert(run_until(t, &t->got_ready, 15000));
	ck_assert_msg(t->ready_ok, "not ready: %s: %s", t->ready_err.name,
	    t->ready_err.message);
}

/* Close the container, wait for it; bwrap must be gone. */
static inline void
stop(struct tctx *t)
{
	pid_t pid = container_pid(t->c);

	container_close(t->c, on_closed, t);
	ck_assert(run_until(t, &t->closed, 5000));
	/* Let the deferred free run. */
	event_base_loop(t->base, EVLOOP_NONBLOCK);
	ck_assert_int_eq(kill(pid, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	child_shutdown();
	event_base_free(t->base);
}

static inline void
cmd_spawned(struct container *c, uint64_t id, pid_t pid,
    const sbox_error *err, void *arg)
{
	struct cmdres *r = arg;

	(void)c;
	(void)id;
	if (err) {
		r->failed = 1;
		r->err = *err;
		r->done = 1;
		return;
	}
	r->spawned = 1;
	r->pid = pid;
}

static inline void
cmd_exit(struct container *c, uint64_t id, int code, int sig, int to,
    void *arg)
{
	struct cmdres *r = arg;

	(void)c;
	(void)id;
	r->code = code;
	r->sig = sig;
	r->timed_out = to;
	r->done = 1;
}

static char *const test_env[] = { "PATH=/usr/bin:/bin", "HOME=/tmp",
	"LC_ALL=C", NULL };

/* Run argv inside; stdout+stderr into out (NUL-terminated). */
static inline void
run_cmd(struct tctx *t, char *const *argv, uint64_t timeout_ms, char *out,
    size_t outsz, struct cmdres *r)
{
	struct container_cmd cmd = { 0 };
	sbox_error err = { 0 };
	int p[2], nul;
	size_t off = 0;
	ssize_t n;

	memset(r, 0, sizeof *r);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cmd.argv = argv;
	cmd.env = test_env;
	cmd.fds[0] = nul;
	cmd.fds[1] = p[1];
	cmd.fds[2] = p[1];
	cmd.timeout_ms = timeout_ms;
	cmd.kill_group = 1;
	cmd.on_spawned = cmd_spawned;
	cmd.on_exit = cmd_exit;
	cmd.arg = r;
	ck_assert_msg(container_spawn(t->c, &cmd, NULL, &err) == 0,
	    "spawn: %s", err.message);
	close(nul);
	close(p[1]);
	ck_assert_msg(run_until(t, &r->done, 20000), "command did not end");
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (out && off + 1 < outsz &&
	    (n = read(p[0], out + off, outsz - 1 - off)) > 0)
		off += (size_t)n;
	if (out)
		out[off] = '\0';
	close(p[0]);
}

/* Run `sh -c script`; returns the exit code. */
static inline int
sh(struct tctx *t, const char *script, char *out, size_t outsz)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct cmdres r;

	run_cmd(t, argv, 0, out, outsz, &r);
	ck_assert_msg(!r.failed, "sh failed to start: %s", r.err.message);
	return r.sig ? 128 + r.sig : r.code;
}

/* Find this binary, its bin/ and bin/sbox-init next to it; -1 if not. */
static inline int
container_fixture_paths(void)
{
	char tmp[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
	if (n <= 0)
		return -1;
	self_path[n] = '\0';
	/* bin/tests/test-NAME -> bin */
	snprintf(tmp, sizeof tmp, "%s", self_path);
	snprintf(bin_dir, sizeof bin_dir, "%s", dirname(dirname(tmp)));
	snprintf(init_path, sizeof init_path, "%s/sbox-init", bin_dir);
	return 0;
}

/* Run a suite of the container tests: find the binaries, ignore SIGPIPE,
 * run; the exit status says whether every test passed. */
static inline int
container_fixture_run(Suite *s)
{
	SRunner *sr;
	int failed;

	if (container_fixture_paths() < 0)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}

#endif
