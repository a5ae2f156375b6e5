/* test-guard.c: the file guard's decision (policy/guard.c) on a fake
 * filesystem, and its table of protected names. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/guard.h"
#include "policy/plan.h"

/* What exists on the fake filesystem (absolute paths). */
static const char *const fake[] = {
	"/p", "/p/.git", "/p/.git/HEAD", "/p/.git/objects", "/p/.git/refs",
	"/p/.git/config", "/p/.git/hooks", "/p/.git/modules",
	"/p/.git/modules/sub", "/p/.git/modules/sub/HEAD",
	"/p/.git/modules/sub/objects", "/p/.git/modules/sub/refs",
	"/p/.git/worktrees", "/p/.git/worktrees/w", "/p/.git/worktrees/w/HEAD",
	"/p/.git/worktrees/w/commondir",
	"/p/vendor/lib/.git", "/p/vendor/lib/.git/HEAD",
	"/p/vendor/lib/.git/objects", "/p/vendor/lib/.git/refs",
	"/p/half", "/p/half/HEAD", "/p/half/objects",
	"/p/bare.git", "/p/bare.git/HEAD", "/p/bare.git/objects",
	"/p/bare.git/refs", "/p/nohead/.git",
	"/p/.envrc", "/p/sub/.git",
	"/h", "/h/.config",
	NULL
};

/* The parent folder the callback resolves against. */
struct fake_arg {
	const char *parent;
};

/* lstat on the fake filesystem: rel against the parent, ".." handled. */
static int
fake_lstat(void *arg, const char *rel, struct stat *st)
{
	const struct fake_arg *a = arg;
	char path[1024], *s;
	size_t i;

	snprintf(path, sizeof path, "%s", a->parent);
	while (strncmp(rel, "../", 3) == 0) {
		if ((s = strrchr(path, '/')) != NULL)
			*s = '\0';
		rel += 3;
	}
	strncat(path, "/", sizeof path - strlen(path) - 1);
	strncat(path, rel, sizeof path - strlen(path) - 1);
	for (i = 0; fake[i] != NULL; i++)
		if (strcmp(fake[i], path) == 0) {
			memset(st, 0, sizeof *st);
			return 0;
		}
	return -1;
}

static struct guard_spec spec;

/* A spec: roots /p and /h (home), a few protected names. */
static void
setup(void)
{
	sbox_error err;

	memset(&spec, 0, sizeof spec);
	spec.roots = calloc(3, sizeof *spec.roots);
	spec.roots[0] = strdup("/p");
	spec.roots[1] = strdup("/h");
	spec.home = strdup("/h");
	ck_assert_int_eq(guard_table_parse(&spec.table,
	    "# a comment\n"
	    "runs-later root .vscode/   # VS Code tasks\n"
	    "runs-later any  .envrc     # direnv\n"
	    "runs-later any  .cargo/config.toml # cargo\n"
	    "runs-later home .bashrc    # bash\n"
	    "runs-later home .config/nvim/ # neovim\n"
	    "credential home .codex/auth.json # Codex sign-in\n", "t", &err), 0);
}

/* Release the spec. */
static void
teardown(void)
{
	guard_spec_free(&spec);
}

/* Decide op on parent/name; returns the errno (0 = allowed). */
static int
decide(enum guard_op op, const char *parent, const char *name,
    const char **rule)
{
	struct fake_arg a = { parent };
	struct guard_fs fs = { fake_lstat, &a };
	struct guard_verdict v;

	guard_decide(&spec, op, parent, name, &fs, &v);
	if (rule != NULL)
		*rule = v.rule;
	if (v.err != 0)
		ck_assert_msg(v.reason[0] != '\0', "a refusal has a reason");
	return v.err;
}

START_TEST(test_rule_git_entry)
{
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/a", ".git", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME, "/p/a", ".git", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_LINK, "/p/a", ".git", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/p/a", ".git", NULL),
	    EPERM);
	/* an existing gitfile: no writing to it */
	ck_assert_int_eq(decide(GUARD_OP_WRITE, "/p/sub", ".git", NULL), EROFS);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p", ".git", NULL), EROFS);
	/* outside the guarded roots: anything goes */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/tmp/x", ".git", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/pp", ".git", NULL), 0);
	/* a .git folder renamed away is fine */
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR_FROM, "/p/vendor/lib",
	    ".git", NULL), 0);
}
END_TEST

START_TEST(test_rule_commondir_and_bare)
{
	const char *rule;

	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/x", "commondir", &rule),
	    EPERM);
	ck_assert_str_eq(rule, PLAN_RULE_RUNS_LATER);
	ck_assert_int_eq(decide(GUARD_OP_RENAME, "/p/.git", "commondir", NULL),
	    EPERM);
	/* the third of HEAD, objects, refs */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/half", "refs", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/p/half", "refs", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/x", "refs", NULL), 0);
	/* rewriting an existing HEAD (git does, through HEAD.lock) is fine */
	ck_assert_int_eq(decide(GUARD_OP_RENAME, "/p/.git", "HEAD", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_WRITE, "/p/.git", "HEAD", NULL), 0);
}
END_TEST

START_TEST(test_rule_git_folder)
{
	/* config, hooks, info of a git folder at any depth */
	ck_assert_int_eq(decide(GUARD_OP_WRITE, "/p/.git", "config", NULL),
	    EROFS);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/hooks", "pre-commit",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CHMOD, "/p/.git/hooks", "x", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/vendor/lib/.git", "config",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/vendor/lib/.git",
	    "config.worktree", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/vendor/lib/.git/info",
	    "exclude", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_LINK_FROM, "/p/vendor/lib/.git",
	    "config", NULL), EPERM);
	/* modules: their own git folders, and the names below modules/ */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/modules/sub/hooks",
	    "post-checkout", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/modules/new",
	    "config", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/p/.git/modules", "evil",
	    NULL), EPERM);
	/* worktrees */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/worktrees/w",
	    "gitdir", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/worktrees/w",
	    "config.worktree", NULL), EPERM);
	/* ordinary git work stays allowed */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/objects/ab", "cdef",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_RENAME, "/p/.git", "index", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/refs/heads", "topic",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git", "COMMIT_EDITMSG",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/modules/sub",
	    "index", NULL), 0);
	/* "config" in a folder that is no git folder is just a file */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/src", "config", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/half", "config", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/src/hooks", "x", NULL), 0);
}
END_TEST

START_TEST(test_git_allow_list)
{
	static const char *const ok[] = { "HEAD", "ORIG_HEAD", "FETCH_HEAD",
	    "MERGE_HEAD", "MERGE_MSG", "COMMIT_EDITMSG", "index", "index.lock",
	    "HEAD.lock", "packed-refs", "packed-refs.lock", "index.stash.42",
	    "next-index-7.lock", "sharedindex.abc", "shallow", "gc.log",
	    "NOTES_EDITMSG", "lfs", NULL };
	static const char *const no[] = { "config", "config.lock",
	    "config.worktree", "description", "commondir", "gitdir",
	    "hooks", "info", "rebase-merge", "rebase-apply", "sequencer",
	    "branches", "remotes", "fsmonitor--daemon.ipc", "NEW_THING",
	    "index.stash.", "lock", ".lock", NULL };
	size_t i;

	for (i = 0; ok[i] != NULL; i++) {
		ck_assert_msg(decide(GUARD_OP_CREATE, "/p/.git", ok[i], NULL) ==
		    0, "%s", ok[i]);
		ck_assert_msg(decide(GUARD_OP_CREATE, "/p/bare.git", ok[i],
		    NULL) == 0, "bare %s", ok[i]);
	}
	for (i = 0; no[i] != NULL; i++) {
		ck_assert_msg(decide(GUARD_OP_CREATE, "/p/.git", no[i], NULL) !=
		    0, "%s", no[i]);
		ck_assert_msg(decide(GUARD_OP_MKDIR, "/p/bare.git", no[i],
		    NULL) == EPERM, "bare %s", no[i]);
		ck_assert_msg(decide(GUARD_OP_CREATE,
		    "/p/.git/modules/sub", no[i], NULL) == EPERM, "sub %s",
		    no[i]);
	}
	/* below an allowed folder: anything; below another: nothing */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/bare.git/refs/heads/a",
	    "b", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/bare.git/logs/refs",
	    "x", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE,
	    "/p/.git/rebase-merge", "git-rebase-todo", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/sequencer", "todo",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/p/.git",
	    "rebase-apply", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_WRITE, "/p/bare.git", "config",
	    NULL), EPERM);
	/* a folder named .git is one even without HEAD */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/nohead/.git", "config",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/nohead/.git/hooks",
	    "pre-commit", NULL), EPERM);
	/* a worktree's own git folder (HEAD + commondir) */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/worktrees/w",
	    "index", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/worktrees/w",
	    "locked", NULL), EPERM);
	/* a socket (or anything) named refs next to HEAD and objects */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/half", "refs", NULL),
	    EPERM);
}
END_TEST

/* Removals and metadata changes: read-only names stay; a git folder keeps
 * what makes it one; the .git entry stays; holders of missing paths
 * stay. */
START_TEST(test_rule_remove_and_meta)
{
	static const enum guard_op meta[] = { GUARD_OP_CHOWN, GUARD_OP_UTIME,
	    GUARD_OP_XATTR, GUARD_OP_REMOVE };
	static const char *const ok[] = { "index", "index.lock", "ORIG_HEAD",
	    "MERGE_MSG", "packed-refs", "packed-refs.new", "HEAD.lock",
	    "gc.pid", NULL };
	size_t i;

	/* what makes a git folder one */
	for (i = 0; i < 3; i++) {
		const char *n = i == 0 ? "HEAD" : i == 1 ? "objects" : "refs";

		ck_assert_int_eq(decide(GUARD_OP_REMOVE, "/p/.git", n, NULL),
		    EROFS);
		ck_assert_int_eq(decide(GUARD_OP_REMOVE, "/p/bare.git", n,
		    NULL), EROFS);
		ck_assert_int_eq(decide(GUARD_OP_RENAME_FROM, "/p/.git", n,
		    NULL), EROFS);
		ck_assert_int_eq(decide(GUARD_OP_REMOVE,
		    "/p/.git/modules/sub", n, NULL), EROFS);
	}
	ck_assert_int_ne(decide(GUARD_OP_REMOVE, "/p/.git/worktrees/w",
	    "commondir", NULL), 0);
	/* HEAD alone (no objects+refs beside it) makes nothing */
	ck_assert_int_eq(decide(GUARD_OP_REMOVE, "/p/half", "HEAD", NULL), 0);
	/* git's own removals */
	for (i = 0; ok[i] != NULL; i++) {
		ck_assert_msg(decide(GUARD_OP_REMOVE, "/p/.git", ok[i], NULL) ==
		    0, "%s", ok[i]);
		ck_assert_msg(decide(GUARD_OP_REMOVE, "/p/bare.git", ok[i],
		    NULL) == 0, "bare %s", ok[i]);
	}
	ck_assert_int_eq(decide(GUARD_OP_REMOVE, "/p/.git/objects/ab", "cdef",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_REMOVE, "/p/.git/objects", "ab",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_REMOVE, "/p/.git/refs/heads", "main",
	    NULL), 0);
	/* the read-only rest, and the .git entry itself */
	for (i = 0; i < sizeof meta / sizeof meta[0]; i++) {
		ck_assert_int_eq(decide(meta[i], "/p/.git", "config", NULL),
		    EROFS);
		ck_assert_int_ne(decide(meta[i], "/p/.git/hooks", "pre-commit",
		    NULL), 0);
		ck_assert_int_eq(decide(meta[i], "/p", ".git", NULL), EROFS);
		ck_assert_int_eq(decide(meta[i], "/p/sub", ".git", NULL),
		    EROFS);
		ck_assert_int_eq(decide(meta[i], "/p", ".envrc", NULL), EROFS);
		ck_assert_int_ne(decide(meta[i], "/p/.vscode", "tasks.json",
		    NULL), 0);
		ck_assert_int_ne(decide(meta[i], "/p", ".vscode", NULL), 0);
		ck_assert_int_ne(decide(meta[i], "/h", ".bashrc", NULL), 0);
		/* the project's own files */
		ck_assert_int_eq(decide(meta[i], "/p", "README", NULL), 0);
		ck_assert_int_eq(decide(meta[i], "/p/src", "a.c", NULL), 0);
		ck_assert_int_eq(decide(meta[i], "/tmp", "x", NULL), 0);
	}
	/* metadata of git's own files: allowed */
	ck_assert_int_eq(decide(GUARD_OP_UTIME, "/p/.git", "HEAD", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CHOWN, "/p/.git", "index", NULL), 0);
	/* a path git's config names, and what holds it */
	spec.missing = calloc(2, sizeof *spec.missing);
	spec.missing[0] = strdup("/p/tools/hooks");
	ck_assert_int_ne(decide(GUARD_OP_REMOVE, "/p/tools/hooks",
	    "pre-commit", NULL), 0);
	ck_assert_int_ne(decide(GUARD_OP_REMOVE, "/p/tools", "hooks", NULL),
	    0);
	ck_assert_int_ne(decide(GUARD_OP_REMOVE, "/p", "tools", NULL), 0);
	ck_assert_int_ne(decide(GUARD_OP_UTIME, "/p/tools/hooks",
	    "pre-commit", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_REMOVE, "/p/tools", "other", NULL),
	    0);
	ck_assert_int_eq(decide(GUARD_OP_UTIME, "/p", "tools", NULL), 0);
	ck_assert_str_eq(guard_op_name(GUARD_OP_REMOVE), "remove");
	ck_assert_str_eq(guard_op_name(GUARD_OP_CHOWN), "chown");
	ck_assert_str_eq(guard_op_name(GUARD_OP_UTIME), "utime");
	ck_assert_str_eq(guard_op_name(GUARD_OP_XATTR), "xattr");
}
END_TEST

START_TEST(test_rule_names)
{
	const char *rule;

	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.vscode", "tasks.json",
	    &rule), EPERM);
	ck_assert_str_eq(rule, PLAN_RULE_RUNS_LATER);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p", ".vscode", NULL), EPERM);
	/* root scope: only at a guarded root */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/sub", ".vscode", NULL), 0);
	/* any scope: at any depth, an existing one is read-only */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/a/b", ".envrc", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_WRITE, "/p", ".envrc", NULL), EROFS);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/a/.cargo", "config.toml",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/a/cargo", "config.toml",
	    NULL), 0);
	/* home scope: relative to the home folder only */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h", ".bashrc", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p", ".bashrc", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.config/nvim/lua", "x.lua",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.codex", "auth.json",
	    &rule), EPERM);
	ck_assert_str_eq(rule, PLAN_RULE_CREDENTIALS);
	/* a folder moved where a protected name would land below it */
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/h/.config", "nvim",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/h", ".config", NULL),
	    EROFS);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/p/a", ".cargo", NULL),
	    EPERM);
	/* a symlink or file at a leading part of a protected name would
	 * move it: only a folder may be there */
	ck_assert_int_eq(decide(GUARD_OP_RENAME, "/p/a", ".cargo", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p", ".cargo", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_LINK, "/p/x/y", ".cargo", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h", ".config", NULL),
	    EROFS);
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/p", ".cargo", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/h/.config", "nvim", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p", ".carg", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p", "cargo", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/p/a", "b", NULL), 0);
}
END_TEST

START_TEST(test_hostile_names)
{
	char longp[8000];

	memset(longp, 'a', sizeof longp - 1);
	longp[0] = '/';
	longp[sizeof longp - 1] = '\0';
	/* bad input never crashes, and is refused (fail closed) */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p", "", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p", "a/b", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p", "..", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_WRITE, "/p", ".", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "relative", ".git", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, longp, ".git", NULL),
	    ENAMETOOLONG);
}
END_TEST

START_TEST(test_table)
{
	struct guard_table t = { 0 };
	struct guard_spec back;
	sbox_error err;
	json_t *j;

	ck_assert_int_eq(guard_table_parse(&t, "runs-later root ok/ # x\n",
	    "f", &err), 0);
	ck_assert_int_eq(t.n, 1);
	ck_assert(t.e[0].is_dir);
	ck_assert_str_eq(t.e[0].name, "ok");
	ck_assert_str_eq(t.e[0].comment, "x");
	ck_assert_int_eq(guard_table_parse(&t, "runs-later root ../x\n", "f",
	    &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "f:1"));
	ck_assert_int_eq(guard_table_parse(&t, "\n\nsometimes root x\n", "f",
	    &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "f:3"));
	ck_assert_int_eq(guard_table_parse(&t, "runs-later nowhere x\n", "f",
	    &err), -1);
	ck_assert_int_eq(guard_table_parse(&t, "runs-later root /abs\n", "f",
	    &err), -1);
	ck_assert_int_eq(guard_table_parse(&t, "runs-later root a//b\n", "f",
	    &err), -1);
	ck_assert_int_eq(guard_table_parse(&t, "runs-later root\n", "f", &err),
	    -1);
	guard_table_free(&t);
	/* the spec survives its JSON form (what sbox-init receives) */
	j = guard_spec_to_json(&spec);
	ck_assert_int_eq(guard_spec_from_json(&back, j, &err), 0);
	ck_assert_str_eq(back.roots[1], "/h");
	ck_assert_int_eq(back.table.n, spec.table.n);
	guard_spec_free(&back);
	json_object_set_new(j, "roots", json_pack("[s]", "/p/../etc"));
	ck_assert_int_eq(guard_spec_from_json(&back, j, &err), -1);
	json_decref(j);
}
END_TEST

START_TEST(test_table_same_entry_once)
{
	struct guard_table t = { 0 }, c = { 0 };
	sbox_error err;
	size_t i;

	ck_assert_int_eq(guard_table_parse(&t, "runs-later root .envrc # a\n"
	    "runs-later root .envrc # again: kept once, the first comment\n"
	    "runs-later root .envrc.local # a longer name\n"
	    "runs-later root .env # a shorter one\n"
	    "runs-later root .envrc/ # a folder of that name\n"
	    "runs-later root .envrc/ # that folder again\n"
	    "runs-later any .envrc # another scope\n"
	    "credential root .envrc # another kind\n", "f", &err), 0);
	ck_assert_uint_eq(t.n, 6);
	ck_assert_str_eq(t.e[0].name, ".envrc");
	ck_assert_str_eq(t.e[0].comment, "a");
	ck_assert_str_eq(t.e[1].name, ".envrc.local");
	ck_assert_str_eq(t.e[2].name, ".env");
	ck_assert_str_eq(t.e[3].name, ".envrc");
	ck_assert(t.e[3].is_dir);
	ck_assert_int_eq(t.e[4].scope, GUARD_SCOPE_ANY);
	ck_assert_int_eq(t.e[5].kind, GUARD_KIND_CREDENTIAL);
	/* a copy into an empty table is the same; into a full one, nothing
	 * already there is added twice */
	ck_assert_int_eq(guard_table_copy(&c, &t, &err), 0);
	ck_assert_uint_eq(c.n, t.n);
	for (i = 0; i < t.n; i++) {
		ck_assert_int_eq(c.e[i].kind, t.e[i].kind);
		ck_assert_int_eq(c.e[i].scope, t.e[i].scope);
		ck_assert_int_eq(c.e[i].is_dir, t.e[i].is_dir);
		ck_assert_str_eq(c.e[i].name, t.e[i].name);
		ck_assert_str_eq(c.e[i].comment, t.e[i].comment);
		ck_assert_ptr_ne(c.e[i].name, t.e[i].name);
	}
	ck_assert_int_eq(guard_table_copy(&c, &t, &err), 0);
	ck_assert_uint_eq(c.n, t.n);
	ck_assert_int_eq(guard_table_parse(&c, "runs-later root .new # n\n",
	    "f", &err), 0);
	ck_assert_uint_eq(c.n, t.n + 1);
	guard_table_free(&c);
	guard_table_free(&t);
}
END_TEST

START_TEST(test_spec_rules)
{
	struct guard_spec s = { 0 }, back;
	const struct guard_rule *r;
	sbox_error err;
	json_t *j, *bad;
	size_t i;
	/* each a rule's items, appended to the flat [path, access, rule, ...] */
	static const char *const wrong[] = {
		"[\"h/x\",\"hidden\",\"r\"]",
		"[\"/h/../x\",\"hidden\",\"r\"]",
		"[\"/h/x/\",\"hidden\",\"r\"]",
		"[\"/h/x\",\"secret\",\"r\"]",
		"[\"/h/x\",\"ro\"]",
		"[\"/h/x\",\"ro\",7]",
		"[7,\"ro\",\"r\"]",
		"[\"/h/x\",\"ro\",\"r\\u0000x\"]",
		"[{\"path\":\"/h/x\",\"access\":\"ro\",\"rule\":\"r\"}]",
		"[\"/h/x\"]", NULL };
	json_t *items, *it;
	size_t k;

	s.roots = calloc(1, sizeof *s.roots);
	s.home = strdup("/h");
	ck_assert_int_eq(guard_spec_add_rule(&s, "/", GUARD_ACCESS_RO, "sys"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h", GUARD_ACCESS_HIDDEN,
	    "home"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/proj", GUARD_ACCESS_RW,
	    "project"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/proj/deny",
	    GUARD_ACCESS_HIDDEN, "deny"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/.ssh", GUARD_ACCESS_RO,
	    "first"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/.ssh", GUARD_ACCESS_HIDDEN,
	    "credentials"), 0);
	/* a path that is not absolute and normalised is skipped */
	ck_assert_int_eq(guard_spec_add_rule(&s, "/h/./x", GUARD_ACCESS_HIDDEN,
	    "x"), 0);
	ck_assert_int_eq(guard_spec_add_rule(&s, "rel", GUARD_ACCESS_HIDDEN,
	    "x"), 0);
	ck_assert_uint_eq(s.n_rules, 6);
	/* the longest match decides; the later one on a tie */
	ck_assert_str_eq(guard_spec_explain(&s, "/usr/bin")->rule, "sys");
	ck_assert_str_eq(guard_spec_explain(&s, "/h")->rule, "home");
	ck_assert_str_eq(guard_spec_explain(&s, "/h/notes")->rule, "home");
	ck_assert_str_eq(guard_spec_explain(&s, "/hx")->rule, "sys");
	ck_assert_str_eq(guard_spec_explain(&s, "/h/proj/a.c")->rule,
	    "project");
	ck_assert_str_eq(guard_spec_explain(&s, "/h/projx")->rule, "home");
	r = guard_spec_explain(&s, "/h/proj/deny/k");
	ck_assert_int_eq(r->access, GUARD_ACCESS_HIDDEN);
	ck_assert_str_eq(r->rule, "deny");
	r = guard_spec_explain(&s, "/h/.ssh/id");
	ck_assert_int_eq(r->access, GUARD_ACCESS_HIDDEN);
	ck_assert_str_eq(r->rule, "credentials");
	/* they survive the JSON form, in order */
	j = guard_spec_to_json(&s);
	ck_assert_msg(guard_spec_from_json(&back, j, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(back.n_rules, s.n_rules);
	for (i = 0; i < s.n_rules; i++) {
		ck_assert_str_eq(back.rules[i].path, s.rules[i].path);
		ck_assert_str_eq(back.rules[i].rule, s.rules[i].rule);
		ck_assert_int_eq(back.rules[i].access, s.rules[i].access);
	}
	ck_assert_str_eq(guard_spec_explain(&back, "/h/.ssh/x")->rule,
	    "credentials");
	guard_spec_free(&back);
	/* each malformed rule is refused */
	for (i = 0; wrong[i] != NULL; i++) {
		bad = json_deep_copy(j);
		items = json_loads(wrong[i], JSON_ALLOW_NUL, NULL);
		ck_assert_ptr_nonnull(items);
		json_array_foreach(items, k, it)
			json_array_append(json_object_get(bad, "rules"), it);
		json_decref(items);
		ck_assert_msg(guard_spec_from_json(&back, bad, &err) == -1,
		    "%s", wrong[i]);
		ck_assert_ptr_nonnull(strstr(err.message, "rules"));
		json_decref(bad);
	}
	bad = json_deep_copy(j);
	json_object_set_new(bad, "rules", json_string("x"));
	ck_assert_int_eq(guard_spec_from_json(&back, bad, &err), -1);
	json_decref(bad);
	/* absent: no rules (nothing hidden to report) */
	json_object_del(j, "rules");
	ck_assert_int_eq(guard_spec_from_json(&back, j, &err), 0);
	ck_assert_uint_eq(back.n_rules, 0);
	ck_assert_ptr_null(guard_spec_explain(&back, "/h/.ssh/x"));
	guard_spec_free(&back);
	json_decref(j);
	guard_spec_free(&s);
}
END_TEST

START_TEST(test_spec_protected)
{
	struct guard_spec s = { 0 }, back;
	sbox_error err;
	json_t *j, *bad;
	size_t i;
	/* lines sbox-init must refuse: each alone as the spec's table */
	static const char *const wrong[] = {
		"runs-later root .x # no newline",
		"runs-later root\n",
		"runs-later root .x\n",
		"sometimes root .x c\n",
		"runs-later nowhere .x c\n",
		"runs-later root /abs c\n",
		"runs-later root a//b c\n",
		"runs-later root ../x c\n",
		"runs-later  root .x c\n",
		"runs-later root .x c\x01\n",
		"credential home .ssh/ c\n\n", NULL };

	s.roots = calloc(1, sizeof *s.roots);
	s.home = strdup("/h");
	ck_assert_int_eq(guard_entry_add(&s.table, "runs-later", "root",
	    ".envrc", "direnv # runs it on cd, with  two spaces", &err), 0);
	ck_assert_int_eq(guard_entry_add(&s.table, "credential", "home",
	    ".ssh/", "", &err), 0);
	ck_assert_int_eq(guard_entry_add(&s.table, "runs-later", "any",
	    ".vscode/tasks.json", " leading and trailing ", &err), 0);
	/* every entry comes back as it was, comments to the byte */
	j = guard_spec_to_json(&s);
	ck_assert(json_is_string(json_object_get(j, "protected")));
	ck_assert_msg(guard_spec_from_json(&back, j, &err) == 0, "%s",
	    err.message);
	ck_assert_uint_eq(back.table.n, s.table.n);
	for (i = 0; i < s.table.n; i++) {
		ck_assert_int_eq(back.table.e[i].kind, s.table.e[i].kind);
		ck_assert_int_eq(back.table.e[i].scope, s.table.e[i].scope);
		ck_assert_int_eq(back.table.e[i].is_dir, s.table.e[i].is_dir);
		ck_assert_str_eq(back.table.e[i].name, s.table.e[i].name);
		ck_assert_str_eq(back.table.e[i].comment, s.table.e[i].comment);
	}
	guard_spec_free(&back);
	/* an empty table is an empty string; no string at all is refused */
	bad = json_deep_copy(j);
	json_object_set_new(bad, "protected", json_string(""));
	ck_assert_int_eq(guard_spec_from_json(&back, bad, &err), 0);
	ck_assert_uint_eq(back.table.n, 0);
	guard_spec_free(&back);
	json_object_set_new(bad, "protected", json_array());
	ck_assert_int_eq(guard_spec_from_json(&back, bad, &err), -1);
	json_object_del(bad, "protected");
	ck_assert_int_eq(guard_spec_from_json(&back, bad, &err), -1);
	json_decref(bad);
	/* each malformed line fails the whole spec (fail closed) */
	for (i = 0; wrong[i] != NULL; i++) {
		bad = json_deep_copy(j);
		json_object_set_new(bad, "protected", json_string(wrong[i]));
		ck_assert_msg(guard_spec_from_json(&back, bad, &err) == -1,
		    "%s", wrong[i]);
		ck_assert_ptr_nonnull(strstr(err.message, "protected"));
		json_decref(bad);
	}
	json_decref(j);
	guard_spec_free(&s);
}
END_TEST

START_TEST(test_shipped_file)
{
	struct guard_table t = { 0 };
	char path[512];
	const char *dir = __FILE__;
	sbox_error err;
	size_t i;
	int agents = 0;

	snprintf(path, sizeof path, "%.*s../../policy/protected.default",
	    (int)(strrchr(dir, '/') ? strrchr(dir, '/') - dir + 1 : 0), dir);
	ck_assert_msg(guard_table_load(&t, path, &err) == 0, "%s", err.message);
	ck_assert(t.n > 100);
	for (i = 0; i < t.n; i++) {
		ck_assert_msg(t.e[i].comment[0] != '\0', "%s has no comment",
		    t.e[i].name);
		if (strcmp(t.e[i].name, ".codex/auth.json") == 0 ||
		    strcmp(t.e[i].name, ".claude/.credentials.json") == 0 ||
		    strcmp(t.e[i].name, ".gemini/oauth_creds.json") == 0)
			agents++;
	}
	ck_assert_int_eq(agents, 3);
	guard_table_free(&t);
}
END_TEST

/* Suite of file guard tests. */
static Suite *
guard_suite(void)
{
	Suite *s = suite_create("guard");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rule_git_entry);
	tcase_add_test(tc, test_rule_commondir_and_bare);
	tcase_add_test(tc, test_rule_git_folder);
	tcase_add_test(tc, test_rule_names);
	tcase_add_test(tc, test_rule_remove_and_meta);
	tcase_add_test(tc, test_git_allow_list);
	tcase_add_test(tc, test_hostile_names);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_table_same_entry_once);
	tcase_add_test(tc, test_spec_rules);
	tcase_add_test(tc, test_spec_protected);
	tcase_add_test(tc, test_shipped_file);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(guard_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
