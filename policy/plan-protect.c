/* plan-protect.c: what a plan keeps read-only or hidden inside what it
 * grants: protected names and git folders at each guarded root, credentials,
 * the host's sockets and root-only files, and the rules a session made from
 * inside inherits from its parent. */
#include "policy/policy.h"
#include <stdlib.h>
#include <string.h>
#include "policy/caches.h"
#include "policy/envfilter.h"
#include "policy/guard.h"
#include "policy/path.h"
#include "policy/plan-fs.h"
#include "policy/plan-builder.h"
#include "policy/plan-git.h"
#include "policy/plan-protect.h"
#include "policy/registries.h"
#include "policy/strv.h"

/* Folders of the host's sockets: hidden in every sandbox. */
static const char *const plan_sockets[] = {
	"/var/run", "/tmp/.X11-unix", "/tmp/.ICE-unix", "/run/dbus",
	"/var/run/dbus", "/run/user", NULL
};
/* Root-only files and folders: hidden from a sandbox. */
static const char *const plan_root_only[] = {
	"/root", "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
	"/etc/sudoers", "/etc/sudoers.d", "/etc/ssl/private", "/var/log",
	"/var/spool", "/var/lib/sudo", "/var/backups", NULL
};

/* The last mount so far whose destination contains path, or NULL. */
static const struct plan_mount *
plan_effective(struct plan_builder *b, const char *path)
{
	size_t i = b->plan->n_mounts;

	while (i-- > 0) {
		if (path_is_under(path, b->plan->mounts[i].dst))
			return &b->plan->mounts[i];
	}
	return NULL;
}

/* True when a protection (hide = 0) or a hide (hide = 1) for dst was
 * already emitted. */
static int
plan_done(struct plan_builder *b, const char *dst, int hide)
{
	const struct plan_mount *m;
	size_t i;

	for (i = b->first_protect; i < b->plan->n_mounts; i++) {
		m = &b->plan->mounts[i];
		if (strcmp(m->dst, dst) == 0 && hide == (m->kind ==
		    PLAN_MOUNT_HIDE_DIR || m->kind == PLAN_MOUNT_HIDE_FILE))
			return 1;
	}
	return 0;
}

/* Keep path read-only (or, missing, uncreatable) when a grant makes it writable. */
void
plan_protect(struct plan_builder *b, const char *path, int dir_hint,
    const char *rule)
{
	const struct plan_mount *eff = plan_effective(b, path);
	struct plan_mount *m;
	int is_dir = dir_hint, exists;

	plan_builder_add_rule(b, path, PLAN_ACCESS_RO, rule);
	if (eff == NULL || eff->kind != PLAN_MOUNT_RW_BIND || plan_done(b, path, 0))
		return;
	exists = plan_builder_exists(b, path, &is_dir, NULL);
	if ((m = plan_builder_add_mount(b, PLAN_MOUNT_RO_BIND, path, path,
	    rule)) == NULL)
		return;
	m->missing = !exists;
	m->is_dir = is_dir;
}

/* Hide path when a bind makes the host path visible (missing: when writable). */
static void
plan_hide(struct plan_builder *b, const char *path, int dir_hint,
    const char *rule)
{
	const struct plan_mount *eff = plan_effective(b, path);
	struct plan_mount *m;
	int is_dir = dir_hint, exists;

	plan_builder_add_rule(b, path, PLAN_ACCESS_HIDDEN, rule);
	/* A link (e.g. /var/run -> /run, ~/.ssh -> elsewhere): hide what it
	 * leads to; nothing can be mounted on the link itself. */
	if (b->fs->resolve != NULL) {
		char *to = b->fs->resolve(b->fs->arg, path);
		if (to != NULL) {
			if (strcmp(to, path) != 0)
				plan_hide(b, to, dir_hint, rule);
			free(to);
			return;
		}
	}
	if (eff == NULL || plan_done(b, path, 1) ||
	    (eff->kind != PLAN_MOUNT_RO_BIND && eff->kind != PLAN_MOUNT_RW_BIND) ||
	    strcmp(eff->src, eff->dst) != 0)	/* sbox's caches: not the host's */
		return;
	exists = plan_builder_exists(b, path, &is_dir, NULL);
	if (!exists && eff->kind != PLAN_MOUNT_RW_BIND)
		return;
	m = plan_builder_add_mount(b,
	    is_dir ? PLAN_MOUNT_HIDE_DIR : PLAN_MOUNT_HIDE_FILE,
	    NULL, path, rule);
	if (m != NULL) {
		m->missing = !exists;
		m->is_dir = is_dir;
	}
}

/* Apply fn to base/rel for each entry of list (a trailing '/' marks folders). */
void
plan_each(struct plan_builder *b, const char *base, const char *const *list,
    void (*fn)(struct plan_builder *, const char *, int, const char *),
    const char *rule)
{
	char rel[256], *path;
	size_t i, n;

	for (i = 0; list[i] != NULL; i++) {
		n = strlen(list[i]);
		if (n == 0 || n >= sizeof rel)
			continue;
		memcpy(rel, list[i], n + 1);
		if (rel[n - 1] == '/')
			rel[n - 1] = '\0';
		if ((path = path_join(base, rel)) == NULL) {
			b->oom = 1;
			return;
		}
		fn(b, path, list[i][n - 1] == '/', rule);
		free(path);
	}
}

/* Apply fn to base/NAME for each protected name of the table of this kind
 * and one of these scopes (a bit per enum guard_scope) that exists: a
 * missing one is left to the file guard, which refuses its creation. */
static void
plan_table(struct plan_builder *b, const char *base, enum guard_kind kind,
    unsigned scopes, void (*fn)(struct plan_builder *, const char *, int,
    const char *), const char *rule)
{
	const struct guard_table *t = b->ctx->protected;
	char *path;
	size_t i;
	int is_dir;

	for (i = 0; t != NULL && i < t->n; i++) {
		if (t->e[i].kind != kind || !(scopes & (1u << t->e[i].scope)))
			continue;
		if ((path = path_join(base, t->e[i].name)) == NULL) {
			b->oom = 1;
			return;
		}
		is_dir = t->e[i].is_dir;
		if (plan_builder_exists(b, path, &is_dir, NULL))
			fn(b, path, is_dir, rule);
		else
			plan_builder_add_rule(b, path, kind == GUARD_KIND_CREDENTIAL ?
			    PLAN_ACCESS_HIDDEN : PLAN_ACCESS_RO, rule);
		free(path);
	}
}

#define PLAN_SCOPE(s) (1u << (s))

/* The main worktree's index in the common git folder stays read-only (a
 * worktree session has its own index in its own folder). */
static void
plan_protect_worktrees(struct plan_builder *b, const char *common)
{
	char *idx = path_join(common, "index");

	if (idx == NULL) {
		b->oom = 1;
		return;
	}
	if (plan_builder_exists(b, idx, NULL, NULL))
		plan_protect(b, idx, 0, PLAN_RULE_RUNS_LATER);
	free(idx);
}

/* Protect a git folder: bind it onto itself, then its config and hooks. */
static void
plan_protect_gitdir(struct plan_builder *b, const char *gitdir)
{
	const struct plan_mount *eff = plan_effective(b, gitdir);
	/* config and hooks run programs; a linked worktree's commondir (under
	 * worktrees/) says where git reads them from. A missing commondir
	 * cannot have a placeholder (git dies on an empty one): an existing
	 * one is kept read-only here, a new one is removed by the daemon. */
	static const char *const inside[] = { "config", "hooks/", "worktrees/",
	    "info/", "config.worktree", NULL };
	int wt = b->wt_gitdir != NULL && path_is_under(b->wt_gitdir, gitdir) &&
	    strcmp(b->wt_gitdir, gitdir) != 0;
	struct plan_mount *m;
	char **mods, *dir;
	size_t i;

	if (eff != NULL && eff->kind == PLAN_MOUNT_RW_BIND && !plan_done(b, gitdir, 0)) {
		if ((m = plan_builder_add_mount(b, PLAN_MOUNT_RW_BIND, gitdir, gitdir,
		    PLAN_RULE_RUNS_LATER)) != NULL)
			m->is_dir = 1;
	}
	plan_each(b, gitdir, inside, plan_protect, PLAN_RULE_RUNS_LATER);
	if (wt)
		plan_protect_worktrees(b, gitdir);
	if ((dir = path_join(gitdir, "commondir")) == NULL) {
		b->oom = 1;
		return;
	}
	if (plan_builder_exists(b, dir, NULL, NULL))
		plan_protect(b, dir, 0, PLAN_RULE_RUNS_LATER);
	else
		plan_builder_add_rule(b, dir, PLAN_ACCESS_RO, PLAN_RULE_RUNS_LATER);
	free(dir);
	/* submodules keep their own config and hooks in modules/NAME */
	if ((dir = path_join(gitdir, "modules")) == NULL) {
		b->oom = 1;
		return;
	}
	mods = b->fs->list(b->fs->arg, dir);
	for (i = 0; mods != NULL && mods[i] != NULL; i++) {
		char *sub = path_join(dir, mods[i]);
		int is_dir = 0;

		if (sub != NULL && plan_builder_exists(b, sub, &is_dir, NULL) && is_dir)
			plan_each(b, sub, inside, plan_protect, PLAN_RULE_RUNS_LATER);
		free(sub);
	}
	strv_free(mods);
	free(dir);
}

/* Protect the files that run programs later inside a writable root folder. */
static void
plan_protect_root(struct plan_builder *b, const char *root)
{
	char *git, *gitdir, *common;
	int is_dir = 1;

	if ((git = path_join(root, ".git")) == NULL) {
		b->oom = 1;
		return;
	}
	if (!plan_builder_exists(b, git, &is_dir, NULL) || is_dir) {
		/* a folder, or missing: then it must not be creatable */
		if (plan_builder_exists(b, git, NULL, NULL))
			plan_protect_gitdir(b, git);
		else
			plan_protect(b, git, 1, PLAN_RULE_RUNS_LATER);
	} else {
		plan_protect(b, git, 0, PLAN_RULE_RUNS_LATER);
		gitdir = plan_builder_read_gitdir(b, git, root, 1);
		if (gitdir != NULL) {
			plan_protect_gitdir(b, gitdir);
			common = path_join(gitdir, "commondir");
			if (common != NULL) {
				char *c = plan_builder_read_gitdir(b, common, gitdir, 0);

				if (c != NULL)
					plan_protect_gitdir(b, c);
				free(c);
			}
			free(common);
		}
		free(gitdir);
	}
	free(git);
	plan_table(b, root, GUARD_KIND_RUNS_LATER, PLAN_SCOPE(GUARD_SCOPE_ROOT) |
	    PLAN_SCOPE(GUARD_SCOPE_ANY), plan_protect, PLAN_RULE_RUNS_LATER);
}

/* Hide the entries of /etc that others cannot read (sboxd runs as root). */
static void
plan_hide_etc(struct plan_builder *b)
{
	char **names, *path;
	mode_t mode;
	int is_dir;
	size_t i;

	names = b->fs->list(b->fs->arg, "/etc");
	for (i = 0; names != NULL && names[i] != NULL; i++) {
		if ((path = path_join("/etc", names[i])) == NULL) {
			b->oom = 1;
			break;
		}
		if (plan_builder_exists(b, path, &is_dir, &mode) &&
		    (!(mode & S_IROTH) || (is_dir && !(mode & S_IXOTH))))
			plan_hide(b, path, is_dir, PLAN_RULE_ROOT_ONLY);
		free(path);
	}
	strv_free(names);
}

/* qsort order of protections: git folders bound onto themselves first,
 * parents before children, then the read-only binds in their order. */
static int
plan_protect_cmp(const void *a, const void *b)
{
	const struct plan_mount *x = a, *y = b;
	int sx = x->kind == PLAN_MOUNT_RW_BIND, sy = y->kind == PLAN_MOUNT_RW_BIND;

	if (sx != sy)
		return sx ? -1 : 1;
	if (sx && path_depth(x->dst) != path_depth(y->dst))
		return path_depth(x->dst) < path_depth(y->dst) ? -1 : 1;
	return x->size_bytes < y->size_bytes ? -1 : x->size_bytes > y->size_bytes;
}

/* Put the protections in a safe order: a later bind of a parent would
 * otherwise cover the read-only binds made inside it. */
static void
plan_sort_protections(struct plan_builder *b)
{
	struct plan_mount *m = b->plan->mounts + b->first_protect;
	size_t i, n = b->plan->n_mounts - b->first_protect;

	for (i = 0; i < n; i++)
		m[i].size_bytes = i;	/* original order, as a sort key */
	qsort(m, n, sizeof *m, plan_protect_cmp);
	for (i = 0; i < n; i++)
		m[i].size_bytes = 0;
}

/* Bind the scratch folder again when one of sbox's own hidden paths covers it. */
static void
plan_rebind_scratch(struct plan_builder *b, size_t from)
{
	const char *scratch = b->ctx->scratch;
	struct plan_mount *m;
	size_t i;

	for (i = from; scratch != NULL && i < b->plan->n_mounts; i++) {
		m = &b->plan->mounts[i];
		if ((m->kind == PLAN_MOUNT_HIDE_DIR || m->kind == PLAN_MOUNT_HIDE_FILE) &&
		    path_is_under(scratch, m->dst)) {
			if ((m = plan_builder_add_mount(b, PLAN_MOUNT_RW_BIND, scratch, scratch,
			    PLAN_RULE_SCRATCH)) != NULL)
				m->is_dir = 1;
			plan_builder_add_rule(b, scratch, PLAN_ACCESS_RW, PLAN_RULE_SCRATCH);
			return;
		}
	}
}

/* A parent sandbox's read-only and hidden rules stay so in this plan
 * (a session made from inside is at most what its parent's plan allows). */
static void
plan_inherit(struct plan_builder *b)
{
	const struct plan_path_rule *r;
	size_t i;

	for (i = 0; i < b->ctx->n_inherit; i++) {
		r = &b->ctx->inherit[i];
		/* (one that does not exist becomes a missing mount: the file
		 * guard keeps it uncreatable) */
		if (r->access == PLAN_ACCESS_HIDDEN)
			plan_hide(b, r->path, 1, r->rule);
		else if (r->access == PLAN_ACCESS_RO)
			plan_protect(b, r->path, 0, r->rule);
	}
}

/* Phases 2 and 3: protections, then hides, then the profile's denies. */
void
plan_protections(struct plan_builder *b, const struct profile *pr)
{
	const struct plan_context *ctx = b->ctx;
	const struct plan_mount *eff;
	size_t i, hides;
	char *path;

	if (pr->project_access && ctx->project != NULL)
		plan_protect_root(b, ctx->project);
	for (i = 0; pr->folders_rw != NULL && pr->folders_rw[i] != NULL; i++) {
		eff = plan_effective(b, pr->folders_rw[i]);
		if (eff != NULL && eff->kind == PLAN_MOUNT_RW_BIND)
			plan_protect_root(b, pr->folders_rw[i]);
	}
	eff = plan_effective(b, ctx->home);
	if (eff != NULL && eff->kind == PLAN_MOUNT_RW_BIND)
		plan_table(b, ctx->home, GUARD_KIND_RUNS_LATER, ~0u, plan_protect,
		    PLAN_RULE_RUNS_LATER);
	plan_sort_protections(b);
	plan_rebind_worktree(b);
	hides = b->plan->n_mounts;
	plan_table(b, ctx->home, GUARD_KIND_CREDENTIAL,
	    PLAN_SCOPE(GUARD_SCOPE_HOME), plan_hide, PLAN_RULE_CREDENTIALS);
	for (i = 0; ctx->sbox_paths != NULL && ctx->sbox_paths[i] != NULL; i++) {
		const char *base = strrchr(ctx->sbox_paths[i], '/');

		plan_hide(b, ctx->sbox_paths[i], base == NULL || strchr(base, '.') == NULL,
		    PLAN_RULE_SBOX);
	}
	for (i = 0; plan_sockets[i] != NULL; i++)
		plan_hide(b, plan_sockets[i], 1, PLAN_RULE_SOCKETS);
	if (ctx->xdg_runtime_dir != NULL && ctx->xdg_runtime_dir[0] == '/')
		plan_hide(b, ctx->xdg_runtime_dir, 1, PLAN_RULE_SOCKETS);
	if (ctx->is_root) {
		for (i = 0; plan_root_only[i] != NULL; i++) {
			path = (char *)plan_root_only[i];
			plan_hide(b, path, strncmp(path, "/etc/s", 6) != 0 ||
			    strcmp(path, "/etc/sudoers.d") == 0, PLAN_RULE_ROOT_ONLY);
		}
		plan_hide_etc(b);
	}
	plan_rebind_scratch(b, hides);
	for (i = 0; pr->folders_deny != NULL && pr->folders_deny[i] != NULL; i++)
		plan_hide(b, pr->folders_deny[i], 1, PLAN_RULE_PROFILE_DENY);
	plan_inherit(b);
}
