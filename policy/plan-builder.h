/* plan-builder.h: a plan being built (struct plan_builder) and the small
 * steps every plan file shares (plan-builder.c). */
#ifndef SBOX_PLAN_BUILDER_H
#define SBOX_PLAN_BUILDER_H

#include <sys/types.h>

#include "policy/plan-types.h"

struct plan_context;
struct plan_fs;

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

/* Does path exist? Fills *is_dir and *mode when it does. */
int plan_builder_exists(struct plan_builder *b, const char *path, int *is_dir,
    mode_t *mode);
/* Record a grant (emitted later, sorted by depth); NULL on ENOMEM. */
struct plan_grant *plan_builder_grant(struct plan_builder *b,
    enum plan_mount_kind kind, const char *path, const char *rule, enum plan_access access, int optional);
/* Fill the mount past p's last (room for it made by the caller), paths
 * copied, and count it; NULL on ENOMEM (nothing counted). */
struct plan_mount *plan_builder_put_mount(struct plan *p,
    enum plan_mount_kind kind, const char *src, const char *dst,
    const char *rule);
/* Append a mount operation (paths copied). */
struct plan_mount *plan_builder_add_mount(struct plan_builder *b,
    enum plan_mount_kind kind, const char *src, const char *dst,
    const char *rule);
/* Append a path rule for plan_explain. */
void plan_builder_add_rule(struct plan_builder *b, const char *path,
    enum plan_access access, const char *rule);

/* The folder a "gitdir: X" (or commondir) file names, resolved against base. */
char *plan_builder_read_gitdir(struct plan_builder *b, const char *file,
    const char *base, int prefixed);

#endif
