/* plan-git.c: a project that is a linked worktree (or whose git folder
 * lies elsewhere): the git folders it needs, and what in them stays
 * read-only; and the paths the repositories' git config names (found by
 * sboxd, daemon/session/gitcfg.c), kept read-only and missing-proof. */
#include "policy/policy.h"

#include <stdlib.h>
#include <string.h>

#include "policy/guard.h"
#include "policy/path.h"
#include "policy/plan-builder.h"
#include "policy/plan-git.h"
#include "policy/strv.h"

/* A project whose .git is a file (a linked worktree, a separate git
 * folder): git inside needs the git folder it names and its common folder
 * (objects, refs), which lie outside the project. They are granted
 * read-write; what runs programs in them is protected later. */
void
plan_grant_worktree(struct plan_builder *b, const char *project)
{
	char *git = path_join(project, ".git"), *gd = NULL, *cf = NULL, *common;
	int is_dir = 1;

	if (git == NULL) {
		b->oom = 1;
		return;
	}
	if (!plan_builder_exists(b, git, &is_dir, NULL) || is_dir ||
	    (gd = plan_builder_read_gitdir(b, git, project, 1)) == NULL ||
	    path_is_under(gd, project) || !plan_builder_exists(b, gd, &is_dir, NULL) ||
	    !is_dir) {
		free(git);
		free(gd);
		return;
	}
	common = NULL;
	if ((cf = path_join(gd, "commondir")) != NULL)
		common = plan_builder_read_gitdir(b, cf, gd, 0);
	if (common != NULL &&
	    plan_builder_exists(b, common, &is_dir, NULL) && is_dir &&
	    !path_is_under(common, project)) {
		plan_builder_grant(b, PLAN_MOUNT_RW_BIND, common, PLAN_RULE_GITDIR,
		    PLAN_ACCESS_RW, 0);
		if (!path_is_under(gd, common))
			plan_builder_grant(b, PLAN_MOUNT_RW_BIND, gd, PLAN_RULE_GITDIR,
			    PLAN_ACCESS_RW, 0);
		else if ((b->wt_gitdir = strdup(gd)) == NULL)
			b->oom = 1;
	} else if (common == NULL)
		plan_builder_grant(b, PLAN_MOUNT_RW_BIND, gd, PLAN_RULE_GITDIR,
		    PLAN_ACCESS_RW, 0);
	free(common);
	free(cf);
	free(gd);
	free(git);
}

/* After the common folder's worktrees/ was made read-only: this worktree's
 * own folder is bound read-write again over it (HEAD, index, logs), with
 * its commondir, gitdir and config.worktree read-only. Called once the
 * protections are sorted, so that nothing covers it again. */
void
plan_rebind_worktree(struct plan_builder *b)
{
	static const char *const own[] = { "commondir", "gitdir",
	    "config.worktree", NULL };
	struct plan_mount *m;
	char *path;
	size_t i;

	if (b->wt_gitdir == NULL)
		return;
	if ((m = plan_builder_add_mount(b, PLAN_MOUNT_RW_BIND, b->wt_gitdir,
	    b->wt_gitdir, PLAN_RULE_GITDIR)) == NULL)
		return;
	m->is_dir = 1;
	plan_builder_add_rule(b, b->wt_gitdir, PLAN_ACCESS_RW, PLAN_RULE_GITDIR);
	/* (not plan_protect: the same paths were protected before the sort,
	 * under what this bind now covers) */
	for (i = 0; own[i] != NULL; i++) {
		if ((path = path_join(b->wt_gitdir, own[i])) == NULL) {
			b->oom = 1;
			return;
		}
		if (plan_builder_exists(b, path, NULL, NULL) && (m = plan_builder_add_mount(b,
		    PLAN_MOUNT_RO_BIND, path, path, PLAN_RULE_RUNS_LATER)) != NULL)
			m->is_dir = 0;
		plan_builder_add_rule(b, path, PLAN_ACCESS_RO, PLAN_RULE_RUNS_LATER);
		free(path);
	}
}

/* Is path strictly inside a guarded root, and above none? */
static int
plan_git_in_root(const struct plan *p, const char *path)
{
	char *const *roots = p->guard->roots;
	size_t i;
	int in = 0;

	for (i = 0; roots != NULL && roots[i] != NULL; i++) {
		if (path_is_under(roots[i], path))
			return 0;	/* the root itself, or above it */
		if (path_is_under(path, roots[i]))
			in = 1;
	}
	return in;
}

/* May path be bound read-only at the end of the mounts: the last mount
 * covering it is a host folder bound read-write onto itself, and no
 * mount lies below it (a bind would uncover it)? */
static int
plan_git_bindable(const struct plan *p, const char *path)
{
	const struct plan_mount *m;
	size_t i = p->n_mounts;
	int eff = -1;

	while (i-- > 0) {
		m = &p->mounts[i];
		if (strcmp(m->dst, path) != 0 && path_is_under(m->dst, path))
			return 0;
		if (eff < 0 && path_is_under(path, m->dst))
			eff = (int)i;
	}
	if (eff < 0)
		return 0;
	m = &p->mounts[eff];
	return m->kind == PLAN_MOUNT_RW_BIND && m->src != NULL &&
	    strcmp(m->src, m->dst) == 0;
}

/* Append a read-only rule (and, with bind, a read-only bind) for path. */
static int
plan_git_rule(struct plan *p, const char *path, int bind, int is_dir)
{
	struct plan_path_rule *r;
	struct plan_mount *m;

	if ((r = realloc(p->rules, (p->n_rules + 1) * sizeof *r)) == NULL)
		return -1;
	p->rules = r;
	if ((r[p->n_rules].path = strdup(path)) == NULL)
		return -1;
	r[p->n_rules].access = PLAN_ACCESS_RO;
	r[p->n_rules++].rule = PLAN_RULE_RUNS_LATER;
	if (!bind)
		return 0;
	if ((m = realloc(p->mounts, (p->n_mounts + 1) * sizeof *m)) == NULL)
		return -1;
	p->mounts = m;
	m += p->n_mounts;
	memset(m, 0, sizeof *m);
	m->kind = PLAN_MOUNT_RO_BIND;
	m->rule = PLAN_RULE_RUNS_LATER;
	m->is_dir = is_dir;
	if ((m->src = strdup(path)) == NULL || (m->dst = strdup(path)) ==
	    NULL) {
		free(m->src);
		return -1;
	}
	p->n_mounts++;
	return 0;
}

/* Keep the paths git's config names read-only and missing-proof. */
int
plan_git_named(struct plan *p, char *const *paths, const unsigned char *kinds,
    int mounts, char ***added, sbox_error *err)
{
	char ***missing;
	size_t i, k, n;

	if (p == NULL || p->guard == NULL || !p->sandboxed)
		return 0;
	missing = &p->guard->missing;
	for (i = 0; paths != NULL && paths[i] != NULL; i++) {
		if (paths[i][0] != '/' || !plan_git_in_root(p, paths[i]))
			continue;
		n = strv_len(*missing);
		for (k = 0; k < n; k++)
			if (path_is_under(paths[i], (*missing)[k]))
				break;
		if (k < n)
			continue;	/* already kept */
		if (n >= GUARD_MISSING_MAX)
			return error_set(err, E_LIMIT, "the git config names more "
			    "than %d paths to keep read-only", GUARD_MISSING_MAX);
		if (strv_append(missing, paths[i]) < 0 || (added != NULL &&
		    strv_append(added, paths[i]) < 0) ||
		    plan_git_rule(p, paths[i], mounts && kinds != NULL &&
		    (kinds[i] == 1 || kinds[i] == 2) &&
		    plan_git_bindable(p, paths[i]), kinds != NULL &&
		    kinds[i] == 2) < 0)
			return error_nomem(err);
	}
	return 0;
}
