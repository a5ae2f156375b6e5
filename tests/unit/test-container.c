/* test-container.c: real containers (bwrap + bin/sbox-init) from a hand-built
 * plan: commands, file requests, protected paths, failures, start time, and
 * that closing leaves nothing behind. Seccomp, limits and the proxy's
 * listeners are in test-confine.c; the control channel and sbox-init's
 * checks in test-init.c. Run it as root and as an unprivileged user. */
#include "tests/unit/container-fixture.h"

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

	make_project();
	{
		char g[PATH_MAX];
		snprintf(g, sizeof g, "%s/.git", proj);
		ck_assert_int_eq(mkdir(g, 0755), 0);
	}
	p = make_plan();
	start(&t, &p);
	/* Nothing of sbox's is on the host while the session runs (no
	 * placeholders: the file guard keeps missing paths uncreatable). */
	ck_assert(!exists(".git/hooks"));
	ck_assert(!exists(".envrc"));

	/* Cannot create what is missing, write what is protected, or get
	 * around it by renaming or removing a parent. */
	ck_assert_int_ne(sh(&t, "touch .git/hooks/pre-commit", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "echo x > .envrc", NULL, 0), 0);
	ck_assert_int_ne(sh(&t, "mkdir -p .git/hooks", NULL, 0), 0);
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
	/* What git's own work writes in a git folder stays writable (an
	 * allow list: another name there does not). */
	ck_assert_int_ne(sh(&t, "echo ok > .git/other", NULL, 0), 0);
	ck_assert_int_eq(sh(&t, "echo ok > .git/ORIG_HEAD && cat ro.txt", out,
	    sizeof out), 0);
	ck_assert_str_eq(out, "read only\n");
	ck_assert(!exists(".git/hooks/pre-commit"));
	ck_assert(!exists(".git2"));
	stop(&t);

	/* Nothing was made for the missing paths; what the sandbox wrote is. */
	ck_assert(!exists(".envrc"));
	ck_assert(!exists(".git/hooks"));
	ck_assert(exists(".git/ORIG_HEAD"));
	ck_assert(exists("ro.txt"));
	remove_project();
}
END_TEST

START_TEST(test_close_leaves_nothing)
{
	/* markers of this run's own (another run of the suite may be on) */
	char script[128], mark[32];
	char *bg[] = { "sh", "-c", script, NULL };
	char out[64], path[300], buf[256];
	struct dirent *de;
	struct cmdres r;
	struct tctx t;
	struct plan p;
	DIR *d;
	int fd, found = 0;
	ssize_t n;

	snprintf(mark, sizeof mark, "1001.%d", (int)getpid());
	snprintf(script, sizeof script, "setsid sleep %s5 & sleep %s7 & "
	    "echo started", mark, mark);
	make_project();
	p = make_plan();
	start(&t, &p);
	run_cmd(&t, bg, 0, out, sizeof out, &r);
	ck_assert_int_eq(r.code, 0);
	stop(&t);
	/* No process with our markers remains anywhere (one the kernel is
	 * still ending with its pid namespace gets up to 2 s to go). */
	for (int tries = 0; tries < 20; tries++) {
	if (tries > 0)
		usleep(100000);
	found = 0;
	d = opendir("/proc");
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
		if ((fd = open(path, O_RDONLY)) < 0)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0 && memmem(buf, (size_t)n, mark, strlen(mark)) !=
		    NULL && memmem(buf, (size_t)n, "sleep", 5) != NULL) {
			buf[n] = '\0';
			if (tries == 19)
				fprintf(stderr, "left behind: pid %s: %s %s\n",
				    de->d_name, buf, buf + strlen(buf) + 1);
			found++;
		}
	}
	closedir(d);
	if (found == 0)
		break;
	}
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
	/* (sources are held as descriptors before bwrap starts: a missing
	 * one fails at once) */
	t.c = container_start(&p, &o, &err);
	ck_assert_ptr_null(t.c);
	ck_assert_str_eq(err.name, E_SANDBOX_SETUP);
	ck_assert_msg(strstr(err.message, "/nonexistent-sbox-src") != NULL,
	    "%s", err.message);
	/* placeholders are gone */
	ck_assert(!exists(".envrc"));
	child_shutdown();
	event_base_free(t.base);
	t.base = NULL;
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

static Suite *
suite(void)
{
	Suite *s = suite_create("container");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_commands_and_files);
	tcase_add_test(tc, test_protected_paths);
	tcase_add_test(tc, test_close_leaves_nothing);
	tcase_add_test(tc, test_start_failures);
	tcase_add_test(tc, test_start_time);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return container_fixture_run(suite());
}
