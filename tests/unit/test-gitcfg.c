/* test-gitcfg.c: sboxd finds the repositories of a folder (nested, bare,
 * gitfiles, worktrees) and reads what their config names with the host's
 * git (daemon/session/gitcfg.c, gitcfg-find.c); a changed config file is seen. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/session/gitcfg.h"
#include "policy/strv.h"

static char tmp[256];

/* Run a shell command in tmp with HOME=tmp/home (fails the test). */
static void
sh(const char *fmt, const char *arg)
{
	char cmd[4 * PATH_MAX];

	snprintf(cmd, sizeof cmd, "cd '%s' && HOME='%s/home' "
	    "GIT_CONFIG_NOSYSTEM=1 sh -c '", tmp, tmp);
	snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), fmt, arg);
	strncat(cmd, "' >/dev/null 2>&1", sizeof cmd - strlen(cmd) - 1);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* tmp/rel. */
static char *
at(const char *rel)
{
	static char buf[4][512];
	static int n;
	char *b = buf[n++ % 4];

	snprintf(b, 512, "%s/%s", tmp, rel);
	return b;
}

/* A fresh tree: p/ (a repository naming tools/hooks), p/vendor/lib (a
 * nested one), p/fix/odd.git (a bare one), p/sub (a gitfile). */
static void
setup(void)
{
	char *d;

	snprintf(tmp, sizeof tmp, "/tmp/sbox-test-gitcfg-XXXXXX");
	d = mkdtemp(tmp);
	ck_assert_ptr_nonnull(d);
	sh("mkdir -p home p/vendor/lib p/fix p/sub%s", "");
	sh("git init -q p && git -C p config core.hooksPath tools/hooks%s", "");
	sh("git -C p config include.path ../.gitconfig.local%s", "");
	sh("git init -q p/vendor/lib && git -C p/vendor/lib config "
	    "core.fsmonitor ../../lib-fsmon%s", "");
	sh("git init -q --bare p/fix/odd.git && git --git-dir=p/fix/odd.git "
	    "config alias.x \"!sh run.sh\"%s", "");
	sh("git init -q --separate-git-dir=%s/sep p/sub && git -C p/sub "
	    "config diff.external tools/d", tmp);
}

/* Remove the tree. */
static void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmp);
}

START_TEST(test_scan_finds)
{
	char *roots[] = { strdup(at("p")), NULL };
	struct gitcfg g;
	sbox_error err = { 0 };

	ck_assert_msg(gitcfg_scan(roots, at("home"), &g, &err) == 0, "%s",
	    err.message);
	ck_assert_int_ge(g.repos, 4);
	ck_assert(strv_contains(g.paths, at("p/tools/hooks")));
	ck_assert(strv_contains(g.paths, at("p/tools/hooks/pre-commit")));
	ck_assert(strv_contains(g.paths, at("p/.gitconfig.local")));
	ck_assert(strv_contains(g.paths, at("p/lib-fsmon")));
	ck_assert(strv_contains(g.paths, at("p/fix/odd.git/run.sh")));
	ck_assert(strv_contains(g.paths, at("p/sub/tools/d")));
	ck_assert(strv_contains(g.paths, at("p/.git/config")));
	ck_assert(!gitcfg_changed(&g));
	/* the person changes a config on the host */
	sh("git -C p config core.pager pagers/p%s", "");
	ck_assert(gitcfg_changed(&g));
	gitcfg_free(&g);
	ck_assert_int_eq(gitcfg_scan(roots, at("home"), &g, &err), 0);
	ck_assert(strv_contains(g.paths, at("p/pagers/p")));
	ck_assert(!gitcfg_changed(&g));
	/* an include that appears */
	sh("printf \"[core]\\n\\teditor = ed/x\\n\" > p/.gitconfig.local%s", "");
	ck_assert(gitcfg_changed(&g));
	gitcfg_free(&g);
	free(roots[0]);
}
END_TEST

START_TEST(test_scan_up_and_plain)
{
	char *sub[] = { strdup(at("p/vendor")), NULL };
	char *plain[] = { strdup(at("home")), NULL };
	struct gitcfg g;
	sbox_error err = { 0 };

	/* a root inside a repository: the repository's config counts */
	ck_assert_int_eq(gitcfg_scan(sub, at("home"), &g, &err), 0);
	ck_assert(strv_contains(g.paths, at("p/tools/hooks")));
	gitcfg_free(&g);
	/* no repository: the global config, and a repository made later */
	sh("printf \"[core]\\n\\thooksPath = %s/home/gh\\n\" > home/.gitconfig",
	    tmp);
	ck_assert_int_eq(gitcfg_scan(plain, at("home"), &g, &err), 0);
	ck_assert(strv_contains(g.paths, at("home/gh")));
	ck_assert(strv_contains(g.paths, at("home/.gitconfig")));
	sh("git init -q home%s", "");
	ck_assert(gitcfg_changed(&g));
	gitcfg_free(&g);
	free(sub[0]);
	free(plain[0]);
}
END_TEST

/* How many times the counting git (tmp/bin/git) ran. */
static int
git_runs(void)
{
	FILE *f = fopen(at("runs"), "r");
	int n = 0, c;

	if (f == NULL)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* A scan of roots (checked), then freed; git's runs it took. */
static int
scan_runs(char **roots, const char *path, int must)
{
	struct gitcfg g;
	sbox_error err = { 0 };
	int before = git_runs();

	ck_assert_msg(gitcfg_scan(roots, at("home"), &g, &err) == 0, "%s",
	    err.message);
	if (path != NULL)
		ck_assert_msg(strv_contains(g.paths, at(path)) == must, "%s", path);
	ck_assert(!gitcfg_changed(&g));
	gitcfg_free(&g);
	return git_runs() - before;
}

/* A scan like an earlier one whose files (and git) are all unchanged runs
 * no git and finds the same; a changed config, a new repository or another
 * git reads again. (Each waits until the files are older than the
 * file system's clock can tell apart: a scan of a file changed about then
 * is never kept.) */
START_TEST(test_scan_kept_while_unchanged)
{
	char *roots[] = { strdup(at("p")), NULL };
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL, path[1024];

	sh("mkdir bin && printf \"#!/bin/sh\\necho run >> %s/runs\\n"
	    "exec /usr/bin/git \\\"\\$@\\\"\\n\" > bin/git && chmod +x bin/git", tmp);
	snprintf(path, sizeof path, "%s:%s", at("bin"), old ? old : "/usr/bin");
	setenv("PATH", path, 1);
	gitcfg_cache_clear();
	usleep(300000);
	ck_assert_int_gt(scan_runs(roots, "p/tools/hooks", 1), 0);
	ck_assert_int_eq(scan_runs(roots, "p/tools/hooks", 1), 0);
	ck_assert_int_eq(scan_runs(roots, "p/lib-fsmon", 1), 0);
	/* a config changed on the host */
	sh("/usr/bin/git -C p config core.pager pagers/p%s", "");
	ck_assert_int_gt(scan_runs(roots, "p/pagers/p", 1), 0);
	usleep(300000);
	scan_runs(roots, "p/pagers/p", 1);
	ck_assert_int_eq(scan_runs(roots, "p/pagers/p", 1), 0);
	/* an include it names appears */
	sh("printf \"[core]\\n\\teditor = ed/x\\n\" > p/.gitconfig.local%s", "");
	usleep(300000);
	ck_assert_int_gt(scan_runs(roots, "p/ed/x", 1), 0);
	ck_assert_int_eq(scan_runs(roots, "p/ed/x", 1), 0);
	/* a new repository inside */
	sh("/usr/bin/git init -q p/newer && /usr/bin/git -C p/newer config "
	    "core.hooksPath nh%s", "");
	usleep(300000);
	ck_assert_int_gt(scan_runs(roots, "p/newer/nh", 1), 0);
	ck_assert_int_eq(scan_runs(roots, "p/newer/nh", 1), 0);
	/* another git binary */
	sh("cp bin/git bin/git.new && mv bin/git.new bin/git%s", "");
	usleep(300000);
	ck_assert_int_gt(scan_runs(roots, "p/newer/nh", 1), 0);
	/* the environment git runs in is part of the key */
	ck_assert_int_eq(scan_runs(roots, NULL, 0), 0);
	setenv("XDG_CONFIG_HOME", at("xdg"), 1);
	ck_assert_int_gt(scan_runs(roots, NULL, 0), 0);
	unsetenv("XDG_CONFIG_HOME");
	gitcfg_cache_clear();
	if (old != NULL)
		setenv("PATH", old, 1);
	free(old);
	free(roots[0]);
}
END_TEST

/* A `git` inside a guarded root on sboxd's PATH is never the one run. */
START_TEST(test_scan_no_planted_git)
{
	char *roots[] = { strdup(at("p")), NULL };
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char path[1024];
	struct gitcfg g;
	sbox_error err = { 0 };

	sh("mkdir -p p/bin && printf \"#!/bin/sh\ntouch %s/PLANTED\nexit 1\n\""
	    " > p/bin/git && chmod 755 p/bin/git", tmp);
	snprintf(path, sizeof path, "%s:/usr/bin:/bin", at("p/bin"));
	setenv("PATH", path, 1);
	ck_assert_int_eq(gitcfg_scan(roots, at("home"), &g, &err), 0);
	if (old != NULL)
		setenv("PATH", old, 1);
	ck_assert(access(at("PLANTED"), F_OK) != 0);
	ck_assert(strv_contains(g.paths, at("p/tools/hooks")));
	gitcfg_free(&g);
	free(roots[0]);
	free(old);
}
END_TEST

/* The suite. */
static Suite *
gitcfg_suite(void)
{
	Suite *s = suite_create("gitcfg");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_scan_finds);
	tcase_add_test(tc, test_scan_up_and_plain);
	tcase_add_test(tc, test_scan_no_planted_git);
	tcase_add_test(tc, test_scan_kept_while_unchanged);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner *sr = srunner_create(gitcfg_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
