/* plan-git.c: a project that is a linked worktree (or whose git folder
 * lies elsewhere): the git folders it needs, and what in them stays
 * read-only. */
#include "policy/policy.h"

#include <stdlib.h>
#include <string.h>

#include "policy/path.h"
#include "policy/plan-internal.h"
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
	if (!plan_exists(b, git, &is_dir, NULL) || is_dir ||
	    (gd = plan_read_gitdir(b, git, project, 1)) == NULL ||
	    path_is_under(gd, project) || !plan_exists(b, gd, &is_dir, NULL) ||
	    !is_dir) {
		free(git);
		free(gd);
		return;
	}
	common = NULL;
	if ((cf = path_join(gd, "commondir")) != NULL)
		common = plan_read_gitdir(b, cf, gd, 0);
	if (common != NULL && plan_exists(b, common, &is_dir, NULL) && is_dir &&
	    !path_is_under(common, project)) {
		plan_grant(b, PLAN_MOUNT_RW_BIND, common, PLAN_RULE_GITDIR,
		    PLAN_ACCESS_RW, 0);
		if (!path_is_under(gd, common))
			plan_grant(b, PLAN_MOUNT_RW_BIND, gd, PLAN_RULE_GITDIR,
			    PLAN_ACCESS_RW, 0);
		else if ((b->wt_gitdir = strdup(gd)) == NULL)
			b->oom = 1;
	} else if (common == NULL)
		plan_grant(b, PLAN_MOUNT_RW_BIND, gd, PLAN_RULE_GITDIR,
		    PLAN_ACCESS_RW, 0);
	free(common);
	free(cf);
	free(gd);
	free(git);
}

/* The main worktree's index in the common git folder stays read-only (a
 * worktree session has its own index in its own folder). */
void
plan_protect_worktrees(struct plan_builder *b, const char *common)
{
	char *idx = path_join(common, "index");

	if (idx == NULL) {
		b->oom = 1;
		return;
	}
	if (plan_exists(b, idx, NULL, NULL))
		plan_protect(b, idx, 0, PLAN_RULE_RUNS_LATER);
	free(idx);
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
	if ((m = plan_add_mount(b, PLAN_MOUNT_RW_BIND, b->wt_gitdir,
	    b->wt_gitdir, PLAN_RULE_GITDIR)) == NULL)
		return;
	m->is_dir = 1;
	plan_add_rule(b, b->wt_gitdir, PLAN_ACCESS_RW, PLAN_RULE_GITDIR);
	/* (not plan_protect: the same paths were protected before the sort,
	 * under what this bind now covers) */
	for (i = 0; own[i] != NULL; i++) {
		if ((path = path_join(b->wt_gitdir, own[i])) == NULL) {
			b->oom = 1;
			return;
		}
		if (plan_exists(b, path, NULL, NULL) && (m = plan_add_mount(b,
		    PLAN_MOUNT_RO_BIND, path, path, PLAN_RULE_RUNS_LATER)) != NULL)
			m->is_dir = 0;
		plan_add_rule(b, path, PLAN_ACCESS_RO, PLAN_RULE_RUNS_LATER);
		free(path);
	}
}
