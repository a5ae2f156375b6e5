/* test-container.c: real containers (bwrap + bin/sbox-init) from a hand-built
 * plan: commands, file requests, protected paths, seccomp (the test binary
 * re-runs itself inside as a probe: `test-container --probe NAME`), limits,
 * the proxy's listeners, failures, and that closing leaves nothing behind.
 * Run it as root and as an unprivileged user. */
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

#include "daemon/child.h"
#include "daemon/container.h"
#include "daemon/ctl.h"
#include "policy/plan.h"

#define ALL_SYS 0x1ff

static char self_path[PATH_MAX]; /* this binary */
static char bin_dir[PATH_MAX - 64]; /* its bin/ (holds sbox-init) */
static char init_path[PATH_MAX];
static char proj[256];

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

static void
on_ready(struct container *c, const sbox_error *err, void *arg)
{
	struct tctx *t = arg;

	(void)c;
	t->got_ready = 1;
	t->ready_ok = err == NULL;
	if (err)
		t->ready_err = *err;
}

static void
on_closed(struct container *c, void *arg)
{
	(void)c;
	((struct tctx *)arg)->closed = 1;
}

static void
on_deadline(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	((struct tctx *)arg)->timed_out = 1;
}

/* Run the loop until *flag is set or ms pass; returns *flag. */
static int
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
static struct plan
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
static void
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
static int
exists(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", proj, name);
	return lstat(path, &st) == 0;
}

/* A fresh project folder with ro.txt and secret.txt. */
static void
make_project(void)
{
	snprintf(proj, sizeof proj, "/tmp/sbox-ctest-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(proj));
	put("ro.txt", "read only\n");
	put("secret.txt", "s3cret\n");
}

/* Remove the project folder (one level deep is all the tests make). */
static void
remove_project(void)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", proj);
	ck_assert_int_eq(system(cmd), 0);
}

/* Start a container for plan p and wait until it is ready. */
static void
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
static void
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

static void
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

static void
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
static void
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
static int
sh(struct tctx *t, const char *script, char *out, size_t outsz)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct cmdres r;

	run_cmd(t, argv, 0, out, outsz, &r);
	ck_assert_msg(!r.failed, "sh failed to start: %s", r.err.message);
	return r.sig ? 128 + r.sig : r.code;
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

/* ---------- file request callbacks ---------- */

struct fres {
	int        done;
	int        fd;
	int        errnum;
	sbox_error err;
	int        failed;
	char       type[16];
	long long  size;
};

static void
open_cb(struct container *c, int fd, int errnum, const sbox_error *err,
    void *arg)
{
	struct fres *f = arg;

	(void)c;
	f->fd = fd;
	f->errnum = errnum;
	if (err) {
		f->failed = 1;
		f->err = *err;
	}
	f->done = 1;
}

static void
done_cb(struct container *c, json_t *result, int errnum,
    const sbox_error *err, void *arg)
{
	struct fres *f = arg;
	const char *t;

	(void)c;
	f->errnum = errnum;
	if (err) {
		f->failed = 1;
		f->err = *err;
	}
	if (result) {
		t = json_string_value(json_object_get(result, "type"));
		snprintf(f->type, sizeof f->type, "%s", t ? t : "");
		f->size = json_integer_value(json_object_get(result, "size"));
	}
	f->done = 1;
}

/* Open path inside; returns the result. */
static struct fres
open_in(struct tctx *t, const char *path, unsigned flags)
{
	struct fres f = { .fd = -1 };
	sbox_error err = { 0 };

	ck_assert_int_eq(container_open(t->c, path, flags, 0644, open_cb, &f,
	    &err), 0);
	ck_assert(run_until(t, &f.done, 5000));
	return f;
}

/* ---------- tests ---------- */

START_TEST(test_commands_and_files)
{
	char out[4096], path[PATH_MAX], *bad[] = { "/nonexistent/prog", NULL };
	struct cmdres r;
	struct fres f = { 0 };
	sbox_error err = { 0 };
	struct tctx t;
	struct plan p;
	FILE *fp;
	ssize_t n;

	make_project();
	p = make_plan();
	start(&t, &p);
	fprintf(stderr, "container ready in %lld ms\n",
	    container_start_ms(t.c));

	/* A command: exit code, output, a file written in the project. */
	ck_assert_int_eq(sh(&t, "echo hi > out; echo printed; exit 3", out,
	    sizeof out), 3);
	ck_assert_str_eq(out, "printed\n");
	snprintf(path, sizeof path, "%s/out", proj);
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_nonnull(fgets(out, sizeof out, fp));
	fclose(fp);
	ck_assert_str_eq(out, "hi\n");

	/* The system is read-only; the working folder is the project. */
	ck_assert_int_ne(sh(&t, "touch /usr/sbox-x 2>/dev/null", NULL, 0), 0);
	ck_assert_int_eq(sh(&t, "pwd", out, sizeof out), 0);
	ck_assert_int_eq(strncmp(out, proj, strlen(proj)), 0);
	/* Environment is exactly what was given. */
	ck_assert_int_eq(sh(&t, "env | sort", out, sizeof out), 0);
	ck_assert_ptr_nonnull(strstr(out, "HOME=/tmp\n"));
	ck_assert_ptr_null(strstr(out, "SBOX"));
	/* No capabilities; hostname; pid 1 is sbox-init and shows nothing. */
	ck_assert_int_eq(sh(&t, "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status",
	    out, sizeof out), 0);
	ck_assert_ptr_nonnull(strstr(out, "CapEff:\t0000000000000000"));
	ck_assert_ptr_nonnull(strstr(out, "CapBnd:\t0000000000000000"));
	ck_assert_int_eq(sh(&t, "hostname", out, sizeof out), 0);
	ck_assert_str_eq(out, "sbox-test\n");
	ck_assert_int_eq(sh(&t, "tr '\\0' ' ' < /proc/1/cmdline", out,
	    sizeof out), 0);
	ck_assert_str_eq(out, "/.sbox/init --ctl 3 --proxy-port 3128 ");
	ck_assert_int_ne(sh(&t, "cat /proc/1/environ", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "readlink /proc/1/fd/0", NULL, 0), 0);
	/* Processes outside are invisible. */
	ck_assert_int_eq(sh(&t, "ls /proc | grep -c '^[0-9]'", out, sizeof out),
	    0);
	ck_assert_int_le(atoi(out), 4);
	/* A hidden file cannot be read. */
	ck_assert_int_ne(sh(&t, "cat secret.txt", NULL, 0), 0);

	/* A command that cannot start. */
	memset(&r, 0, sizeof r);
	run_cmd(&t, bad, 0, NULL, 0, &r);
	ck_assert(r.failed);
	ck_assert_str_eq(r.err.name, E_NOT_FOUND);

	/* Files through sbox-init see the sandbox's view. */
	snprintf(path, sizeof path, "%s/out", proj);
	f = open_in(&t, path, CONTAINER_O_READ);
	ck_assert_msg(!f.failed, "%s", f.err.message);
	n = read(f.fd, out, sizeof out - 1);
	ck_assert_int_eq(n, 3);
	out[n] = '\0';
	ck_assert_str_eq(out, "hi\n");
	close(f.fd);
	snprintf(path, sizeof path, "%s/new.txt", proj);
	f = open_in(&t, path, CONTAINER_O_WRITE | CONTAINER_O_CREATE |
	    CONTAINER_O_TRUNC);
	ck_assert(!f.failed);
	ck_assert_int_eq(write(f.fd, "w\n", 2), 2);
	close(f.fd);
	ck_assert(exists("new.txt"));
	f = open_in(&t, "/usr/sbox-new", CONTAINER_O_WRITE | CONTAINER_O_CREATE);
	ck_assert(f.failed);
	ck_assert_int_eq(f.errnum, EROFS);
	ck_assert_str_eq(f.err.name, E_PERMISSION);
	snprintf(path, sizeof path, "%s/ro.txt", proj);
	f = open_in(&t, path, CONTAINER_O_WRITE);
	ck_assert(f.failed);
	ck_assert_str_eq(f.err.name, E_PERMISSION);
	snprintf(path, sizeof path, "%s/secret.txt", proj);
	f = open_in(&t, path, CONTAINER_O_READ);
	ck_assert(f.failed);
	ck_assert_str_eq(f.err.name, E_PERMISSION);
	f = open_in(&t, "/nonexistent", CONTAINER_O_READ);
	ck_assert(f.failed);
	ck_assert_str_eq(f.err.name, E_NOT_FOUND);
	/* /root and the host's home are not in the plan at all. */
	f = open_in(&t, "/root", CONTAINER_O_READ | CONTAINER_O_DIR);
	ck_assert(f.failed);
	ck_assert_str_eq(f.err.name, E_NOT_FOUND);

	memset(&f, 0, sizeof f);
	snprintf(path, sizeof path, "%s/sub", proj);
	ck_assert_int_eq(container_mkdir(t.c, path, 0755, done_cb, &f, &err),
	    0);
	ck_assert(run_until(&t, &f.done, 5000));
	ck_assert(!f.failed);
	ck_assert(exists("sub"));
	memset(&f, 0, sizeof f);
	snprintf(path, sizeof path, "%s/ro.txt", proj);
	ck_assert_int_eq(container_stat(t.c, path, 1, done_cb, &f, &err), 0);
	ck_assert(run_until(&t, &f.done, 5000));
	ck_assert(!f.failed);
	ck_assert_str_eq(f.type, "file");
	ck_assert_int_eq(f.size, 10);
	ck_assert_int_eq(container_open(t.c, "relative", CONTAINER_O_READ,
	    0, open_cb, &f, &err), -1);
	ck_assert_str_eq(err.name, E_INVALID_PARAMS);

	stop(&t);
	remove_project();
}
END_TEST

START_TEST(test_protected_paths)
{
	char out[4096];
	struct tctx t;
	struct plan p;
	json_t *ph;

	make_project();
	p = make_plan();
	start(&t, &p);
	/* Placeholders exist on the host while the session runs. */
	ck_assert(exists(".git"));
	ck_assert(exists(".git/hooks"));
	ck_assert(exists(".envrc"));
	ph = container_placeholders(t.c);
	ck_assert_uint_eq(json_array_size(ph), 3);
	json_decref(ph);

	/* Cannot create what is missing, write what is protected, or get
	 * around it by renaming or removing a parent. */
	ck_assert_int_ne(sh(&t, "touch .git/hooks/pre-commit", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "echo x > .envrc", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "rm -f .envrc", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "mv .envrc e2", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "mv .git .git2", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "mv .git/hooks .git/h2", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "rmdir .git/hooks", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "echo x > ro.txt", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "mv ro.txt r2", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "rm -f ro.txt", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "ln ro.txt hard", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "cd .. && mv \"$OLDPWD\" \"$OLDPWD.x\"", NULL,
	    0), 0);
	/* Other files in those folders stay writable. */
	ck_assert_int_eq(sh(&t, "echo ok > .git/other && cat ro.txt", out,
	    sizeof out), 0);
	ck_assert_str_eq(out, "read only\n");
	ck_assert(!exists(".git/hooks/pre-commit"));
	ck_assert(!exists(".git2"));
	stop(&t);

	/* Nothing of the placeholders is left; what the sandbox wrote is. */
	ck_assert(!exists(".envrc"));
	ck_assert(!exists(".git/hooks"));
	ck_assert(exists(".git/other"));
	ck_assert(exists("ro.txt"));
	remove_project();
}
END_TEST

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

START_TEST(test_close_leaves_nothing)
{
	char *bg[] = { "sh", "-c", "setsid sleep 1001.25 & sleep 1001.5 & "
	    "echo started", NULL };
	char out[64], path[300], buf[256];
	struct dirent *de;
	struct cmdres r;
	struct tctx t;
	struct plan p;
	DIR *d;
	int fd, found = 0;
	ssize_t n;

	make_project();
	p = make_plan();
	start(&t, &p);
	run_cmd(&t, bg, 0, out, sizeof out, &r);
	ck_assert_int_eq(r.code, 0);
	stop(&t);
	/* No process with our markers remains anywhere. */
	d = opendir("/proc");
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
		if ((fd = open(path, O_RDONLY)) < 0)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0 && memmem(buf, (size_t)n, "sleep\0" "1001.", 11) !=
		    NULL) {
			buf[n] = '\0';
			fprintf(stderr, "left behind: pid %s: %s %s\n",
			    de->d_name, buf, buf + strlen(buf) + 1);
			found++;
		}
	}
	closedir(d);
	ck_assert_int_eq(found, 0);
	ck_assert(!exists(".envrc"));
	ck_assert(!exists(".git"));
	remove_project();
}
END_TEST

START_TEST(test_start_failures)
{
	struct container_opts o = { 0 };
	sbox_error err = { 0 };
	struct plan_mount *m;
	struct tctx t;
	struct plan p;

	make_project();
	p = make_plan();
	memset(&t, 0, sizeof t);
	t.base = event_base_new();
	o.base = t.base;
	o.init_path = init_path;
	o.on_ready = on_ready;
	o.arg = &t;
	/* bwrap missing */
	o.bwrap_path = "/nonexistent/bwrap";
	ck_assert_ptr_null(container_start(&p, &o, &err));
	ck_assert_str_eq(err.name, E_SANDBOX_UNAVAILABLE);
	ck_assert_ptr_nonnull(strstr(err.message, "apt install bubblewrap"));
	o.bwrap_path = NULL;
	/* sbox-init missing */
	o.init_path = "/nonexistent/sbox-init";
	ck_assert_ptr_null(container_start(&p, &o, &err));
	ck_assert_str_eq(err.name, E_SANDBOX_UNAVAILABLE);
	o.init_path = init_path;
	/* a mount that fails: the error names the path */
	m = &mounts[p.n_mounts++];
	*m = (struct plan_mount){ .kind = PLAN_MOUNT_RO_BIND,
	    .src = "/nonexistent-sbox-src", .dst = "/opt/x" };
	t.c = container_start(&p, &o, &err);
	ck_assert_ptr_nonnull(t.c);
	ck_assert(run_until(&t, &t.got_ready, 10000));
	ck_assert(!t.ready_ok);
	ck_assert_str_eq(t.ready_err.name, E_SANDBOX_SETUP);
	ck_assert_msg(strstr(t.ready_err.message, "/nonexistent-sbox-src") !=
	    NULL, "%s", t.ready_err.message);
	/* nothing may be used after a failure; placeholders are gone */
	ck_assert(!container_is_ready(t.c));
	ck_assert(!exists(".envrc"));
	stop(&t);
	/* what bwrap says about user namespaces is explained */
	container_explain("bwrap: setting up uid map: Permission denied\n", 256,
	    &err);
	ck_assert_str_eq(err.name, E_SANDBOX_UNAVAILABLE);
	ck_assert_ptr_nonnull(strstr(err.message, "namespace"));
	container_explain("bwrap: No permissions to creating new namespace, "
	    "likely because...\n", 256, &err);
	ck_assert_str_eq(err.name, E_SANDBOX_UNAVAILABLE);
	container_explain("bwrap: Can't mkdir /newroot/a/b: Read-only file "
	    "system\n", 256, &err);
	ck_assert_str_eq(err.name, E_SANDBOX_SETUP);
	ck_assert_ptr_nonnull(strstr(err.message, "at /a/b"));
	remove_project();
}
END_TEST

START_TEST(test_start_time)
{
	long long ms[5], sum = 0;
	struct tctx t;
	struct plan p;
	int i;

	make_project();
	p = make_plan();
	for (i = 0; i < 5; i++) {
		start(&t, &p);
		ms[i] = container_start_ms(t.c);
		sum += ms[i];
		stop(&t);
	}
	fprintf(stderr, "start to ready: %lld %lld %lld %lld %lld ms "
	    "(mean %lld)\n", ms[0], ms[1], ms[2], ms[3], ms[4], sum / 5);
	ck_assert_int_lt(sum / 5, 2000);
	remove_project();
}
END_TEST

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

START_TEST(test_init_validates)
{
	int three[3], five[5], i, fds[CTL_FDS_MAX], nfds, st;
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
	m = ctl_msg("shutdown", NULL);
	ck_assert_int_eq(ctl_send(init_sock, m, NULL, 0, &err), 0);
	json_decref(m);
	ck_assert_int_eq(ctl_recv(init_sock, &m, fds, &nfds, 2, &err), CTL_EOF);
	ck_assert_int_eq(waitpid(init_bwrap, &st, 0), init_bwrap);
	for (i = 0; i < 5; i++)
		close(five[i]);
	close(init_sock);
}
END_TEST

START_TEST(test_init_refuses_outside)
{
	char *argv[] = { init_path, "--ctl", "3", NULL };
	int st;
	pid_t pid = fork();

	/* Not pid 1 of a sandbox: it must refuse (and kill nothing). */
	if (pid == 0) {
		execv(init_path, argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 1);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("container");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_commands_and_files);
	tcase_add_test(tc, test_protected_paths);
	tcase_add_test(tc, test_seccomp);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_proxy_listener);
	tcase_add_test(tc, test_close_leaves_nothing);
	tcase_add_test(tc, test_start_failures);
	tcase_add_test(tc, test_start_time);
	suite_add_tcase(s, tc);
	tc = tcase_create("ctl");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_ctl_channel);
	tcase_add_test(tc, test_init_validates);
	tcase_add_test(tc, test_init_refuses_outside);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	char tmp[PATH_MAX];
	SRunner *sr;
	ssize_t n;
	int failed;

	/* Probes exit with _exit: a sanitizer's exit-time leak check needs
	 * ptrace, which the sandbox refuses. */
	if (argc == 3 && strcmp(argv[1], "--probe") == 0)
		_exit(probe_call(argv[2]));
	if (argc == 3 && strcmp(argv[1], "--connect") == 0)
		_exit(probe_connect(atoi(argv[2])));
	n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
	if (n <= 0)
		return 2;
	self_path[n] = '\0';
	/* bin/tests/test-container -> bin */
	snprintf(tmp, sizeof tmp, "%s", self_path);
	snprintf(bin_dir, sizeof bin_dir, "%s", dirname(dirname(tmp)));
	snprintf(init_path, sizeof init_path, "%s/sbox-init", bin_dir);
	signal(SIGPIPE, SIG_IGN);
	sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
