/* test-gitconfig.c: the paths a git config's values name (policy/gitconfig.c),
 * and the guard keeping such a path read-only and missing-proof. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/gitconfig.h"
#include "policy/guard.h"
#include "policy/plan.h"
#include "policy/strv.h"

static const struct gitconfig_where W = {
	.top = "/p", .gitdir = "/p/.git", .home = "/h", .cwd = "/p/.git",
};
static const struct gitconfig_where BARE = {
	.top = NULL, .gitdir = "/p/vendor/lib.git", .home = "/h",
	.cwd = "/p/vendor/lib.git",
};

/* The paths key = value names in w. */
static char **
paths_of(const struct gitconfig_where *w, const char *key, const char *value,
    const char *origin)
{
	sbox_error err = { 0 };
	char **out = NULL;

	ck_assert_int_eq(gitconfig_value_paths(w, key, value, origin, &out,
	    &err), 0);
	return out;
}

/* Does key = value name want (and, when only, nothing else)? */
static void
expect(const struct gitconfig_where *w, const char *key, const char *value,
    const char *want, int only)
{
	char **out = paths_of(w, key, value, "/p/.git/config");

	ck_assert_msg(strv_contains(out, want), "%s = %s: %s not named", key,
	    value, want);
	if (only)
		ck_assert_msg(strv_len(out) == 1, "%s = %s: %zu paths", key, value,
		    strv_len(out));
	strv_free(out);
}

/* Does key = value name nothing? */
static void
expect_none(const char *key, const char *value)
{
	char **out = paths_of(&W, key, value, "/p/.git/config");

	ck_assert_msg(strv_len(out) == 0, "%s = %s names %s", key, value,
	    out ? out[0] : "");
	strv_free(out);
}

START_TEST(test_hooks_path)
{
	char **out;

	expect(&W, "core.hookspath", "tools/hooks", "/p/tools/hooks", 0);
	expect(&W, "core.hookspath", "tools/hooks", "/p/tools/hooks/pre-commit",
	    0);
	/* hooks of a repository run from its git folder too */
	expect(&W, "core.hookspath", "hooks", "/p/hooks", 0);
	expect(&W, "core.hookspath", "hooks", "/p/.git/hooks", 0);
	expect(&W, "core.hookspath", "~/hooks", "/h/hooks", 0);
	expect(&BARE, "core.hookspath", "hk", "/p/vendor/lib.git/hk", 0);
	/* a hook folder that is the top itself: its hooks name by name */
	out = paths_of(&W, "core.hooksPath", ".", NULL);
	ck_assert(strv_contains(out, "/p/post-checkout"));
	ck_assert(strv_contains(out, "/p"));
	strv_free(out);
}
END_TEST

START_TEST(test_include)
{
	/* relative to the including file's folder */
	expect(&W, "include.path", "../.gitconfig", "/p/.gitconfig", 1);
	expect(&W, "includeif.gitdir:/p/.path", "x.cfg", "/p/.git/x.cfg", 1);
	expect(&W, "includeIf.onbranch:main.path", ":(optional)sub/x.cfg",
	    "/p/.git/sub/x.cfg", 1);
	expect(&W, "include.path", "~/extra.cfg", "/h/extra.cfg", 1);
	expect(&W, "include.path", "/abs/y.cfg", "/abs/y.cfg", 1);
}
END_TEST

START_TEST(test_commands)
{
	expect(&W, "core.fsmonitor", "tools/fsmon.sh", "/p/tools/fsmon.sh", 1);
	expect(&W, "core.fsmonitor", "./fsmon", "/p/fsmon", 1);
	expect(&W, "alias.x", "!sh scripts/x.sh", "/p/scripts/x.sh", 1);
	expect(&W, "alias.y", "!f() { tools/a && ../up/b; }; f", "/p/tools/a",
	    0);
	expect(&W, "alias.y", "!f() { tools/a && ../up/b; }; f", "/up/b", 0);
	expect(&W, "diff.external", "tools/difftool --side-by-side",
	    "/p/tools/difftool", 0);
	expect(&W, "filter.lfs.clean", "tools/clean %f", "/p/tools/clean", 0);
	expect(&W, "credential.helper", "/p/bin/cred", "/p/bin/cred", 1);
	expect(&W, "credential.https://example.test.helper",
	    "\"tools/my helper\" get", "/p/tools/my helper", 0);
	expect(&W, "core.sshcommand", "ssh -i keys/id -F cfg/ssh_config",
	    "/p/cfg/ssh_config", 0);
	expect(&W, "gpg.program", "GNUPGHOME=$HOME/g tools/gpg",
	    "/h/g", 0);
	expect(&W, "gpg.program", "GNUPGHOME=$HOME/g tools/gpg",
	    "/p/tools/gpg", 0);
	expect(&W, "core.editor", "tools/ed --opt=cfg/x", "/p/cfg/x", 0);
	expect(&W, "sequence.editor", "$GIT_DIR/../ed", "/p/ed", 1);
	expect(&W, "submodule.m.update", "!tools/upd", "/p/tools/upd", 1);
	expect(&W, "remote.origin.url", "ext::tools/x.sh %S", "/p/tools/x.sh",
	    0);
	expect(&W, "remote.origin.url", "file:///p/other.git",
	    "/p/other.git", 1);
	expect(&BARE, "core.fsmonitor", "fsm/run", "/p/vendor/lib.git/fsm/run",
	    1);
	/* the script an interpreter runs, whatever its name */
	expect(&W, "alias.r", "!sh run.sh", "/p/run.sh", 1);
	expect(&W, "alias.r", "!bash -x -- run.sh arg", "/p/run.sh", 1);
	expect(&W, "alias.r", "!cd x && FOO=1 python3 -u tool.py", "/p/tool.py",
	    0);
	/* after cd, from that folder too; a command line in quotes */
	expect(&W, "alias.r", "!cd x && FOO=1 python3 -u tool.py",
	    "/p/x/tool.py", 0);
	expect(&W, "alias.c", "!cd tools && ./x.sh", "/p/tools/x.sh", 0);
	expect(&W, "alias.c", "!sh -c 'tools/y.sh --go'", "/p/tools/y.sh", 0);
	expect(&W, "alias.c", "!sh -c \"cd sub; sh run.sh\"", "/p/sub/run.sh",
	    0);
	expect(&W, "alias.c", "!cd ../up && ./z", "/up/z", 0);
	expect(&W, "alias.r", "!env A=b node hook.js", "/p/hook.js", 1);
	expect(&W, "core.fsmonitor", "/usr/bin/perl fsm.pl", "/p/fsm.pl", 0);
	expect(&BARE, "alias.r", "!sh h.sh", "/p/vendor/lib.git/h.sh", 1);
	/* a key git will add later is decided on its value alone */
	expect(&W, "newtool.somecommand", "bin/run", "/p/bin/run", 1);
}
END_TEST

START_TEST(test_not_paths)
{
	expect_none("user.name", "Jane Doe");
	expect_none("core.bare", "false");
	expect_none("core.fsmonitor", "true");
	expect_none("gpg.program", "gpg2");
	expect_none("remote.origin.url", "https://example.test/x/y.git");
	expect_none("remote.origin.fetch", "+refs/heads/*:refs/remotes/o/*");
	expect_none("branch.main.merge", "refs/heads/main");
	expect_none("alias.co", "checkout");
	expect_none("core.editor", "~other/ed");
	expect_none("core.editor", "$EDITOR_DIR/ed");
	expect_none("include.path", "");
	expect_none("alias.t", "!make test");
	expect_none("alias.t", "!npm test");
	expect_none("alias.c", "!sh -c 'git status'");
	expect_none("alias.p", "!python3 -m pytest");
}
END_TEST

START_TEST(test_keys)
{
	ck_assert_int_eq(gitconfig_key_form("core.hooksPath"),
	    GITCONFIG_FORM_HOOKS);
	ck_assert_int_eq(gitconfig_key_form("includeIf.gitdir:~/w/.path"),
	    GITCONFIG_FORM_INCLUDE);
	ck_assert_int_eq(gitconfig_key_form("includeif..path"),
	    GITCONFIG_FORM_ANY);
	ck_assert_int_eq(gitconfig_key_form("remote.a.b.fetch"),
	    GITCONFIG_FORM_REF);
	ck_assert_int_eq(gitconfig_key_form("alias.x"), GITCONFIG_FORM_ANY);
}
END_TEST

START_TEST(test_listing)
{
	static const char text[] =
	    "file:/etc/gitconfig\0credential.helper\ncache\0"
	    "file:/p/.git/config\0core.hookspath\ntools/hooks\0"
	    "file:/p/.git/config\0include.path\n../.gitconfig\0"
	    "file:/p/.git/../.gitconfig\0core.fsmonitor\ntools/fsmon.sh\0"
	    "file:config\0alias.x\n!sh scripts/x.sh\0"
	    "command line:\0core.pager\nless\0"
	    "file:/p/.git/config\0core.novalue\0";
	char buf[sizeof text], **paths = NULL, **files = NULL, **inc = NULL;
	sbox_error err = { 0 };

	memcpy(buf, text, sizeof text);
	ck_assert_int_eq(gitconfig_list_paths(&W, buf, sizeof text - 1, &paths,
	    &files, &inc, &err), 0);
	ck_assert(strv_contains(files, "/etc/gitconfig"));
	ck_assert(strv_contains(files, "/p/.gitconfig"));
	ck_assert(strv_contains(files, "/p/.git/config"));
	ck_assert_int_eq(strv_len(files), 3);
	ck_assert(strv_contains(inc, "/p/.gitconfig"));
	ck_assert_int_eq(strv_len(inc), 1);
	ck_assert(strv_contains(paths, "/p/tools/hooks"));
	ck_assert(strv_contains(paths, "/p/tools/fsmon.sh"));
	ck_assert(strv_contains(paths, "/p/scripts/x.sh"));
	ck_assert(strv_contains(paths, "/p/.gitconfig"));
	strv_free(paths);
	strv_free(files);
	strv_free(inc);
	/* a listing cut in the middle of an entry */
	memcpy(buf, text, sizeof text);
	paths = NULL;
	ck_assert_int_eq(gitconfig_list_paths(&W, buf, 25, &paths, NULL, NULL,
	    &err), -1);
	strv_free(paths);
}
END_TEST

/* lstat for the guard: these exist. */
static int
fake_lstat(void *arg, const char *rel, struct stat *st)
{
	const char *const *names = arg;
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(rel, names[i]) == 0) {
			memset(st, 0, sizeof *st);
			return 0;
		}
	errno = ENOENT;
	return -1;
}

/* A guard spec whose missing list holds git-named paths, existing or not,
 * keeps them read-only and missing-proof. */
START_TEST(test_guard_missing_proof)
{
	static const char *const none[] = { NULL };
	static const char *const hooks[] = { "hooks", NULL };
	struct guard_fs fs = { fake_lstat, (void *)none };
	struct guard_fs fs_h = { fake_lstat, (void *)hooks };
	char *roots[] = { "/p", NULL };
	char *missing[] = { "/p/tools/hooks", NULL };
	struct guard_spec s = { .roots = roots, .home = "/h",
	    .missing = missing };
	struct guard_verdict v;

	/* the folder itself, a file in it */
	guard_decide(&s, GUARD_OP_CREATE, "/p/tools", "hooks", &fs, &v);
	ck_assert_int_ne(v.err, 0);
	guard_decide(&s, GUARD_OP_WRITE, "/p/tools/hooks", "pre-commit", &fs,
	    &v);
	ck_assert_int_ne(v.err, 0);
	guard_decide(&s, GUARD_OP_CREATE, "/p/tools/hooks", "pre-commit", &fs,
	    &v);
	ck_assert_int_ne(v.err, 0);
	/* a parent: made (a symlink could lead anywhere), renamed away or
	 * onto */
	guard_decide(&s, GUARD_OP_CREATE, "/p", "tools", &fs, &v);
	ck_assert_int_ne(v.err, 0);
	guard_decide(&s, GUARD_OP_RENAME, "/p", "tools", &fs, &v);
	ck_assert_int_ne(v.err, 0);
	guard_decide(&s, GUARD_OP_RENAME_DIR, "/p", "tools", &fs, &v);
	ck_assert_int_ne(v.err, 0);
	guard_decide(&s, GUARD_OP_RENAME_DIR_FROM, "/p", "tools", &fs, &v);
	ck_assert_int_ne(v.err, 0);
	/* existing: read-only */
	guard_decide(&s, GUARD_OP_RENAME_DIR_FROM, "/p/tools", "hooks", &fs_h,
	    &v);
	ck_assert_int_eq(v.err, EROFS);
	/* elsewhere: allowed */
	guard_decide(&s, GUARD_OP_CREATE, "/p/tools", "other", &fs, &v);
	ck_assert_int_eq(v.err, 0);
	guard_decide(&s, GUARD_OP_CREATE, "/p", "toolsx", &fs, &v);
	ck_assert_int_eq(v.err, 0);
}
END_TEST

/* guard_protect's paths join the spec's: all or none. */
START_TEST(test_spec_add_missing)
{
	struct guard_spec s = { 0 };
	sbox_error err = { 0 };
	json_t *ok = json_pack("[s,s]", "/p/a", "/p/b/c");
	json_t *bad = json_pack("[s,s]", "/p/d", "p/relative");
	json_t *dots = json_pack("[s]", "/p/../etc");

	ck_assert_int_eq(guard_spec_add_missing(&s, ok, &err), 0);
	ck_assert_int_eq(guard_spec_add_missing(&s, ok, &err), 0);
	ck_assert_int_eq(strv_len(s.missing), 4);
	ck_assert_int_eq(guard_spec_add_missing(&s, bad, &err), -1);
	ck_assert_int_eq(guard_spec_add_missing(&s, dots, &err), -1);
	ck_assert_int_eq(guard_spec_add_missing(&s, NULL, &err), -1);
	ck_assert_int_eq(strv_len(s.missing), 4);
	ck_assert(!strv_contains(s.missing, "/p/d"));
	strv_free(s.missing);
	json_decref(ok);
	json_decref(bad);
	json_decref(dots);
}
END_TEST

/* A sandboxed plan: /p bound read-write onto itself, a guard rooted there;
 * with hide, a hidden file below /p/tools/hooks. */
static struct plan *
small_plan(int hide)
{
	struct plan *p = calloc(1, sizeof *p);

	p->sandboxed = 1;
	p->mounts = calloc(2, sizeof *p->mounts);
	p->mounts[0].kind = PLAN_MOUNT_RW_BIND;
	p->mounts[0].src = strdup("/p");
	p->mounts[0].dst = strdup("/p");
	p->n_mounts = 1;
	if (hide) {
		p->mounts[1].kind = PLAN_MOUNT_HIDE_FILE;
		p->mounts[1].dst = strdup("/p/tools/hooks/secret");
		p->n_mounts = 2;
	}
	p->guard = calloc(1, sizeof *p->guard);
	strv_append(&p->guard->roots, "/p");
	p->guard->home = strdup("/h");
	return p;
}

/* The plan keeps what git's config names inside a root, read-only
 * (bound when it exists and nothing below is mounted) and missing-proof;
 * not a root itself, nor outside. */
START_TEST(test_plan_named)
{
	char *paths[] = { "/p/tools/hooks", "/p/tools/hooks/pre-commit", "/p",
	    "/", "/q/x", "/p/missing/x", "relative", NULL };
	unsigned char kinds[] = { 2, 1, 2, 2, 0, 0, 0 };
	sbox_error err = { 0 };
	struct plan *p = small_plan(0);
	char **added = NULL;
	const struct plan_path_rule *r;

	ck_assert_int_eq(plan_git_named(p, paths, kinds, 1, &added, &err), 0);
	ck_assert_int_eq(strv_len(p->guard->missing), 2);
	ck_assert(strv_contains(p->guard->missing, "/p/tools/hooks"));
	ck_assert(strv_contains(p->guard->missing, "/p/missing/x"));
	ck_assert_int_eq(strv_len(added), 2);
	ck_assert_int_eq(p->n_mounts, 2);
	ck_assert_int_eq(p->mounts[1].kind, PLAN_MOUNT_RO_BIND);
	ck_assert_str_eq(p->mounts[1].dst, "/p/tools/hooks");
	ck_assert_int_eq(p->mounts[1].is_dir, 1);
	r = plan_explain(p, "/p/missing/x");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->access, PLAN_ACCESS_RO);
	/* again (a refresh): nothing new */
	strv_free(added);
	added = NULL;
	ck_assert_int_eq(plan_git_named(p, paths, NULL, 0, &added, &err), 0);
	ck_assert_int_eq(strv_len(added), 0);
	plan_free(p);
	/* a hidden file below: the folder is not bound (it would uncover
	 * it), the guard keeps it all the same */
	p = small_plan(1);
	ck_assert_int_eq(plan_git_named(p, paths, kinds, 1, NULL, &err), 0);
	ck_assert_int_eq(p->n_mounts, 2);
	ck_assert(strv_contains(p->guard->missing, "/p/tools/hooks"));
	plan_free(p);
}
END_TEST

/* The suite. */
static Suite *
gitconfig_suite(void)
{
	Suite *s = suite_create("gitconfig");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_hooks_path);
	tcase_add_test(tc, test_include);
	tcase_add_test(tc, test_commands);
	tcase_add_test(tc, test_not_paths);
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_listing);
	tcase_add_test(tc, test_guard_missing_proof);
	tcase_add_test(tc, test_plan_named);
	tcase_add_test(tc, test_spec_add_missing);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner *sr = srunner_create(gitconfig_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
