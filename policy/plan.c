/* plan.c: policy_plan: a resolved profile and a session's context become the
 * platform-neutral plan of plan.h.
 *
 * Mount order (later operations cover earlier ones):
 *   1. grants, sorted by path depth (parents first; at equal depth the later
 *      grant wins): system folders read-only (/usr /bin /sbin /lib* /etc /opt
 *      /var, each when present), /proc, /dev, a private /tmp and /var/tmp, an
 *      empty /run, the home folder as an empty tmpfs, developer tools
 *      read-only, sbox's own package caches (caches.h) read-write (not for
 *      "lab"), the profile's read_only and read_write folders, the project
 *      (not for "lab") and the scratch folder read-write;
 *   2. files that run programs later, read-only, in the project and in each
 *      read_write folder of the profile (and the home folder when a grant
 *      makes it writable): the git folder is first bound onto itself so that
 *      renaming it fails (EBUSY), then its config and hooks; with a
 *      `gitdir:` file, the file itself and the real git folder's (and its
 *      common folder's) config and hooks when they are writable;
 *   3. hides, only where a grant makes the host path visible: credentials,
 *      sbox's own paths, host Unix sockets, files only root can read (when
 *      sboxd runs as root), then the profile's denied folders last.
 * A protected path that does not exist is emitted with missing = 1 when a
 * writable grant would let it be created. Every protected path also gets a
 * rule for plan_explain, reachable or not. */
#include "policy/policy.h"

#include <stdlib.h>
#include <string.h>

#include "policy/caches.h"
#include "policy/envfilter.h"
#include "policy/guard.h"
#include "policy/path.h"
#include "policy/plan-fs.h"
#include "policy/plan-internal.h"
#include "policy/registries.h"
#include "policy/strv.h"

#define PLAN_GIB (1024ULL * 1024 * 1024)
#define PLAN_MIB (1024ULL * 1024)
#define PLAN_RUN_BYTES (4 * PLAN_MIB) /* /run: nothing of the host, small */

static const char *const plan_system[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
	"/opt", "/var", NULL
};
static const char *const plan_tools[] = {
	".cargo/bin", ".rustup", ".local/bin", ".nvm", ".pyenv", ".rbenv",
	".asdf", ".volta", ".bun/bin", ".deno/bin", ".dotnet", ".sdkman",
	"go/bin", ".gitconfig", ".config/git", NULL
};



/* Grant home/rel with kind when it exists. */
static void
plan_grant_home(struct plan_builder *b, const char *rel,
    enum plan_mount_kind kind, const char *rule, enum plan_access access)
{
	char *path = path_join(b->ctx->home, rel);

	if (path == NULL) {
		b->oom = 1;
		return;
	}
	if (plan_builder_exists(b, path, NULL, NULL))
		plan_builder_grant(b, kind, path, rule, access, 1);
	free(path);
}

/* qsort order of grants: by depth, then in the order they were made. */
static int
plan_grant_cmp(const void *a, const void *b)
{
	const struct plan_grant *x = a, *y = b;
	int dx = path_depth(x->path), dy = path_depth(y->path);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Collect and emit the grants of phase 1. */
static void
plan_grants(struct plan_builder *b, const struct profile *pr)
{
	const struct plan_context *ctx = b->ctx;
	const struct cache_tree *t;
	struct plan_mount *m;
	struct plan_grant *g;
	char *dst;
	size_t i;

	for (i = 0; plan_system[i] != NULL; i++) {
		if (plan_builder_exists(b, plan_system[i], NULL, NULL))
			plan_builder_grant(b, PLAN_MOUNT_RO_BIND, plan_system[i],
			    PLAN_RULE_SYSTEM, PLAN_ACCESS_RO, 1);
	}
	plan_builder_grant(b, PLAN_MOUNT_PROC, "/proc", PLAN_RULE_SYSTEM,
	    PLAN_ACCESS_RO, 0);
	plan_builder_grant(b, PLAN_MOUNT_DEV, "/dev", PLAN_RULE_SYSTEM,
	    PLAN_ACCESS_RO, 0);
	plan_builder_grant(b, PLAN_MOUNT_TMPFS, "/tmp", PLAN_RULE_TMP,
	    PLAN_ACCESS_RW, 0);
	if (plan_builder_exists(b, "/var/tmp", NULL, NULL))
		plan_builder_grant(b, PLAN_MOUNT_TMPFS, "/var/tmp", PLAN_RULE_TMP,
		    PLAN_ACCESS_RW, 0);
	plan_builder_grant(b, PLAN_MOUNT_TMPFS, "/run", PLAN_RULE_SOCKETS,
	    PLAN_ACCESS_HIDDEN, 0);
	plan_builder_grant(b, PLAN_MOUNT_TMPFS, ctx->home, PLAN_RULE_HOME,
	    PLAN_ACCESS_HIDDEN, 0);
	for (i = 0; plan_tools[i] != NULL; i++)
		plan_grant_home(b, plan_tools[i], PLAN_MOUNT_RO_BIND, PLAN_RULE_TOOLS,
		    PLAN_ACCESS_RO);
	for (t = caches_table; pr->project_access && ctx->cache_root &&
	    t->name != NULL; t++) {	/* sbox's own, never the host's */
		if ((dst = path_join(ctx->home, t->rel)) == NULL ||
		    (g = plan_builder_grant(b, PLAN_MOUNT_RW_BIND, dst, PLAN_RULE_CACHES,
		    PLAN_ACCESS_RW, 0)) == NULL ||
		    (g->src = path_join(ctx->cache_root, t->name)) == NULL)
			b->oom = 1;
		else
			g->is_dir = 1;
		free(dst);
	}
	for (i = 0; pr->folders_ro != NULL && pr->folders_ro[i] != NULL; i++) {
		if (plan_builder_exists(b, pr->folders_ro[i], NULL, NULL))
			plan_builder_grant(b, PLAN_MOUNT_RO_BIND, pr->folders_ro[i],
			    PLAN_RULE_PROFILE_RO, PLAN_ACCESS_RO, 1);
	}
	for (i = 0; pr->folders_rw != NULL && pr->folders_rw[i] != NULL; i++) {
		if (plan_builder_exists(b, pr->folders_rw[i], NULL, NULL))
			plan_builder_grant(b, PLAN_MOUNT_RW_BIND, pr->folders_rw[i],
			    PLAN_RULE_PROFILE_RW, PLAN_ACCESS_RW, 1);
	}
	if (pr->project_access && ctx->project != NULL)
		plan_builder_grant(b, PLAN_MOUNT_RW_BIND, ctx->project, PLAN_RULE_PROJECT,
		    PLAN_ACCESS_RW, 0);
	if (pr->project_access && ctx->project != NULL)
		plan_grant_worktree(b, ctx->project);
	if (ctx->scratch != NULL)
		plan_builder_grant(b, PLAN_MOUNT_RW_BIND, ctx->scratch, PLAN_RULE_SCRATCH,
		    PLAN_ACCESS_RW, 0);
	if (b->oom)
		return;
	qsort(b->grants, b->n_grants, sizeof *b->grants, plan_grant_cmp);
	for (i = 0; i < b->n_grants; i++) {
		g = &b->grants[i];
		m = plan_builder_add_mount(b, g->kind,
		    g->kind == PLAN_MOUNT_RO_BIND || g->kind == PLAN_MOUNT_RW_BIND ?
		    (g->src ? g->src : g->path) : NULL, g->path, g->rule);
		if (m == NULL)
			return;
		m->optional = g->optional;
		m->is_dir = g->is_dir;
		/* every writable tmpfs (and /dev/shm) has the profile's size */
		if (g->kind == PLAN_MOUNT_TMPFS) {
			m->mode = strcmp(g->path, "/tmp") == 0 ||
			    strcmp(g->path, "/var/tmp") == 0 ? 01777 : 0755;
			m->size_bytes = strcmp(g->path, "/run") == 0 ?
			    PLAN_RUN_BYTES : b->plan->limits.tmp_bytes;
		} else if (g->kind == PLAN_MOUNT_DEV)
			m->size_bytes = b->plan->limits.tmp_bytes;
		plan_builder_add_rule(b, g->path, g->access, g->rule);
	}
	b->first_protect = b->plan->n_mounts;
}

/* Build the plan for a resolved profile with its protected names. */
static struct plan *
plan_build(const struct profile *pr, const struct plan_context *ctx,
    sbox_error *err)
{
	struct plan_builder b;
	struct plan *p;
	int ok = 1;
	size_t i;

	if (ctx->home == NULL || ctx->home[0] != '/') {
		error_set_field(err, E_INVALID_PARAMS, "home",
		    "the home folder must be an absolute path");
		return NULL;
	}
	if (pr->sandboxed && pr->project_access &&
	    (ctx->project == NULL || ctx->project[0] != '/')) {
		error_set_field(err, E_INVALID_PARAMS, "project",
		    "the project folder must be an absolute path");
		return NULL;
	}
	if (pr->sandboxed && (ctx->scratch == NULL || ctx->scratch[0] != '/')) {
		error_set_field(err, E_INVALID_PARAMS, "scratch",
		    "the scratch folder must be an absolute path");
		return NULL;
	}
	if (pr->sandboxed && plan_not_home(pr, ctx, err) == -1)
		return NULL;
	if ((p = calloc(1, sizeof *p)) == NULL) {
		error_nomem(err);
		return NULL;
	}
	memset(&b, 0, sizeof b);
	b.plan = p;
	b.ctx = ctx;
	b.fs = ctx->fs ? ctx->fs : &plan_fs_real;
	p->sandboxed = pr->sandboxed;
	p->uid = ctx->uid;
	p->gid = ctx->gid;
	plan_limits(&p->limits, pr);
	p->project = ctx->project && pr->project_access ? strdup(ctx->project) : NULL;
	p->scratch = ctx->scratch ? strdup(ctx->scratch) : NULL;
	p->home = strdup(ctx->home);
	p->hostname = strdup(ctx->hostname ? ctx->hostname : "sbox");
	p->cwd = strdup(p->project ? p->project : p->scratch ? p->scratch : ctx->home);
	if (p->home == NULL || p->hostname == NULL || p->cwd == NULL)
		b.oom = 1;
	if (!pr->sandboxed) {
		p->env = strv_copy(ctx->env, &ok);
		if (p->env == NULL && ok)	/* an empty, non-NULL list */
			p->env = calloc(1, sizeof *p->env);
		p->net.mode = PLAN_NET_INTERNET;
		if (!ok || p->env == NULL)
			b.oom = 1;
	} else {
		p->syscalls = PLAN_SYS_BLOCK_NAMESPACES | PLAN_SYS_BLOCK_MOUNT |
		    PLAN_SYS_BLOCK_KEYRING | PLAN_SYS_BLOCK_TTY_INJECT |
		    PLAN_SYS_BLOCK_TRACE | PLAN_SYS_BLOCK_PERSONALITY |
		    PLAN_SYS_BLOCK_SOCKETS | PLAN_SYS_BLOCK_IO_URING |
		    PLAN_SYS_BLOCK_KERNEL;
		plan_grants(&b, pr);
		/* mount points inside a read-only grant: sbox's own tree */
		if (!b.oom && plan_explode(&b, 0, err) == -1) {
			plan_free(p);
			p = NULL;
			goto out;
		}
		b.first_protect = b.plan->n_mounts;
		if (!b.oom)
			plan_protections(&b, pr);
		plan_explode_seal(&b);
		if ((p->env = envfilter_apply(ctx->env, pr, ctx->home, ctx->user,
		    err)) == NULL) {
			plan_free(p);
			p = NULL;
		} else if (plan_net(p, ctx, pr, err) == -1) {
			plan_free(p);
			p = NULL;
		}
	}
out:
	strv_free(b.exploded);
	for (i = 0; i < b.n_grants; i++) {
		free(b.grants[i].path);
		free(b.grants[i].src);
	}
	free(b.grants);
	free(b.wt_gitdir);
	if (p != NULL && b.oom) {
		plan_free(p);
		error_nomem(err);
		return NULL;
	}
	if (p != NULL && plan_provider(p, pr, ctx, err) == -1) {	/* plan-provider.c */
		plan_free(p);
		return NULL;
	}
	/* the guard last: its roots are the plan's writable folders */
	if (p != NULL && p->sandboxed && plan_guard(p, pr, ctx) < 0) {
		plan_free(p);
		error_nomem(err);
		return NULL;
	}
	return p;
}

/* Build the plan for a resolved profile: the protected names are the
 * session's (its provider's account folders are its own: plan-provider.c). */
struct plan *
policy_plan(const struct profile *pr, const struct plan_context *ctx,
    sbox_error *err)
{
	struct guard_table *table = NULL;
	struct plan_context own;
	struct plan *p;

	if (plan_provider_table(pr, ctx, &table, err) == -1)
		return NULL;
	if (table == NULL)
		return plan_build(pr, ctx, err);
	own = *ctx;
	own.protected = table;
	p = plan_build(pr, &own, err);
	guard_table_free(table);
	free(table);
	return p;
}
