/* plan-provider.c: what a session's provider adds to a built plan:
 *   - a home folder of its own (ctx->provider_home, kept by the daemon
 *     under its state folder) bound read-write as the sandbox's $HOME in
 *     place of the empty tmpfs, with the files of a home that run programs
 *     later (shell startup files, autostart, agent and editor settings)
 *     read-only inside it; it is never the person's real home;
 *   - in each account folder (folders of the person's home the profile got
 *     read-write from the provider), the files that make the agent run
 *     programs later (hook settings, plugins) read-only.
 * Runs after policy_plan's own phases, so its read-only binds come last. */
#include "policy/policy.h"
#include "policy/guard.h"

#include <stdlib.h>
#include <string.h>

#include "policy/path.h"
#include "policy/plan-fs.h"
#include "policy/plan-internal.h"
#include "policy/plan-builder.h"
#include "policy/strv.h"

/* In an account folder: settings that start programs (hooks, MCP servers,
 * status lines, notifiers) and code the agent loads; a trailing '/' marks
 * a folder. */
static const char *const plan_provider_account_files[] = {
	"settings.json", "settings.local.json", "hooks/", "hooks.json",
	"plugins/", "config.toml", "mcp.json", ".mcp.json", "extensions/", NULL
};

static char *plan_provider_slash(char *path);

/* The name of path relative to home ("" for home itself), or NULL when it
 * is not inside it. */
static const char *
plan_provider_rel(const char *path, const char *home)
{
	size_t n = strlen(home);

	if (!path_is_under(path, home) || strcmp(path, home) == 0)
		return NULL;
	return path + n + (home[n - 1] == '/' ? 0 : 1);
}

/* True when the home entry e is one of the folders of v or inside one. */
static int
plan_provider_owned(const struct guard_entry *e, char *const *v,
    const char *home)
{
	const char *rel;
	size_t i, n;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		if ((rel = plan_provider_rel(v[i], home)) == NULL)
			continue;
		n = strlen(rel);
		if (strncmp(e->name, rel, n) == 0 &&
		    (e->name[n] == '\0' || e->name[n] == '/'))
			return 1;
	}
	return 0;
}

/* Add the home entry "KIND home REL" for an absolute path of home ('/'
 * ends a folder); one outside home is skipped. */
static int
plan_provider_entry(struct guard_table *t, const char *kind,
    const char *path, const char *home, const char *comment, sbox_error *err)
{
	const char *rel = plan_provider_rel(path, home);

	if (rel == NULL || rel[0] == '\0')
		return 0;
	return guard_entry_add(t, kind, "home", rel, comment, err);
}

/* The protected names of a session of pr: ctx's, less the home entries
 * that are (or lie in) its provider's account folders or, in its own home,
 * the agents' state folders (it signs in and writes there); plus what runs
 * programs later inside them, and the other agents' account folders as
 * credentials (hidden). *out is NULL when nothing changes. */
int
plan_provider_table(const struct profile *pr, const struct plan_context *ctx,
    struct guard_table **out, sbox_error *err)
{
	const struct guard_entry *e;
	struct guard_table *t;
	char name[GUARD_NAME_MAX + 2], *path;
	size_t i, j;
	int rc = 0;

	*out = NULL;
	if (!pr->sandboxed || ctx->protected == NULL || ctx->home == NULL ||
	    (pr->account_folders == NULL && pr->hidden_accounts == NULL &&
	    pr->state_folders == NULL))
		return 0;
	if ((t = calloc(1, sizeof *t)) == NULL)
		return error_nomem(err);
	for (i = 0; rc == 0 && i < ctx->protected->n; i++) {
		e = &ctx->protected->e[i];
		if (e->scope == GUARD_SCOPE_HOME &&
		    (plan_provider_owned(e, pr->account_folders, ctx->home) ||
		    plan_provider_owned(e, pr->state_folders, ctx->home)))
			continue;
		snprintf(name, sizeof name, "%s%s", e->name, e->is_dir ? "/" : "");
		rc = guard_entry_add(t, guard_kind_name(e->kind),
		    guard_scope_name(e->scope), name, e->comment, err);
	}
	for (i = 0; rc == 0 && pr->account_protect && pr->account_protect[i]; i++)
		rc = plan_provider_entry(t, "runs-later", pr->account_protect[i],
		    ctx->home, "an agent's settings: programs it runs later", err);
	for (i = 0; rc == 0 && pr->account_folders && pr->account_folders[i]; i++)
		for (j = 0; rc == 0 && plan_provider_account_files[j]; j++) {
			if ((path = path_join(pr->account_folders[i],
			    plan_provider_account_files[j])) == NULL)
				return error_nomem(err);
			rc = plan_provider_entry(t, "runs-later", path, ctx->home,
			    "an agent's settings: programs it runs later", err);
			free(path);
		}
	for (i = 0; rc == 0 && pr->hidden_accounts && pr->hidden_accounts[i]; i++) {
		if ((path = plan_provider_slash(strdup(pr->hidden_accounts[i]))) ==
		    NULL)
			return error_nomem(err);
		rc = plan_provider_entry(t, "credential", path, ctx->home,
		    "another agent's account folder (sign-in, transcripts)", err);
		free(path);
	}
	if (rc == -1) {
		guard_table_free(t);
		free(t);
		return -1;
	}
	*out = t;
	return 0;
}

/* path with a '/' appended (path freed), or NULL. */
static char *
plan_provider_slash(char *path)
{
	char *s = NULL;

	if (path != NULL && asprintf(&s, "%s/", path) == -1)
		s = NULL;
	free(path);
	return s;
}

/* Append a mount to p (paths copied); NULL on ENOMEM. */
static struct plan_mount *
plan_provider_mount(struct plan *p, enum plan_mount_kind kind,
    const char *src, const char *dst, const char *rule)
{
	struct plan_mount *m;

	if ((m = realloc(p->mounts, (p->n_mounts + 1) * sizeof *m)) == NULL)
		return NULL;
	p->mounts = m;
	return plan_builder_put_mount(p, kind, src, dst, rule);
}

/* Append (or, for an existing path, change) a rule for plan_explain. */
static int
plan_provider_rule(struct plan *p, const char *path, enum plan_access a,
    const char *rule, int replace)
{
	struct plan_path_rule *r;
	size_t i;

	for (i = 0; replace && i < p->n_rules; i++)
		if (strcmp(p->rules[i].path, path) == 0) {
			p->rules[i].access = a;
			p->rules[i].rule = rule;
			return 0;
		}
	if ((r = realloc(p->rules, (p->n_rules + 1) * sizeof *r)) == NULL)
		return -1;
	p->rules = r;
	if ((r[p->n_rules].path = strdup(path)) == NULL)
		return -1;
	r[p->n_rules].access = a;
	r[p->n_rules].rule = rule;
	p->n_rules++;
	return 0;
}

/* The last mount whose destination holds path, or NULL. */
static const struct plan_mount *
plan_provider_effective(const struct plan *p, const char *path)
{
	size_t i = p->n_mounts;

	while (i-- > 0)
		if (path_is_under(path, p->mounts[i].dst))
			return &p->mounts[i];
	return NULL;
}

/* Keep dst (inside a writable bind) read-only; a missing one is kept from
 * being created. Returns -1 on ENOMEM. */
static int
plan_provider_protect(struct plan *p, const struct plan_fs *fs,
    const char *dst, int is_dir, const char *rule)
{
	const struct plan_mount *eff = plan_provider_effective(p, dst);
	struct plan_mount *m;
	struct stat st;
	char *host;
	int exists;

	if (plan_provider_rule(p, dst, PLAN_ACCESS_RO, rule, 0) == -1)
		return -1;
	if (eff == NULL || eff->kind != PLAN_MOUNT_RW_BIND || eff->src == NULL)
		return 0;
	/* the host path behind dst in that bind */
	if (asprintf(&host, "%s%s", eff->src, dst + strlen(eff->dst)) == -1)
		return -1;
	exists = fs->stat(fs->arg, host, &st) == 0;
	if (exists)
		is_dir = S_ISDIR(st.st_mode);
	m = plan_provider_mount(p, PLAN_MOUNT_RO_BIND, host, dst, rule);
	free(host);
	if (m == NULL)
		return -1;
	m->missing = !exists;
	m->is_dir = is_dir;
	return 0;
}

/* Protect base/NAME for each NAME of list, except what holds (or is) an
 * account folder of pr. */
static int
plan_provider_each(struct plan *p, const struct plan_fs *fs,
    const struct profile *pr, const char *base, const char *const *list)
{
	char rel[256], *path;
	size_t i, j, n;
	int skip, rc = 0;

	for (i = 0; rc == 0 && list[i] != NULL; i++) {
		n = strlen(list[i]);
		if (n == 0 || n >= sizeof rel)
			continue;
		memcpy(rel, list[i], n + 1);
		if (rel[n - 1] == '/')
			rel[n - 1] = '\0';
		if ((path = path_join(base, rel)) == NULL)
			return -1;
		skip = 0;
		for (j = 0; pr->account_folders && pr->account_folders[j]; j++)
			if (path_is_under(pr->account_folders[j], path))
				skip = 1;
		if (!skip)
			rc = plan_provider_protect(p, fs, path, list[i][n - 1] == '/',
			    PLAN_RULE_RUNS_LATER);
		free(path);
	}
	return rc;
}

/* Keep read-only what runs programs later in the account folder acct:
 * the home entries of the protected names inside it (the session's table
 * holds the provider's run-later files), else the common ones. */
static int
plan_provider_accounts(struct plan *p, const struct plan_fs *fs,
    const struct profile *pr, const struct plan_context *ctx,
    const char *acct)
{
	const struct guard_entry *e;
	char *path;
	size_t i;
	int rc = 0;

	if (ctx->protected == NULL)
		return plan_provider_each(p, fs, pr, acct,
		    plan_provider_account_files);
	for (i = 0; rc == 0 && i < ctx->protected->n; i++) {
		e = &ctx->protected->e[i];
		if (e->kind != GUARD_KIND_RUNS_LATER ||
		    e->scope != GUARD_SCOPE_HOME)
			continue;
		if ((path = path_join(ctx->home, e->name)) == NULL)
			return -1;
		if (path_is_under(path, acct) && strcmp(path, acct) != 0)
			rc = plan_provider_protect(p, fs, path, e->is_dir,
			    PLAN_RULE_RUNS_LATER);
		free(path);
	}
	return rc;
}

/* The protected names that apply in a home folder (scope home, and those
 * of any depth), existing ones bound read-write inside the provider's home
 * read-only; missing ones are the file guard's to refuse (the provider's
 * home is one of its roots). */
static int
plan_provider_names(struct plan *p, const struct plan_fs *fs,
    const struct profile *pr, const struct plan_context *ctx)
{
	const struct guard_entry *e;
	char *list[2] = { NULL, NULL };
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && ctx->protected != NULL &&
	    i < ctx->protected->n; i++) {
		e = &ctx->protected->e[i];
		if (e->kind != GUARD_KIND_RUNS_LATER || e->scope == GUARD_SCOPE_ROOT)
			continue;
		if (asprintf(&list[0], "%s%s", e->name, e->is_dir ? "/" : "") < 0)
			return -1;
		rc = plan_provider_each(p, fs, pr, ctx->home,
		    (const char *const *)list);
		free(list[0]);
	}
	return rc;
}

/* Make the home tmpfs of p the provider's own folder, bound read-write. */
static int
plan_provider_home(struct plan *p, const struct plan_context *ctx,
    const struct plan_fs *fs, const struct profile *pr)
{
	struct plan_mount *m = NULL;
	char *src;
	size_t i;

	for (i = 0; i < p->n_mounts; i++)
		if (p->mounts[i].kind == PLAN_MOUNT_TMPFS &&
		    strcmp(p->mounts[i].dst, ctx->home) == 0) {
			m = &p->mounts[i];
			break;
		}
	if (m == NULL)
		return 0;	/* nothing mounted there: nothing to replace */
	if ((src = strdup(ctx->provider_home)) == NULL)
		return -1;
	m->kind = PLAN_MOUNT_RW_BIND;
	m->src = src;
	m->rule = PLAN_RULE_PROVIDER_HOME;
	m->mode = 0;
	m->size_bytes = 0;
	m->is_dir = 1;
	if (plan_provider_rule(p, ctx->home, PLAN_ACCESS_RW,
	    PLAN_RULE_PROVIDER_HOME, 1) == -1)
		return -1;
	return plan_provider_names(p, fs, pr, ctx);
}

/* An empty tmpfs of the session's own over dir (a folder of one of pr's
 * account folders that exists on the host); -1 on ENOMEM. */
static int
plan_provider_private(struct plan *p, const struct plan_fs *fs,
    const struct profile *pr, const char *dir)
{
	const struct plan_mount *eff;
	struct plan_mount *m;
	struct stat st;
	char path[4096];
	size_t i, n = strlen(dir);
	int in = 0;

	if (n == 0 || n >= sizeof path)
		return 0;
	memcpy(path, dir, n + 1);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	for (i = 0; pr->account_folders && pr->account_folders[i]; i++)
		if (path_is_under(path, pr->account_folders[i]) &&
		    strcmp(path, pr->account_folders[i]) != 0)
			in = 1;
	eff = plan_provider_effective(p, path);
	if (!in || eff == NULL || eff->kind != PLAN_MOUNT_RW_BIND ||
	    fs->stat(fs->arg, path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	if ((m = plan_provider_mount(p, PLAN_MOUNT_TMPFS, NULL, path,
	    PLAN_RULE_ACCOUNT_PRIVATE)) == NULL)
		return -1;
	m->mode = 0700;
	m->size_bytes = 64ULL << 20;
	m->is_dir = 1;
	return plan_provider_rule(p, path, PLAN_ACCESS_RW,
	    PLAN_RULE_ACCOUNT_PRIVATE, 1);
}

/* Add the provider's home folder and account folder protections to p. */
int
plan_provider(struct plan *p, const struct profile *pr,
    const struct plan_context *ctx, sbox_error *err)
{
	const struct plan_fs *fs = ctx->fs ? ctx->fs : &plan_fs_real;
	size_t i;

	if (!p->sandboxed)
		return 0;
	if (pr->provider_home && ctx->provider_home != NULL &&
	    ctx->provider_home[0] == '/' &&
	    plan_provider_home(p, ctx, fs, pr) == -1)
		return error_nomem(err);
	if (pr->provider_home && (ctx->provider_home == NULL ||
	    ctx->provider_home[0] != '/'))
		return error_set_field(err, E_INVALID_PARAMS, "provider_home",
		    "provider %s keeps a home folder of its own, but none was "
		    "given", pr->provider ? pr->provider : "(unnamed)");
	for (i = 0; pr->account_folders && pr->account_folders[i]; i++)
		if (plan_provider_accounts(p, fs, pr, ctx,
		    pr->account_folders[i]) == -1)
			return error_nomem(err);
	/* its folders of its own per session: an empty tmpfs over each
	 * (only one that exists in an account folder: the daemon makes it) */
	for (i = 0; pr->account_private && pr->account_private[i]; i++)
		if (plan_provider_private(p, fs, pr, pr->account_private[i]) ==
		    -1)
			return error_nomem(err);
	/* its sign-in: readable, never writable (a swapped sign-in puts the
	 * person's next work in another account) */
	for (i = 0; pr->account_signin && pr->account_signin[i]; i++)
		if (pr->account_signin[i][0] == '/' &&
		    plan_provider_protect(p, fs, pr->account_signin[i], 0,
		    PLAN_RULE_SIGNIN) == -1)
			return error_nomem(err);
	return 0;
}
