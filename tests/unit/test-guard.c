/* test-guard.c: the file guard's decision (policy/guard.c) on a fake
 * filesystem (the table of protected names and the spec sbox-init
 * receives: test-guard-spec.c). */
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
	"/p/.envrc", "/p/sub/.git", "/p/inc.cfg", "/p/myhooks",
	"/p/myhooks/pre-push",
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
	size_t i, k, n;

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
			/* a folder when something is below it */
			memset(st, 0, sizeof *st);
			st->st_mode = S_IFREG | 0644;
			n = strlen(path);
			for (k = 0; fake[k] != NULL; k++)
				if (strncmp(fake[k], path, n) == 0 &&
				    fake[k][n] == '/')
					st->st_mode = S_IFDIR | 0755;
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

/* Decide op on parent/name; the reason of a refusal ("" allowed). */
static const char *
decide_reason(enum guard_op op, const char *parent, const char *name)
{
	static struct guard_verdict v;
	struct fake_arg a = { parent };
	struct guard_fs fs = { fake_lstat, &a };

	guard_decide(&spec, op, parent, name, &fs, &v);
	return v.err != 0 ? v.reason : "";
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

START_TEST(test_sequencer_where)
{
	char **r;

	/* a worktree's git folder: only when it is a root of its own (a
	 * worktree session), never from the common folder's side */
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/p/.git/worktrees/w",
	    "rebase-merge", NULL), EPERM);
	r = realloc(spec.roots, 5 * sizeof *r);
	ck_assert_ptr_nonnull(r);
	spec.roots = r;
	r[2] = strdup("/p/.git/worktrees/w");
	r[3] = strdup("/p/bare.git");
	r[4] = NULL;
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/p/.git/worktrees/w",
	    "rebase-merge", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE,
	    "/p/.git/worktrees/w/sequencer", "todo", NULL), 0);
	/* a bare repository as a root: no (sboxd checks .git and worktree
	 * folders only) */
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/p/bare.git", "sequencer",
	    NULL), EPERM);
	/* the top .git still, and a submodule's never */
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/p/.git", "rebase-apply",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/p/.git/modules/sub",
	    "rebase-apply", NULL), EPERM);
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
	    "hooks", "info", "branches", "remotes", "fsmonitor--daemon.ipc", "NEW_THING",
	    "index.stash.", "lock", ".lock", NULL };
	static const char *const seq[] = { "rebase-merge", "rebase-apply",
	    "sequencer", NULL };
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
	/* the sequencer's state: in the root's own .git only (sboxd checks
	 * it on the host side), nowhere else */
	for (i = 0; seq[i] != NULL; i++) {
		ck_assert_msg(decide(GUARD_OP_MKDIR, "/p/.git", seq[i], NULL) ==
		    0, "%s", seq[i]);
		ck_assert_msg(decide(GUARD_OP_MKDIR, "/p/bare.git", seq[i],
		    NULL) == EPERM, "bare %s", seq[i]);
		ck_assert_msg(decide(GUARD_OP_MKDIR, "/p/.git/modules/sub",
		    seq[i], NULL) == EPERM, "sub %s", seq[i]);
		ck_assert_msg(decide(GUARD_OP_MKDIR, "/p/sub/.git", seq[i],
		    NULL) == EPERM, "nested %s", seq[i]);
	}
	ck_assert_int_eq(decide(GUARD_OP_CREATE,
	    "/p/.git/rebase-merge", "git-rebase-todo", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git/sequencer", "todo",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/p/.git",
	    "rebase-apply", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git", "REBASE_HEAD",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/p/.git", "rebase-merged",
	    NULL), EPERM);
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

/* Each reason is the rule of the name when it has one, and true to what
 * is on disk: the existing .git/config that git's config names is refused
 * by the git folder's rule (it was "a protected path that does not exist
 * stays uncreatable"); a kept file, folder, missing path, a path inside a
 * kept folder and a folder holding one each say what they are. */
START_TEST(test_reasons_true_to_the_path)
{
	static const char *const kept[] = { "/p/.git/config", "/p/inc.cfg",
	    "/p/gone.cfg", "/p/myhooks", "/p/tools/hooks/run", NULL };
	const char *r;
	size_t i;

	spec.missing = calloc(sizeof kept / sizeof kept[0], sizeof
	    *spec.missing);
	for (i = 0; kept[i] != NULL; i++)
		spec.missing[i] = strdup(kept[i]);
	r = decide_reason(GUARD_OP_WRITE, "/p/.git", "config");
	ck_assert_msg(strncmp(r, "inside a git folder only what git's own "
	    "work writes", 46) == 0, "%s", r);
	ck_assert_ptr_null(strstr(r, "does not exist"));
	r = decide_reason(GUARD_OP_WRITE, "/p", "inc.cfg");
	ck_assert_msg(strncmp(r, "inc.cfg: a protected file stays read-only",
	    41) == 0, "%s", r);
	r = decide_reason(GUARD_OP_CREATE, "/p", "gone.cfg");
	ck_assert_msg(strncmp(r, "gone.cfg: a protected path that does not "
	    "exist stays uncreatable", 63) == 0, "%s", r);
	r = decide_reason(GUARD_OP_REMOVE, "/p", "myhooks");
	ck_assert_msg(strncmp(r, "myhooks: a protected folder stays "
	    "read-only", 43) == 0, "%s", r);
	r = decide_reason(GUARD_OP_WRITE, "/p/myhooks", "pre-push");
	ck_assert_msg(strncmp(r, "inside the protected folder /p/myhooks",
	    38) == 0, "%s", r);
	r = decide_reason(GUARD_OP_CREATE, "/p/myhooks", "new");
	ck_assert_msg(strncmp(r, "inside the protected folder /p/myhooks",
	    38) == 0, "%s", r);
	/* a folder on the way: holds it (it exists) or not */
	r = decide_reason(GUARD_OP_RENAME_DIR_FROM, "/p", "tools");
	ck_assert_msg(strncmp(r, "tools is on the way to the protected path "
	    "tools/hooks/run (it does not exist", 64) == 0, "%s", r);
	free(spec.missing[3]);
	spec.missing[3] = strdup("/p/myhooks/pre-push");
	r = decide_reason(GUARD_OP_RENAME_DIR_FROM, "/p", "myhooks");
	ck_assert_msg(strncmp(r, "myhooks holds the protected path "
	    "myhooks/pre-push", 49) == 0, "%s", r);
	/* a protected name keeps its own rule's text */
	r = decide_reason(GUARD_OP_WRITE, "/p", ".envrc");
	ck_assert_msg(strncmp(r, ".envrc: direnv", 14) == 0, "%s", r);
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

/* The fixture's spec survives its JSON form (what sbox-init receives);
 * a root that climbs out is refused. */
START_TEST(test_spec_round_trip)
{
	struct guard_spec back;
	sbox_error err;
	json_t *j;

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

/* Rule 0: an account folder is read-only but for its writable patterns
 * (folders with all below, files, wildcards within one name); a folder
 * pattern's own name stays a folder; the account survives the spec's
 * JSON form, and bad patterns are refused. */
START_TEST(test_account_allow_list)
{
	char *w[] = { "projects/", "history.jsonl", "debug/*.txt", "sess-*/",
	    NULL };
	char *bad[] = { "../x", NULL }, *bad2[] = { "a/./b", NULL };
	struct guard_spec back;
	sbox_error err;
	const char *rule;
	json_t *j;

	ck_assert_int_eq(guard_spec_add_account(&spec, "/h/.agent", w, &err),
	    0);
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/h/.agent", "projects", NULL),
	    0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent/projects/a",
	    "t.jsonl", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_REMOVE, "/h/.agent/projects",
	    "old", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_WRITE, "/h/.agent", "history.jsonl",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent/debug", "x.txt",
	    NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/h/.agent", "sess-12", NULL),
	    0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent/sess-12", "a",
	    NULL), 0);
	/* everything else, whatever the name or the operation */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent", "settings.json",
	    &rule), EPERM);
	ck_assert_str_eq(rule, PLAN_RULE_ACCOUNT);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent/debug", "x.sh",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent/debug/sub",
	    "x.txt", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent", "history.jsonl2",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent/history.jsonl",
	    "x", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_MKDIR, "/h/.agent", "commands", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent", ".env", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_FROM, "/h/.agent",
	    "settings.json", NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_LINK_FROM, "/h/.agent", "auth.json",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR_FROM, "/h/.agent", "hooks",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_CHMOD, "/h/.agent", "a.sh", NULL),
	    EPERM);
	/* a folder pattern's own name: only a folder */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent", "projects",
	    NULL), EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME, "/h/.agent", "sess-9", NULL),
	    EPERM);
	ck_assert_int_eq(decide(GUARD_OP_RENAME_DIR, "/h/.agent", "sess-9",
	    NULL), 0);
	/* next to it, in home: the account rule says nothing */
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h", ".agent2", NULL), 0);
	ck_assert_int_eq(decide(GUARD_OP_CREATE, "/h/.agent-x", "a", NULL), 0);
	/* the JSON form */
	j = guard_spec_to_json(&spec);
	ck_assert_int_eq(guard_spec_from_json(&back, j, &err), 0);
	ck_assert_int_eq(back.n_accounts, 1);
	ck_assert_str_eq(back.accounts[0].root, "/h/.agent");
	ck_assert_str_eq(back.accounts[0].writable[3], "sess-*/");
	ck_assert_ptr_null(back.accounts[0].writable[4]);
	guard_spec_free(&back);
	json_object_set_new(j, "accounts", json_pack("[{s:s,s:[s]}]", "root",
	    "/h/.a", "writable", "../../etc/"));
	ck_assert_int_eq(guard_spec_from_json(&back, j, &err), -1);
	json_object_set_new(j, "accounts", json_pack("[{s:s,s:[]}]", "root",
	    "relative", "writable"));
	ck_assert_int_eq(guard_spec_from_json(&back, j, &err), -1);
	json_object_set_new(j, "accounts", json_pack("[{s:s,s:[]}]", "root",
	    "/h/.b", "writable"));
	ck_assert_int_eq(guard_spec_from_json(&back, j, &err), 0);
	ck_assert_ptr_null(back.accounts[0].writable[0]);
	guard_spec_free(&back);
	json_decref(j);
	ck_assert_int_eq(guard_spec_add_account(&spec, "/h/.c", bad, &err), -1);
	ck_assert_int_eq(guard_spec_add_account(&spec, "/h/.c", bad2, &err),
	    -1);
	ck_assert_int_eq(guard_spec_add_account(&spec, "/", NULL, &err), -1);
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
	tcase_add_test(tc, test_reasons_true_to_the_path);
	tcase_add_test(tc, test_rule_names);
	tcase_add_test(tc, test_rule_remove_and_meta);
	tcase_add_test(tc, test_git_allow_list);
	tcase_add_test(tc, test_sequencer_where);
	tcase_add_test(tc, test_hostile_names);
	tcase_add_test(tc, test_spec_round_trip);
	tcase_add_test(tc, test_account_allow_list);
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
