/* plan-guard.c: the file guard's part of the plan (plan->guard): which
 * folders are guarded roots, the home folder, the protected names, and the
 * path rules that say which reads a hidden path refused. */
#include "policy/policy.h"
#include "policy/guard.h"
#include "policy/path.h"
#include "policy/strv.h"

#include <stdlib.h>
#include <string.h>

/* Is path writable through the plan's mounts (the last one covering it is
 * a read-write bind)? */
static int
plan_guard_writable(const struct plan *p, const char *path)
{
	size_t i = p->n_mounts;

	while (i-- > 0)
		if (path_is_under(path, p->mounts[i].dst))
			return p->mounts[i].kind == PLAN_MOUNT_RW_BIND;
	return 0;
}

/* Add root to the guard's roots when a grant makes it writable. */
static int
plan_guard_root(struct plan *p, const char *root)
{
	char ***roots = &p->guard->roots;
	size_t n = 0;
	char **v;

	if (root == NULL || root[0] != '/' || !plan_guard_writable(p, root))
		return 0;
	while ((*roots)[n] != NULL) {
		if (strcmp((*roots)[n], root) == 0)
			return 0;
		n++;
	}
	if (n >= GUARD_ROOTS_MAX)
		return 0;
	if ((v = realloc(*roots, (n + 2) * sizeof *v)) == NULL)
		return -1;
	*roots = v;
	if ((v[n] = strdup(root)) == NULL)
		return -1;
	v[n + 1] = NULL;
	return 0;
}

/* The protected paths of the plan that do not exist where a sandbox could
 * create them (no placeholder stands in for them on the host): the guard
 * keeps them uncreatable. */
static int
plan_guard_missing(struct plan *p)
{
	size_t i, n = 0;
	char **v;

	for (i = 0; i < p->n_mounts; i++) {
		if (!p->mounts[i].missing || n >= GUARD_MISSING_MAX)
			continue;
		if ((v = realloc(p->guard->missing, (n + 2) * sizeof *v)) == NULL)
			return -1;
		p->guard->missing = v;
		if ((v[n] = strdup(p->mounts[i].dst)) == NULL)
			return -1;
		v[++n] = NULL;
	}
	return 0;
}

/* The plan's path rules that can make a path hidden: every hidden rule and
 * every rule inside one (a visible folder in a hidden one decides for what
 * it holds), in the plan's order so the longest match decides as
 * plan_explain does. */
static int
plan_guard_rules(struct plan *p)
{
	static const enum guard_access acc[] = { [PLAN_ACCESS_HIDDEN] =
	    GUARD_ACCESS_HIDDEN, [PLAN_ACCESS_RO] = GUARD_ACCESS_RO,
	    [PLAN_ACCESS_RW] = GUARD_ACCESS_RW };
	const struct plan_path_rule *r;
	size_t i, k;

	for (i = 0; i < p->n_rules; i++) {
		r = &p->rules[i];
		for (k = 0; k < p->n_rules; k++)
			if (p->rules[k].access == PLAN_ACCESS_HIDDEN &&
			    path_is_under(r->path, p->rules[k].path))
				break;
		if (k == p->n_rules || r->path[0] != '/' || r->rule == NULL)
			continue;
		if (guard_spec_add_rule(p->guard, r->path, acc[r->access],
		    r->rule) < 0)
			return -1;
	}
	return 0;
}

/* The account folders of pr that the plan binds writable, each with the
 * patterns of pr->account_writable inside it, relative to it (rule 0 of
 * guard.h: the rest of each is read-only). */
static int
plan_guard_accounts(struct plan *p, const struct profile *pr)
{
	sbox_error err = { 0 };
	char **rel = NULL;
	const char *w;
	size_t i, j, n;
	int rc = 0;

	for (i = 0; rc == 0 && pr->account_folders != NULL &&
	    pr->account_folders[i] != NULL; i++) {
		const char *acct = pr->account_folders[i];

		if (acct[0] != '/' || !plan_guard_writable(p, acct))
			continue;
		n = strlen(acct);
		for (j = 0; rc == 0 && pr->account_writable != NULL &&
		    (w = pr->account_writable[j]) != NULL; j++)
			if (strncmp(w, acct, n) == 0 && w[n] == '/' &&
			    w[n + 1] != '\0')
				rc = strv_append(&rel, w + n + 1);
		/* a pattern the guard refuses: that folder stays read-only */
		if (rc == 0 && guard_spec_add_account(p->guard, acct, rel,
		    &err) < 0)
			rc = guard_spec_add_account(p->guard, acct, NULL, &err);
		strv_free(rel);
		rel = NULL;
	}
	return rc;
}

/* Fill p->guard: the host-backed writable folders (the project, the
 * profile's read_write folders, home when a grant makes it writable; not
 * /tmp, the scratch folder or the caches), home, the protected names. */
int
plan_guard(struct plan *p, const struct profile *pr,
    const struct plan_context *ctx)
{
	sbox_error err = { 0 };
	size_t i;

	if ((p->guard = calloc(1, sizeof *p->guard)) == NULL ||
	    (p->guard->roots = calloc(1, sizeof(char *))) == NULL ||
	    (p->guard->home = strdup(ctx->home)) == NULL ||
	    guard_table_copy(&p->guard->table, ctx->protected, &err) < 0)
		return -1;
	p->guard->supervise = 1;
	if (pr->exclude != NULL && pr->exclude[0] != NULL) {
		int ok = 1;
		if ((p->guard->exclude = strv_copy(pr->exclude, &ok)) == NULL ||
		    !ok)
			return -1;
	}
	if (pr->project_access && plan_guard_root(p, ctx->project) < 0)
		return -1;
	for (i = 0; pr->folders_rw != NULL && pr->folders_rw[i] != NULL; i++)
		if (plan_guard_root(p, pr->folders_rw[i]) < 0)
			return -1;
	/* every other host folder bound read-write: a linked worktree's git
	 * folders, a provider's home and account folders (not the scratch
	 * folder or sbox's caches, which no host tool reads) */
	for (i = 0; i < p->n_mounts; i++) {
		const struct plan_mount *m = &p->mounts[i];
		if (m->kind == PLAN_MOUNT_RW_BIND && m->rule != NULL &&
		    strcmp(m->rule, PLAN_RULE_SCRATCH) != 0 &&
		    strcmp(m->rule, PLAN_RULE_CACHES) != 0 &&
		    plan_guard_root(p, m->dst) < 0)
			return -1;
	}
	if (plan_guard_root(p, ctx->home) < 0)
		return -1;
	/* package caches: no socket served from them (the project's other
	 * sessions bind the same folders) */
	for (i = 0; i < p->n_mounts; i++) {
		const struct plan_mount *m = &p->mounts[i];
		char **v;
		size_t n = 0;

		if (m->kind != PLAN_MOUNT_RW_BIND || m->rule == NULL ||
		    strcmp(m->rule, PLAN_RULE_CACHES) != 0)
			continue;
		while (p->guard->nosock != NULL && p->guard->nosock[n] != NULL)
			n++;
		if ((v = realloc(p->guard->nosock, (n + 2) * sizeof *v)) == NULL)
			return -1;
		p->guard->nosock = v;
		if ((v[n] = strdup(m->dst)) == NULL)
			return -1;
		v[n + 1] = NULL;
	}
	/* an agent's folders of its own in this session (tmpfs): free */
	for (i = 0; i < p->n_mounts; i++) {
		const struct plan_mount *m = &p->mounts[i];

		if (m->kind == PLAN_MOUNT_TMPFS && m->rule != NULL &&
		    strcmp(m->rule, PLAN_RULE_ACCOUNT_PRIVATE) == 0 &&
		    strv_append(&p->guard->private_dirs, m->dst) == -1)
			return -1;
	}
	if (plan_guard_accounts(p, pr) < 0)
		return -1;
	if (!ctx->no_read_reports && plan_guard_rules(p) < 0)
		return -1;
	return plan_guard_missing(p);
}
