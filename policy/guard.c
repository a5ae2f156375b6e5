/* guard.c: the file guard's decision (see guard.h for the rules; the table
 * of protected names is guard-table.c). Runs inside sbox-init on untrusted
 * paths: everything is bounded, nothing allocates while deciding. */
#include "policy/guard.h"
#include "policy/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Is path equal to dir or below it (whole components)? Returns the length
 * of dir's part (so path + ret is "" or "/rest"), or -1. */
static long
guard_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return 0;
	if (strncmp(path, dir, n) != 0 || (path[n] != '\0' && path[n] != '/'))
		return -1;
	return (long)n;
}

/* Does rel (relative, no leading '/') name e or something below a folder
 * entry, anchored at rel's start? */
static int
guard_match_anchored(const struct guard_entry *e, const char *rel)
{
	size_t n = strlen(e->name);

	if (strncmp(rel, e->name, n) != 0)
		return 0;
	return rel[n] == '\0' || (e->is_dir && rel[n] == '/');
}

/* Does an entry match rel (relative to a root or to home)? */
static int
guard_match_entry(const struct guard_entry *e, const char *rel)
{
	const char *p;

	if (e->scope != GUARD_SCOPE_ANY)
		return guard_match_anchored(e, rel);
	for (p = rel; p != NULL; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (guard_match_anchored(e, p))
			return 1;
	}
	return 0;
}

/* Is c (one component of a git folder's entry) a lock file of an
 * allowed name? git writes NAME.lock and renames it onto NAME. */
static int
guard_git_name(const char *c, size_t n, const char *const *list)
{
	size_t i, m;

	if (n > 5 && memcmp(c + n - 5, ".lock", 5) == 0)
		n -= 5;
	for (i = 0; list[i] != NULL; i++) {
		m = strlen(list[i]);
		if (list[i][m - 1] == '.' || list[i][m - 1] == '-' ?
		    n > m && strncmp(c, list[i], m) == 0 :
		    n == m && strncmp(c, list[i], m) == 0)
			return 1;
	}
	return 0;
}

/* THE ALLOW LIST inside a git folder (gitrepository-layout(5)): what git's
 * own work (commit, branch, tag, stash, fetch, merge, gc, bisect) writes.
 * Every other name -- config, config.worktree, hooks/, info/, description,
 * branches/, remotes/, commondir, gitdir, and any name git adds later -- is
 * read-only and cannot be created; so are rebase-merge/, rebase-apply/ and
 * sequencer/ but in a root's own .git or a worktree's git folder that is a
 * root (guard_seq_gitdir). p is the path below the git folder. */
static int
guard_git_allowed(const char *p)
{
	static const char *const dirs[] = {
		"objects",   /* the object store: data that git never runs */
		"refs",      /* branches, tags, remotes, stash, bisect refs */
		"logs",      /* reflogs */
		"rr-cache",  /* rerere's recorded resolutions (data) */
		"reftable",  /* the reftable ref backend's tables */
		"lfs",       /* git-lfs's object store and its temp files */
		"modules",   /* submodules' git folders: each one is a git */
		"worktrees", /* folder of its own, decided as such */
		NULL };
	static const char *const files[] = {
		"HEAD", "ORIG_HEAD", "FETCH_HEAD", /* refs git writes */
		"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR",
		"MERGE_AUTOSTASH", "AUTO_MERGE",   /* git merge's state */
		"CHERRY_PICK_HEAD", "REVERT_HEAD", /* a single pick/revert */
		"REBASE_HEAD",  /* the commit a rebase stopped at (a ref) */
		"BISECT_LOG", "BISECT_START", "BISECT_TERMS", "BISECT_NAMES",
		"BISECT_EXPECTED_REV", "BISECT_ANCESTORS_OK", "BISECT_HEAD",
		"COMMIT_EDITMSG", "SQUASH_MSG", "TAG_EDITMSG", "NOTES_EDITMSG",
		                /* messages the editor is started on */
		"index",        /* the staging area */
		"sharedindex.", /* split index parts (sharedindex.SHA) */
		"index.stash.", /* git stash's temporary index */
		"next-index-",  /* git commit PATHS' temporary index */
		"packed-refs",  /* refs packed by gc and fetch */
		"packed-refs.new", /* its replacement being written (git
		                      renames it onto packed-refs) */
		"shallow",      /* fetch --depth's boundary commits */
		"gc.pid", "gc.log", /* git gc --auto's own state */
		NULL };
	size_t n = strcspn(p, "/");

	if (guard_git_name(p, n, dirs))
		return 1; /* the folder and everything below it */
	return p[n] == '\0' && guard_git_name(p, n, files);
}

/* Is p (below a git folder) git's sequencer state: rebase-merge/,
 * rebase-apply/, sequencer/ and what is below them? Writable in the git
 * folders guard_seq_gitdir names (rebase, am, cherry-pick and revert of
 * several commits work inside); sboxd checks them on the host side when a
 * command ends and when the session closes, and moves what would run a
 * program in host git out of git's sight
 * (daemon/session/session-sequencer.c). */
static int
guard_git_sequencer(const char *p)
{
	static const char *const dirs[] = { "rebase-merge", "rebase-apply",
	    "sequencer", NULL };
	size_t n = strcspn(p, "/"), i;

	for (i = 0; dirs[i] != NULL; i++)
		if (strlen(dirs[i]) == n && strncmp(p, dirs[i], n) == 0)
			return 1;
	return 0;
}

/* Does name exist in the parent folder? */
static int
guard_exists(const struct guard_fs *fs, const char *rel)
{
	struct stat st;

	return fs != NULL && fs->lstat != NULL && fs->lstat(fs->arg, rel, &st)
	    == 0;
}

/* Is the folder `up` levels above the parent a git folder (on disk)? */
static int
guard_is_gitdir(const struct guard_fs *fs, int up)
{
	char rel[3 * 64 + 16];
	size_t n = 0;
	int i;

	if (up > 64)
		return 0;
	for (i = 0; i < up; i++) {
		memcpy(rel + n, "../", 3);
		n += 3;
	}
	snprintf(rel + n, sizeof rel - n, "HEAD");
	if (!guard_exists(fs, rel))
		return 0;
	snprintf(rel + n, sizeof rel - n, "commondir");
	if (guard_exists(fs, rel))
		return 1;
	snprintf(rel + n, sizeof rel - n, "objects");
	if (!guard_exists(fs, rel))
		return 0;
	snprintf(rel + n, sizeof rel - n, "refs");
	return guard_exists(fs, rel);
}

/* Is path one of the guarded roots? */
static int
guard_is_root(const struct guard_spec *s, const char *path)
{
	size_t i;

	for (i = 0; s->roots[i] != NULL; i++)
		if (strcmp(s->roots[i], path[0] ? path : "/") == 0)
			return 1;
	return 0;
}

/* May the git folder G that holds p (root joined with the first n bytes
 * of rel, n 0: root itself; else rel[n - 1] is its '/'; `up` levels above
 * the parent) hold git's sequencer state? When it is the .git directly in
 * a guarded root, or a linked worktree's own git folder (its commondir)
 * that is a guarded root itself: sboxd checks exactly those
 * (daemon/session/session-sequencer.c). Not the common folder of a
 * worktree session, a submodule's or a nested repository's. */
static int
guard_seq_gitdir(const struct guard_spec *s, const char *root,
    const char *rel, size_t n, const struct guard_fs *fs, int up)
{
	char path[GUARD_PATH_MAX + GUARD_NAME_MAX + 2], rl[3 * 64 + 16], *slash;
	size_t k = 0;
	int i, w;

	w = n == 0 ? snprintf(path, sizeof path, "%s", root) :
	    snprintf(path, sizeof path, "%s/%.*s", strcmp(root, "/") == 0 ?
	    "" : root, (int)(n - 1), rel);
	if (w < 0 || (size_t)w >= sizeof path || up > 64)
		return 0;
	if (guard_is_root(s, path)) {
		for (i = 0; i < up; i++, k += 3)
			memcpy(rl + k, "../", 3);
		snprintf(rl + k, sizeof rl - k, "commondir");
		if (guard_exists(fs, rl))
			return 1;
	}
	if ((slash = strrchr(path, '/')) == NULL || strcmp(slash, "/.git") != 0)
		return 0;
	*slash = '\0';
	return guard_is_root(s, path);
}

/* Is the first component of p one a git folder keeps read-only? */
static int
guard_git_first(const char *p)
{
	static const char *const first[] = { "config", "config.worktree",
	    "commondir", "hooks", "info", "worktrees", "modules", NULL };
	size_t n = strcspn(p, "/"), i;

	for (i = 0; first[i] != NULL; i++)
		if (strlen(first[i]) == n && strncmp(p, first[i], n) == 0)
			return 1;
	return 0;
}

/* Rule 4 for one root: rel is the path below it ("" for the root). A
 * folder on the way is a git folder when it is named .git or holds HEAD
 * and objects+refs or HEAD and commondir (a bare repository, a gitfile's
 * target, modules/NAME, worktrees/NAME); below it only the allow list is
 * writable. 1 when refused. */
static int
guard_rule_gitdir(const struct guard_spec *s, const char *root,
    const char *rel, const struct guard_fs *fs)
{
	const char *p, *prev = NULL;
	int comps = 0, idx, below, named, git, nested = 0;

	for (p = rel; *p != '\0'; p++)
		if (*p == '/')
			comps++;
	comps++; /* components of rel; the name is the last */
	/* Candidate git folder: the root itself, then each prefix. */
	for (p = rel, idx = 0; p != NULL && *p != '\0'; idx++) {
		/* the folder holding p is idx components below the root:
		 * comps - 1 - idx levels above the parent */
		below = comps - 1 - idx;
		named = prev != NULL && strncmp(prev, ".git/", 5) == 0;
		git = named || guard_is_gitdir(fs, below);
		/* (the sequencer's state: in a root's own .git only) */
		if (git && !guard_git_allowed(p) && !(guard_git_sequencer(p) &&
		    guard_seq_gitdir(s, root, rel, (size_t)(p - rel), fs,
		    below)))
			return 1;
		if (git)
			nested = 0;
		/* modules/NAME/... and worktrees/NAME/...: writable only
		 * inside a git folder of their own (NAME may hold '/') */
		if (git && (strncmp(p, "modules/", 8) == 0 ||
		    strncmp(p, "worktrees/", 10) == 0) &&
		    strchr(strchr(p, '/') + 1, '/') != NULL)
			nested = 1;
		prev = p;
		if ((p = strchr(p, '/')) != NULL)
			p++;
	}
	return nested;
}

/* Fill a refusal. */
static void
guard_refuse(struct guard_verdict *v, int err, const char *rule,
    const char *fmt, const char *a, const char *b)
{
	v->err = err;
	v->rule = rule;
	snprintf(v->reason, sizeof v->reason, fmt, a, b);
}

/* Rules 1 to 3 for a name in a guarded root; 1 when refused. */
static int
guard_rules_git(enum guard_op op, const char *name, int creating,
    const struct guard_fs *fs, struct guard_verdict *v)
{
	const char *a = "HEAD", *b = "objects";

	if (strcmp(name, ".git") == 0 && op != GUARD_OP_RENAME_FROM &&
	    op != GUARD_OP_LINK_FROM && op != GUARD_OP_RENAME_DIR_FROM) {
		if (op == GUARD_OP_WRITE || op == GUARD_OP_CHMOD ||
		    op == GUARD_OP_REMOVE || op == GUARD_OP_CHOWN ||
		    op == GUARD_OP_UTIME || op == GUARD_OP_XATTR ||
		    guard_exists(fs, name))
			guard_refuse(v, EROFS, PLAN_RULE_RUNS_LATER, "%s%s",
			    "a gitfile (.git) points host git at a git folder",
			    "");
		else
			guard_refuse(v, EPERM, PLAN_RULE_RUNS_LATER, "%s%s",
			    "a new .git makes a repository that host git "
			    "would use", "");
		return 1;
	}
	if (strcmp(name, "commondir") == 0 && creating) {
		guard_refuse(v, guard_exists(fs, name) ? EROFS : EPERM,
		    PLAN_RULE_RUNS_LATER, "%s%s", "a commondir points host git at "
		    "another config and hooks", "");
		return 1;
	}
	if (!creating || (strcmp(name, "HEAD") != 0 &&
	    strcmp(name, "objects") != 0 && strcmp(name, "refs") != 0))
		return 0;
	if (strcmp(name, "HEAD") == 0)
		a = "refs";
	else if (strcmp(name, "objects") == 0)
		b = "refs";
	if (!guard_exists(fs, name) && guard_exists(fs, a) &&
	    guard_exists(fs, b)) {
		guard_refuse(v, EPERM, PLAN_RULE_RUNS_LATER, "%s%s", "HEAD, "
		    "objects and refs together make a git folder that host git "
		    "would discover", "");
		return 1;
	}
	return 0;
}

/* Removing (or renaming away) HEAD, objects, refs or commondir directly in
 * a git folder unmakes it: host git would walk up to another repository
 * (git itself only renames NAME.lock onto them). 1 when refused. */
static int
guard_rule_unmake(enum guard_op op, const char *parent, const char *name,
    const struct guard_fs *fs, struct guard_verdict *v)
{
	const char *base = strrchr(parent, '/');

	if (op != GUARD_OP_REMOVE && op != GUARD_OP_RENAME_FROM &&
	    op != GUARD_OP_RENAME_DIR_FROM)
		return 0;
	if (strcmp(name, "HEAD") != 0 && strcmp(name, "objects") != 0 &&
	    strcmp(name, "refs") != 0 && strcmp(name, "commondir") != 0)
		return 0;
	if ((base == NULL || strcmp(base + 1, ".git") != 0) &&
	    !guard_is_gitdir(fs, 0))
		return 0;
	guard_refuse(v, EROFS, PLAN_RULE_RUNS_LATER, "%s%s", "HEAD, objects, "
	    "refs and commondir make a git folder: without them host git "
	    "walks up to another repository", "");
	return 1;
}

/* Rule 5: the protected names; 1 when refused. */
static int
guard_rules_names(const struct guard_spec *s, const char *full, long rootlen,
    const char *name, const struct guard_fs *fs, struct guard_verdict *v)
{
	const char *rel = full + rootlen + (full[rootlen] == '/');
	const char *relh = NULL;
	const struct guard_entry *e;
	long hl;
	size_t i;

	if (s->home != NULL && (hl = guard_under(full, s->home)) >= 0)
		relh = full + hl + (full[hl] == '/');
	for (i = 0; i < s->table.n; i++) {
		e = &s->table.e[i];
		/* a home folder as a root (a provider's own) is a home: its
		 * names are the home ones, not a project's */
		if (e->scope == GUARD_SCOPE_ROOT && relh == rel)
			continue;
		if (e->scope == GUARD_SCOPE_HOME ? (relh == NULL ||
		    !guard_match_entry(e, relh)) : !guard_match_entry(e, rel))
			continue;
		guard_refuse(v, guard_exists(fs, name) ? EROFS : EPERM,
		    e->kind == GUARD_KIND_CREDENTIAL ? PLAN_RULE_CREDENTIALS :
		    PLAN_RULE_RUNS_LATER, "%s: %s", e->name, e->comment[0] ?
		    e->comment : "a protected name");
		if (e->is_dir)
			strncat(v->reason, " (protected folder)", sizeof v->reason -
			    strlen(v->reason) - 1);
		return 1;
	}
	return 0;
}

/* Does a protected entry lie strictly below rel (a folder moved there)? */
static int
guard_below(const struct guard_entry *e, const char *rel)
{
	size_t n = strlen(rel);

	return strncmp(e->name, rel, n) == 0 && e->name[n] == '/';
}

/* Moving a folder onto (or away from) rel: refused when a git folder's
 * protected parts or a protected name would change below it; 1 when so. */
static int
guard_rule_move_dir(const struct guard_spec *s, enum guard_op op,
    const char *full, const char *rel, const char *name,
    const struct guard_fs *fs, struct guard_verdict *v)
{
	const struct guard_entry *e;
	const char *p, *relh = NULL;
	int comps = 1, idx;
	size_t i;
	long hl;

	for (p = rel; *p != '\0'; p++)
		comps += *p == '/';
	for (p = rel, idx = 0; p != NULL && *p != '\0'; idx++) {
		if (guard_git_first(p) && guard_is_gitdir(fs, comps - 1 - idx)) {
			guard_refuse(v, guard_exists(fs, name) ? EROFS : EPERM,
			    PLAN_RULE_RUNS_LATER, "%s%s", "config, hooks, info, "
			    "worktrees and modules of a git folder run programs "
			    "in host git", "");
			return 1;
		}
		if ((p = strchr(p, '/')) != NULL)
			p++;
	}
	if (op != GUARD_OP_RENAME_DIR)
		return 0;
	if (s->home != NULL && (hl = guard_under(full, s->home)) >= 0)
		relh = full + hl + (full[hl] == '/');
	for (i = 0; i < s->table.n; i++) {
		e = &s->table.e[i];
		if (e->scope == GUARD_SCOPE_HOME) {
			if (relh == NULL || !guard_below(e, relh))
				continue;
		} else if (e->scope == GUARD_SCOPE_ROOT) {
			if (relh == rel || !guard_below(e, rel))
				continue;	/* (the home as a root: see above) */
		} else {
			for (p = rel; p != NULL; p = strchr(p, '/')) {
				if (*p == '/')
					p++;
				if (guard_below(e, p))
					break;
			}
			if (p == NULL)
				continue;
		}
		guard_refuse(v, guard_exists(fs, name) ? EROFS : EPERM,
		    e->kind == GUARD_KIND_CREDENTIAL ? PLAN_RULE_CREDENTIALS :
		    PLAN_RULE_RUNS_LATER, "%s: %s (a folder moved here would "
		    "hold it)", e->name, e->comment[0] ? e->comment :
		    "a protected name");
		return 1;
	}
	return 0;
}

/* Rule 6: a name that is a leading part of a protected name (.cargo of
 * .cargo/config.toml, .config of .config/mise/) stays a folder: a symlink
 * (or any other non-folder) made there would send the protected name
 * elsewhere, where the guard no longer sees it as protected. 1 when
 * refused. */
static int
guard_rule_leading(const struct guard_spec *s, const char *full,
    const char *rel, const char *name, const struct guard_fs *fs,
    struct guard_verdict *v)
{
	const struct guard_entry *e;
	const char *p, *relh = NULL;
	size_t i;
	long hl;

	if (s->home != NULL && (hl = guard_under(full, s->home)) >= 0)
		relh = full + hl + (full[hl] == '/');
	for (i = 0; i < s->table.n; i++) {
		e = &s->table.e[i];
		if (e->scope == GUARD_SCOPE_HOME) {
			if (relh == NULL || !guard_below(e, relh))
				continue;
		} else if (e->scope == GUARD_SCOPE_ROOT) {
			if (!guard_below(e, rel))
				continue;
		} else {
			for (p = rel; p != NULL; p = strchr(p, '/')) {
				if (*p == '/')
					p++;
				if (guard_below(e, p))
					break;
			}
			if (p == NULL)
				continue;
		}
		guard_refuse(v, guard_exists(fs, name) ? EROFS : EPERM,
		    e->kind == GUARD_KIND_CREDENTIAL ? PLAN_RULE_CREDENTIALS :
		    PLAN_RULE_RUNS_LATER, "%s: %s (a symlink or file here "
		    "would move it; only a folder may have this name)", e->name,
		    e->comment[0] ? e->comment : "a protected name");
		return 1;
	}
	return 0;
}

/* Does the pattern pat (relative; '/' at its end: a folder) match rel,
 * the folder's own name (*own set) or something below it? */
static int
guard_account_match(const char *pat, const char *rel, int *own)
{
	char pbuf[GUARD_NAME_MAX + 2], rbuf[GUARD_PATH_MAX + GUARD_NAME_MAX + 2];
	size_t n = strlen(pat), comps = 0, i;
	int dir = n > 0 && pat[n - 1] == '/';
	const char *p;

	*own = 0;
	if (n == 0 || n >= sizeof pbuf || strlen(rel) >= sizeof rbuf)
		return 0;
	memcpy(pbuf, pat, n + 1);
	if (dir)
		pbuf[--n] = '\0';
	for (i = 0; i < n; i++)
		comps += pbuf[i] == '/';
	comps++;
	/* the first comps components of rel */
	memcpy(rbuf, rel, strlen(rel) + 1);
	for (p = rbuf, i = 0; p != NULL && i < comps; i++)
		if ((p = strchr(p, '/')) != NULL && i + 1 < comps)
			p++;
	if (p != NULL && !dir)
		return 0;	/* a file pattern: nothing below it */
	if (p != NULL)
		rbuf[p - rbuf] = '\0';
	else if (i < comps)
		return 0;	/* rel is shorter than the pattern */
	if (fnmatch(pbuf, rbuf, FNM_PATHNAME | FNM_PERIOD) != 0)
		return 0;
	*own = dir && p == NULL;
	return 1;
}

/* Is rel one of the account's writable patterns, or below a folder one? */
int
guard_account_writable(const struct guard_account *a, const char *rel,
    int leaf)
{
	size_t i;
	int own;

	for (i = 0; a->writable != NULL && a->writable[i] != NULL; i++)
		if (guard_account_match(a->writable[i], rel, &own) &&
		    !(own && leaf))
			return 1;
	return 0;
}

/* Rule 0: inside an account folder only its writable patterns; 1 when
 * refused. */
static int
guard_rule_account(const struct guard_spec *s, const char *full, int leaf,
    const char *name, const struct guard_fs *fs, struct guard_verdict *v)
{
	const struct guard_account *a;
	long n;
	size_t i;

	for (i = 0; i < s->n_accounts; i++) {
		a = &s->accounts[i];
		if ((n = guard_under(full, a->root)) < 0 || full[n] == '\0')
			continue;
		if (guard_account_writable(a, full + n + 1, leaf))
			return 0;
		guard_refuse(v, guard_exists(fs, name) ? EROFS : EPERM,
		    PLAN_RULE_ACCOUNT, "%s%s", "an agent's account folder is "
		    "read-only but for what the agent writes while it works "
		    "(transcripts, history, todos, logs, caches): its settings, "
		    "hooks, commands, rules, instructions, .env files and "
		    "sign-in steer the agent on the host", "");
		return 1;
	}
	return 0;
}

/* May a Unix socket be bound in the folder parent? */
int
guard_decide_bind(const struct guard_spec *s, const char *parent,
    struct guard_verdict *v)
{
	size_t i;

	memset(v, 0, sizeof *v);
	for (i = 0; s != NULL && s->nosock != NULL && s->nosock[i] != NULL;
	    i++) {
		if (parent != NULL && guard_under(parent, s->nosock[i]) >= 0) {
			guard_refuse(v, EACCES, PLAN_RULE_CACHES, "%s%s", "no "
			    "socket is served from a package cache (the other "
			    "sessions of the project read it)", "");
			return v->err;
		}
	}
	return 0;
}

/* The rules of a guarded root (git folders, protected names, folders
 * moved, leading names) for full, name in parent; 1 when refused. */
static int
guard_rules_roots(const struct guard_spec *s, enum guard_op op,
    const char *parent, const char *name, const char *full,
    const struct guard_fs *fs, struct guard_verdict *v)
{
	int creating = op == GUARD_OP_CREATE || op == GUARD_OP_RENAME ||
	    op == GUARD_OP_LINK || op == GUARD_OP_RENAME_DIR ||
	    op == GUARD_OP_MKDIR;
	int leaf = op == GUARD_OP_CREATE || op == GUARD_OP_RENAME ||
	    op == GUARD_OP_LINK;
	const char *rel;
	long rl;
	size_t i;

	for (i = 0; s->roots[i] != NULL; i++) {
		if ((rl = guard_under(full, s->roots[i])) < 0 ||
		    full[rl] == '\0')
			continue;
		if (guard_rules_git(op, name, creating, fs, v) ||
		    guard_rule_unmake(op, parent, name, fs, v))
			return 1;
		rel = full + rl + 1;
		if (guard_rule_gitdir(s, s->roots[i], rel, fs)) {
			guard_refuse(v, guard_exists(fs, name) ? EROFS : EPERM,
			    PLAN_RULE_RUNS_LATER, "%s%s", "inside a git folder "
			    "only what git's own work writes (objects, refs, "
			    "logs, index, HEAD, ...) is writable: config, hooks, "
			    "info, rebase and sequencer state run programs in "
			    "host git", "");
			return 1;
		}
		if (guard_rules_names(s, full, rl, name, fs, v))
			return 1;
		if ((op == GUARD_OP_RENAME_DIR || op == GUARD_OP_RENAME_DIR_FROM)
		    && guard_rule_move_dir(s, op, full, rel, name, fs, v))
			return 1;
		if (leaf && guard_rule_leading(s, full, rel, name, fs, v))
			return 1;
	}
	return 0;
}

/* Refuse an operation on full (name in parent) that a path the plan keeps
 * (kept: git's config or an agent's settings name it, or it did not
 * exist when the plan was made) refuses, with a reason true to what is on disk now: the path
 * itself (a file, a folder, or missing), inside it, or a folder that
 * holds it. */
static void
guard_refuse_kept(const char *kept, const char *parent, const char *full,
    const char *name, const struct guard_fs *fs, struct guard_verdict *v)
{
	static const char why[] = "(named by git's config or an agent's "
	    "settings, or protected by the profile: it would run programs "
	    "on the host later)";
	struct stat st;
	int err = guard_exists(fs, name) ? EROFS : EPERM;
	size_t pl = strcmp(parent, "/") == 0 ? 0 : strlen(parent);

	if (strcmp(full, kept) == 0) {
		if (fs == NULL || fs->lstat == NULL || fs->lstat(fs->arg, name,
		    &st) != 0)
			guard_refuse(v, EPERM, PLAN_RULE_RUNS_LATER, "%s: a "
			    "protected path that does not exist stays "
			    "uncreatable %s", name, why);
		else
			guard_refuse(v, EROFS, PLAN_RULE_RUNS_LATER, S_ISDIR(
			    st.st_mode) ? "%s: a protected folder stays "
			    "read-only %s" : S_ISREG(st.st_mode) ? "%s: a "
			    "protected file stays read-only %s" : "%s: a "
			    "protected path stays as it is %s", name, why);
	} else if (guard_under(full, kept) >= 0)
		/* (the folder exists: parent is in it) */
		guard_refuse(v, err, PLAN_RULE_RUNS_LATER, "inside the "
		    "protected folder %s nothing is made or written %s",
		    kept + (strncmp(kept, parent, pl) == 0 && kept[pl] == '/' ?
		    pl + 1 : 0), why);
	else if (fs != NULL && fs->lstat != NULL && fs->lstat(fs->arg, kept +
	    pl + 1, &st) == 0)
		guard_refuse(v, err, PLAN_RULE_RUNS_LATER, "%s holds the "
		    "protected path %s: it is not moved, removed or replaced",
		    name, kept + pl + 1);
	else
		guard_refuse(v, err, PLAN_RULE_RUNS_LATER, "%s is on the way "
		    "to the protected path %s (it does not exist and stays "
		    "uncreatable): it is not made, moved or replaced", name,
		    kept + pl + 1);
}

/* Decide op on name in the folder parent. */
void
guard_decide(const struct guard_spec *s, enum guard_op op, const char *parent,
    const char *name, const struct guard_fs *fs, struct guard_verdict *v)
{
	char full[GUARD_PATH_MAX + GUARD_NAME_MAX + 2];
	/* a name made that is not a folder: a symlink, a file, a node */
	int leaf = op == GUARD_OP_CREATE || op == GUARD_OP_RENAME ||
	    op == GUARD_OP_LINK;
	long rl;
	size_t i;
	int n;

	memset(v, 0, sizeof *v);
	if (s == NULL || s->roots == NULL || parent == NULL || name == NULL ||
	    parent[0] != '/' || name[0] == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		/* fail closed: nothing is allowed that was not decided */
		guard_refuse(v, EPERM, PLAN_RULE_RUNS_LATER, "%s%s",
		    "the file guard cannot decide on this path", "");
		return;
	}
	n = snprintf(full, sizeof full, "%s/%s", strcmp(parent, "/") == 0 ?
	    "" : parent, name);
	if (n < 0 || (size_t)n >= sizeof full) {
		guard_refuse(v, ENAMETOOLONG, PLAN_RULE_RUNS_LATER, "%s%s",
		    "the path is too long to check", "");
		return;
	}
	/* the protected paths the plan keeps (those that did not exist at
	 * its making, and what git's config names): never made or written,
	 * nor a folder moved in that would hold one; the rule of the name
	 * itself decides the reason when it has one */
	for (i = 0; s->missing != NULL && s->missing[i] != NULL; i++)
		/* (nor a new name on its way: a symlink there would lead
		 * the host's spelling of the path elsewhere) */
		if (guard_under(full, s->missing[i]) >= 0 || ((op ==
		    GUARD_OP_RENAME_DIR || op == GUARD_OP_RENAME_DIR_FROM ||
		    op == GUARD_OP_REMOVE || leaf) &&
		    guard_under(s->missing[i], full) >= 0))
			break;
	if (s->missing != NULL && s->missing[i] != NULL) {
		if (guard_rule_account(s, full, leaf, name, fs, v) ||
		    guard_rules_roots(s, op, parent, name, full, fs, v))
			return;
		guard_refuse_kept(s->missing[i], parent, full, name, fs, v);
		return;
	}
	/* a folder of the session's own: nothing made there reaches the
	 * host (its mount point itself the kernel keeps: EBUSY) */
	for (i = 0; s->private_dirs != NULL && s->private_dirs[i] != NULL; i++)
		if ((rl = guard_under(full, s->private_dirs[i])) >= 0 &&
		    full[rl] != '\0')
			return;
	if (guard_rule_account(s, full, leaf, name, fs, v))
		return;
	guard_rules_roots(s, op, parent, name, full, fs, v);
}
