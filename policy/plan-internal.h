/* plan-internal.h: what the policy/plan*.c files share. */
#ifndef SBOX_PLAN_INTERNAL_H
#define SBOX_PLAN_INTERNAL_H

#include "policy/policy.h"

/* One grant before sorting. */
struct plan_grant {
	enum plan_mount_kind kind;
	char       *path;
	char       *src;	/* a bind's host path when not path */
	const char *rule;
	enum plan_access access;
	uint64_t    size;
	mode_t      mode;
	int         optional;
	int         is_dir;
	size_t      seq;
};

struct plan_builder {
	struct plan *plan;
	const struct plan_context *ctx;
	const struct plan_fs *fs;
	struct plan_grant *grants;
	size_t n_grants, cap_mounts, cap_rules, first_protect;
	char *wt_gitdir;	/* a linked worktree's own git folder, or NULL */
	char **exploded;	/* read-only grants made sbox's own tmpfs
				   (plan-explode.c): read-only again at the end */
	int oom;
};

/* Does path exist? Fills *is_dir and *mode when it does (plan.c). */
int plan_exists(struct plan_builder *b, const char *path, int *is_dir,
    mode_t *mode);
/* Record a grant (emitted later, sorted by depth); NULL on ENOMEM. */
struct plan_grant *plan_grant(struct plan_builder *b, enum plan_mount_kind kind,
    const char *path, const char *rule, enum plan_access access, int optional);
/* Keep path read-only (or, missing, uncreatable) when a grant makes it
 * writable. */
void plan_protect(struct plan_builder *b, const char *path, int dir_hint,
    const char *rule);
/* Apply fn to base/rel for each entry of list (a trailing '/' marks folders). */
void plan_each(struct plan_builder *b, const char *base,
    const char *const *list,
    void (*fn)(struct plan_builder *, const char *, int, const char *),
    const char *rule);
/* The folder a "gitdir: X" (or commondir) file names, resolved against base. */
char *plan_read_gitdir(struct plan_builder *b, const char *file,
    const char *base, int prefixed);
/* Grant a linked worktree's git folders (plan-git.c). */
void plan_grant_worktree(struct plan_builder *b, const char *project);
/* The main worktree's index in a common git folder, read-only (plan-git.c). */
void plan_protect_worktrees(struct plan_builder *b, const char *common);
/* This worktree's own folder, read-write again once protections are sorted. */
void plan_rebind_worktree(struct plan_builder *b);
/* Make the mount points of the mounts from first on inside read-only host
 * binds without writing to the host (plan-explode.c). */
int plan_explode(struct plan_builder *b, size_t first, sbox_error *err);
/* Make the tmpfs of each exploded grant read-only, once every mount is in
 * place inside it (plan-explode.c). */
void plan_explode_seal(struct plan_builder *b);
/* Append a mount operation (paths copied) (plan.c). */
struct plan_mount *plan_add_mount(struct plan_builder *b,
    enum plan_mount_kind kind, const char *src, const char *dst,
    const char *rule);
/* Append a path rule for plan_explain (plan.c). */
void plan_add_rule(struct plan_builder *b, const char *path,
    enum plan_access access, const char *rule);

/* Refuse a project or read-write folder that is (or holds) the home folder
 * (plan-net.c). */
int plan_not_home(const struct profile *pr, const struct plan_context *ctx,
    sbox_error *err);
/* Fill the plan's limits from the defaults and the profile (plan-net.c). */
/* plan-protect.c: the read-only and hidden rules inside the grants. */
void plan_protections(struct plan_builder *b, const struct profile *pr);
void plan_limits(struct plan_limits *l, const struct profile *pr);
/* Fill the plan's network settings (plan-net.c). */
int plan_net(struct plan *plan, const struct plan_context *ctx,
    const struct profile *pr, sbox_error *err);

/* Inside the project and read-write folders (and a writable home): files
 * that run programs later; under home only (plan.c). A trailing '/' marks
 * a folder. */
/* The provider's home folder and account folder protections, added to a
 * built plan (plan-provider.c). */
int plan_provider(struct plan *p, const struct profile *pr,
    const struct plan_context *ctx, sbox_error *err);
/* The protected names of a session of pr (its own account folders taken
 * out, their run-later files and the other agents' folders added); *out
 * NULL when ctx's apply as they are (plan-provider.c). */
struct guard_table;
int plan_provider_table(const struct profile *pr,
    const struct plan_context *ctx, struct guard_table **out,
    sbox_error *err);

#endif
