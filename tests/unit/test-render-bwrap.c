/* test-render-bwrap.c: bwrap arguments for a hand-built plan. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "policy/render-bwrap.h"

#define M(k, s, d) { .kind = (k), .src = (s), .dst = (d) }

static struct plan_mount mounts[] = {
	M(PLAN_MOUNT_RO_BIND, "/usr", "/usr"),                      /* 0 */
	M(PLAN_MOUNT_SYMLINK, "usr/bin", "/bin"),                   /* 1 */
	{ .kind = PLAN_MOUNT_RO_BIND, .src = "/lib64", .dst = "/lib64",
	  .optional = 1 },                                          /* 2 */
	{ .kind = PLAN_MOUNT_TMPFS, .dst = "/tmp", .mode = 01777,
	  .size_bytes = 1048576 },                                  /* 3 */
	M(PLAN_MOUNT_PROC, NULL, "/proc"),                          /* 4 */
	M(PLAN_MOUNT_DEV, NULL, "/dev"),                            /* 5 */
	{ .kind = PLAN_MOUNT_DIR, .dst = "/run/user", .mode = 0700 },/* 6 */
	M(PLAN_MOUNT_RW_BIND, "/proj", "/proj"),                    /* 7 */
	M(PLAN_MOUNT_RO_BIND, "/proj/.git/config", "/proj/.git/config"),
	{ .kind = PLAN_MOUNT_RO_BIND, .src = "/proj/.git/hooks",
	  .dst = "/proj/.git/hooks", .missing = 1, .is_dir = 1 },
	M(PLAN_MOUNT_HIDE_FILE, NULL, "/proj/.env"),
	{ .kind = PLAN_MOUNT_RO_BIND, .src = "/proj/.vscode/settings.json",
	  .dst = "/proj/.vscode/settings.json", .missing = 1 },
	{ .kind = PLAN_MOUNT_HIDE_FILE, .dst = "/proj/.npmrc", .missing = 1 },
	{ .kind = PLAN_MOUNT_RO_BIND, .src = "/proj/.envrc",
	  .dst = "/proj/.envrc", .optional = 1 },
	M(PLAN_MOUNT_TMPFS, NULL, "/home/u"),
	{ .kind = PLAN_MOUNT_RO_BIND, .src = "/home/u/.bashrc",
	  .dst = "/home/u/.bashrc", .missing = 1 },
	{ .kind = PLAN_MOUNT_RO_BIND, .src = "/home/u/.config/git",
	  .dst = "/home/u/.config/git", .missing = 1, .is_dir = 1 },
	M(PLAN_MOUNT_HIDE_DIR, NULL, "/home/u/.ssh"),
	{ .kind = PLAN_MOUNT_RO_BIND, .src = "/usr/nothere",
	  .dst = "/usr/nothere", .missing = 1 },
	M(PLAN_MOUNT_RW_BIND, "/srv/data", "/data"),
	{ .kind = PLAN_MOUNT_HIDE_DIR, .dst = "/data/a/b", .missing = 1 },
	M(PLAN_MOUNT_REMOUNT_RO, NULL, "/"),
};

static struct plan
make_plan(void)
{
	struct plan p;

	memset(&p, 0, sizeof p);
	p.mounts = mounts;
	p.n_mounts = sizeof mounts / sizeof mounts[0];
	p.cwd = "/proj";
	p.hostname = "box";
	p.uid = 1000;
	p.gid = 1001;
	p.sandboxed = 1;
	return p;
}

static struct render_bwrap_result res;

/* Render the test plan with the usual options. */
static void
render(void)
{
	struct render_bwrap_opts o = { .init_path = "/opt/sbox/sbox-init",
	    .ctl_fd = 3, .seccomp_fd = 5, .proxy_port = 0 };
	struct plan p = make_plan();
	sbox_error err = { 0 };

	ck_assert_int_eq(render_bwrap(&p, &o, &res, &err), 0);
	ck_assert_ptr_nonnull(res.argv);
	ck_assert_ptr_null(res.argv[res.argc]);
}

/* Index of the n-argument sequence starting with a (or -1). */
static long
find(const char *a, const char *b, const char *c)
{
	size_t i;

	for (i = 0; i < res.argc; i++) {
		if (strcmp(res.argv[i], a) != 0)
			continue;
		if (b && (i + 1 >= res.argc || strcmp(res.argv[i + 1], b) != 0))
			continue;
		if (c && (i + 2 >= res.argc || strcmp(res.argv[i + 2], c) != 0))
			continue;
		return (long)i;
	}
	return -1;
}

static int
count(const char *a, const char *b)
{
	size_t i;
	int n = 0;

	for (i = 0; i + 1 < res.argc; i++)
		if (strcmp(res.argv[i], a) == 0 && strcmp(res.argv[i + 1], b) == 0)
			n++;
	return n;
}

START_TEST(test_options)
{
	render();
	ck_assert_int_ge(find("--unshare-user", NULL, NULL), 0);
	ck_assert_int_ge(find("--disable-userns", NULL, NULL), 0);
	ck_assert_int_ge(find("--unshare-pid", NULL, NULL), 0);
	ck_assert_int_ge(find("--unshare-ipc", NULL, NULL), 0);
	ck_assert_int_ge(find("--unshare-uts", NULL, NULL), 0);
	ck_assert_int_ge(find("--unshare-cgroup-try", NULL, NULL), 0);
	ck_assert_int_ge(find("--unshare-net", NULL, NULL), 0);
	ck_assert_int_ge(find("--die-with-parent", NULL, NULL), 0);
	ck_assert_int_ge(find("--new-session", NULL, NULL), 0);
	ck_assert_int_ge(find("--as-pid-1", NULL, NULL), 0);
	ck_assert_int_ge(find("--clearenv", NULL, NULL), 0);
	ck_assert_int_ge(find("--cap-drop", "ALL", NULL), 0);
	ck_assert_int_ge(find("--hostname", "box", NULL), 0);
	ck_assert_int_ge(find("--uid", "1000", NULL), 0);
	ck_assert_int_ge(find("--gid", "1001", NULL), 0);
	ck_assert_int_ge(find("--seccomp", "5", NULL), 0);
	ck_assert_int_ge(find("--chdir", "/proj", NULL), 0);
	ck_assert_int_ge(find("--ro-bind", "/opt/sbox/sbox-init",
	    RENDER_BWRAP_INIT_PATH), 0);
	/* The command is apart: /.sbox/init --ctl 3 --proxy-port 3128 */
	ck_assert_int_lt(find("--", NULL, NULL), 0);
	ck_assert_uint_eq(res.cmdc, 5);
	ck_assert_ptr_null(res.cmd[5]);
	ck_assert_str_eq(res.cmd[0], RENDER_BWRAP_INIT_PATH);
	ck_assert_str_eq(res.cmd[1], "--ctl");
	ck_assert_str_eq(res.cmd[2], "3");
	ck_assert_str_eq(res.cmd[3], "--proxy-port");
	ck_assert_str_eq(res.cmd[4], "3128");
	/* Nothing of the environment is passed as arguments. */
	ck_assert_int_lt(find("--setenv", NULL, NULL), 0);
	render_bwrap_free(&res);
}
END_TEST

START_TEST(test_mount_kinds)
{
	long i;

	render();
	ck_assert_int_ge(find("--ro-bind", "/usr", "/usr"), 0);
	ck_assert_int_ge(find("--symlink", "usr/bin", "/bin"), 0);
	ck_assert_int_ge(find("--ro-bind-try", "/lib64", "/lib64"), 0);
	i = find("--tmpfs", "/tmp", NULL);
	ck_assert_int_ge(i, 4);
	ck_assert_str_eq(res.argv[i - 4], "--perms");
	ck_assert_str_eq(res.argv[i - 3], "01777");
	ck_assert_str_eq(res.argv[i - 2], "--size");
	ck_assert_str_eq(res.argv[i - 1], "1048576");
	ck_assert_int_ge(find("--proc", "/proc", NULL), 0);
	ck_assert_int_ge(find("--dev", "/dev", NULL), 0);
	i = find("--dir", "/run/user", NULL);
	ck_assert_int_ge(i, 2);
	ck_assert_str_eq(res.argv[i - 2], "--perms");
	ck_assert_str_eq(res.argv[i - 1], "0700");
	ck_assert_int_ge(find("--bind", "/proj", "/proj"), 0);
	ck_assert_int_ge(find("--ro-bind", "/dev/null", "/proj/.env"), 0);
	/* HIDE_DIR: an empty, small tmpfs made read-only once every bind is
	 * in place (a bind inside it needs its mount point). */
	i = find("--tmpfs", "/home/u/.ssh", NULL);
	ck_assert_int_ge(i, 0);
	ck_assert_str_eq(res.argv[i - 2], "--size");
	ck_assert_int_gt(find("--remount-ro", "/home/u/.ssh", NULL), i);
	ck_assert_int_gt(find("--remount-ro", "/home/u/.ssh", NULL),
	    find("--bind", "/proj", "/proj"));
	/* /proc/sys read-only, /dev read-only with a sized /dev/shm */
	ck_assert_int_eq(find("--ro-bind", "/proc/sys", "/proc/sys"),
	    find("--proc", "/proc", NULL) + 2);
	ck_assert_int_gt(find("--tmpfs", "/dev/shm", NULL), find("--dev", "/dev", NULL));
	ck_assert_int_gt(find("--remount-ro", "/dev", NULL), find("--tmpfs", "/dev/shm", NULL));
	ck_assert_int_ge(find("--remount-ro", "/", NULL), 0);
	/* The plan's order is kept: /usr before /tmp before the project. */
	ck_assert_int_lt(find("--ro-bind", "/usr", "/usr"),
	    find("--tmpfs", "/tmp", NULL));
	ck_assert_int_lt(find("--tmpfs", "/tmp", NULL),
	    find("--bind", "/proj", "/proj"));
	ck_assert_int_lt(find("--tmpfs", "/home/u", NULL),
	    find("--tmpfs", "/home/u/.ssh", NULL));
	ck_assert_int_gt(find("--remount-ro", "/", NULL),
	    find("--tmpfs", "/home/u/.ssh", NULL));
	render_bwrap_free(&res);
}
END_TEST

START_TEST(test_protected_parents)
{
	long proj, git, cfg;

	render();
	proj = find("--bind", "/proj", "/proj");
	git = find("--bind", "/proj/.git", "/proj/.git");
	cfg = find("--ro-bind", "/proj/.git/config", "/proj/.git/config");
	/* Every folder between the writable bind and a protected path is
	 * bound over itself right after that bind, before the protection. */
	ck_assert_int_ge(git, 0);
	ck_assert_int_eq(git, proj + 3);
	ck_assert_int_gt(cfg, git);
	ck_assert_int_eq(count("--bind", "/proj/.git"), 1);
	/* (.vscode is missing: no parent bind, the file guard has it) */
	ck_assert_int_lt(find("--bind", "/proj/.vscode", "/proj/.vscode"), 0);
	/* An optional protected path keeps its -try form. */
	ck_assert_int_ge(find("--ro-bind-try", "/proj/.envrc", "/proj/.envrc"),
	    0);
	/* (/data/a/b is missing: no parents bound for it) */
	ck_assert_int_lt(find("--bind", "/srv/data/a", "/data/a"), 0);
	render_bwrap_free(&res);
}
END_TEST

START_TEST(test_missing)
{
	render();
	/* Missing inside a writable bind: nothing at all (no placeholder on
	 * the host, no mount): the file guard keeps it uncreatable. */
	ck_assert_int_lt(find("--ro-bind", "/proj/.git/hooks",
	    "/proj/.git/hooks"), 0);
	ck_assert_int_lt(find("--ro-bind", "/proj/.vscode/settings.json",
	    "/proj/.vscode/settings.json"), 0);
	ck_assert_int_lt(find("--ro-bind", "/dev/null", "/proj/.npmrc"), 0);
	ck_assert_int_lt(find("--tmpfs", "/data/a/b", NULL), 0);
	ck_assert_int_lt(find("--bind", "/srv/data/a", "/data/a"), 0);
	/* Missing in a tmpfs: nothing on the host, the name is taken. */
	ck_assert_int_ge(find("--ro-bind", "/dev/null", "/home/u/.bashrc"), 0);
	ck_assert_int_ge(find("--tmpfs", "/home/u/.config/git", NULL), 0);
	ck_assert_int_ge(find("--remount-ro", "/home/u/.config/git", NULL), 0);
	/* Missing in a read-only area: cannot be created, nothing to do. */
	ck_assert_int_lt(find("--ro-bind", "/usr/nothere", NULL), 0);
	ck_assert_int_lt(find("--ro-bind-try", "/usr/nothere", NULL), 0);

	render_bwrap_free(&res);
}
END_TEST

START_TEST(test_blob_and_errors)
{
	struct render_bwrap_opts o = { .init_path = "/i", .ctl_fd = 7,
	    .seccomp_fd = -1, .proxy_port = 4000,
	    .hide_file_src = "/var/empty" };
	struct plan_mount bad = { .kind = PLAN_MOUNT_RO_BIND, .src = "/a",
	    .dst = "rel" };
	struct plan_mount hide = { .kind = PLAN_MOUNT_HIDE_FILE, .dst = "/x" };
	struct plan p;
	sbox_error err = { 0 };
	char *blob;
	size_t len, i, off = 0;

	memset(&p, 0, sizeof p);
	p.mounts = &hide;
	p.n_mounts = 1;
	ck_assert_int_eq(render_bwrap(&p, &o, &res, &err), 0);
	ck_assert_int_lt(find("--seccomp", NULL, NULL), 0);
	ck_assert_int_ge(find("--ro-bind", "/var/empty", "/x"), 0);
	ck_assert_int_ge(find("--chdir", "/", NULL), 0);
	ck_assert_int_ge(find("--hostname", "sbox", NULL), 0);
	ck_assert_str_eq(res.cmd[2], "7");
	ck_assert_str_eq(res.cmd[4], "4000");
	ck_assert_int_eq(render_bwrap_blob(&res, &blob, &len, &err), 0);
	for (i = 0; i < res.argc; i++) {
		ck_assert_str_eq(blob + off, res.argv[i]);
		off += strlen(res.argv[i]) + 1;
	}
	ck_assert_uint_eq(off, len);
	ck_assert_int_eq(blob[len - 1], '\0');
	free(blob);
	render_bwrap_free(&res);

	p.mounts = &bad;
	ck_assert_int_eq(render_bwrap(&p, &o, &res, &err), -1);
	ck_assert_str_eq(err.name, E_INTERNAL);
	bad.dst = "/a/../b";
	ck_assert_int_eq(render_bwrap(&p, &o, &res, &err), -1);
	bad.dst = "/b";
	bad.src = NULL;
	ck_assert_int_eq(render_bwrap(&p, &o, &res, &err), -1);
	o.init_path = "relative";
	bad.src = "/a";
	ck_assert_int_eq(render_bwrap(&p, &o, &res, &err), -1);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("render-bwrap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_mount_kinds);
	tcase_add_test(tc, test_protected_parents);
	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_blob_and_errors);
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
