/* policy.c: resolution with provenance, narrowing, and exclusions. */
#include "policy/policy.h"
#include "policy/exclude.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/envfilter.h"
#include "policy/hostpat.h"
#include "policy/path.h"
#include "policy/strv.h"
#include "policy/suggest.h"

/* The project binding of the longest configured folder containing project. */
static const struct config_binding *
policy_find_project(const struct config *cfg, const char *project)
{
	const struct config_binding *best = NULL;
	size_t i;

	for (i = 0; i < cfg->n_projects; i++) {
		if (cfg->projects[i].sandbox == NULL ||
		    !path_is_under(project, cfg->projects[i].key))
			continue;
		if (best == NULL || strlen(cfg->projects[i].key) > strlen(best->key))
			best = &cfg->projects[i];
	}
	return best;
}

/* Read a small file whose content is one path line ("gitdir: PATH" when
 * prefix is "gitdir: "), into buf; 0 or -1. A symlink is not followed. */
static int
policy_read_line(const char *path, const char *prefix, char *buf, size_t len)
{
	char tmp[PATH_MAX + 64];
	size_t n, pl = strlen(prefix);
	struct stat st;
	FILE *f;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > (off_t)sizeof tmp - 1 || (f = fopen(path, "re")) == NULL)
		return -1;
	n = fread(tmp, 1, sizeof tmp - 1, f);
	fclose(f);
	tmp[n] = '\0';
	tmp[strcspn(tmp, "\r\n")] = '\0';
	if (strncmp(tmp, prefix, pl) != 0 || strlen(tmp + pl) >= len)
		return -1;
	snprintf(buf, len, "%s", tmp + pl);
	return 0;
}

/* When project is a linked git worktree (the kind `sbox session create
 * --worktree` makes, beside the repository), the folder of its main
 * worktree, malloc'd; else NULL. Both links must agree: the worktree's
 * .git file names the repository's admin folder
 * (REPO/.git/worktrees/NAME), and that folder's gitdir file names the
 * worktree's .git back (git's own check); the repository's side is not
 * writable from a sandbox (git metadata is read-only there). */
static char *
policy_worktree_main(const char *project)
{
	char path[PATH_MAX + 16], gitdir[PATH_MAX], back[PATH_MAX];
	char *admin = NULL, *mine = NULL, *other = NULL, *repo = NULL, *p;

	snprintf(path, sizeof path, "%s/.git", project);
	if (policy_read_line(path, "gitdir: ", gitdir, sizeof gitdir) != 0 ||
	    gitdir[0] != '/' || (admin = realpath(gitdir, NULL)) == NULL ||
	    (mine = realpath(path, NULL)) == NULL)
		goto out;
	snprintf(path, sizeof path, "%s/gitdir", admin);
	if (policy_read_line(path, "", back, sizeof back) != 0 ||
	    (other = realpath(back, NULL)) == NULL || strcmp(other, mine) != 0)
		goto out;
	/* admin is REPO/.git/worktrees/NAME */
	if ((p = strrchr(admin, '/')) == NULL || p == admin)
		goto out;
	*p = '\0';
	if ((p = strrchr(admin, '/')) == NULL || strcmp(p, "/worktrees") != 0)
		goto out;
	*p = '\0';
	if ((p = strrchr(admin, '/')) == NULL || strcmp(p, "/.git") != 0 ||
	    p == admin)
		goto out;
	*p = '\0';
	repo = strdup(admin);
out:
	free(admin);
	free(mine);
	free(other);
	return repo;
}

/* Add a provider entry's hosts and env values to p. */
static int
policy_add_provider(struct profile *p, const struct config_binding *b,
    sbox_error *err)
{
	const char *eq;
	char name[256];
	size_t i, n;

	for (i = 0; b->hosts != NULL && b->hosts[i] != NULL; i++) {
		if (strv_add_unique(&p->hosts, b->hosts[i]) == -1 ||
		    strv_add_unique(&p->provider_hosts, b->hosts[i]) == -1)
			return error_nomem(err);
	}
	for (i = 0; b->account_folders != NULL && b->account_folders[i] != NULL;
	    i++) {
		if (strv_add_unique(&p->folders_rw, b->account_folders[i]) == -1 ||
		    strv_add_unique(&p->account_folders, b->account_folders[i]) == -1)
			return error_nomem(err);
	}
	for (i = 0; b->writable != NULL && b->writable[i] != NULL; i++)
		if (strv_add_unique(&p->account_writable, b->writable[i]) == -1)
			return error_nomem(err);
	for (i = 0; b->signin != NULL && b->signin[i] != NULL; i++)
		if (strv_add_unique(&p->account_signin, b->signin[i]) == -1)
			return error_nomem(err);
	free(p->provider);
	if ((p->provider = strdup(b->key)) == NULL)
		return error_nomem(err);
	p->provider_home = b->home_persistent;
	for (i = 0; b->env_values != NULL && b->env_values[i] != NULL; i++) {
		if ((eq = strchr(b->env_values[i], '=')) == NULL ||
		    (n = (size_t)(eq - b->env_values[i])) >= sizeof name)
			continue;
		memcpy(name, b->env_values[i], n);
		name[n] = '\0';
		if (profile_env_set_value(p, name, eq + 1) == -1)
			return error_nomem(err);
	}
	return 0;
}

/* E_INVALID_PARAMS for a provider name cfg does not know (field
 * "provider"), with the closest known name. */
static void
policy_unknown_provider(const struct config *cfg, const char *name,
    sbox_error *err)
{
	const char *names[130], *sugg;
	size_t i, n = 0;

	for (i = 0; i < cfg->n_providers && n + 1 < sizeof names / sizeof
	    *names; i++)
		names[n++] = cfg->providers[i].key;
	names[n] = NULL;
	sugg = suggest_closest(name, names);
	error_set_field(err, E_INVALID_PARAMS, "provider", "no provider \"%s\" "
	    "in the config or the built-in providers%s%s%s", name,
	    sugg ? " (did you mean \"" : "", sugg ? sugg : "", sugg ? "\"?)" :
	    "");
}

/* The profile for a session, with provenance. */
struct profile *
policy_resolve(const struct config *cfg, const struct resolve_request *req,
    sbox_error *err)
{
	static const struct config empty = { .approvals_timeout_s = -1,
	    .report_reads = 1 };
	const struct config_binding *b, *provider = NULL;
	const char *name = NULL, *level = NULL, *what = NULL;
	char *project = NULL, *repo = NULL;
	struct profile *p;
	int rc;

	if (cfg == NULL)
		cfg = &empty;
	if (req->project != NULL && req->project[0] != '\0') {
		project = path_expand(req->project, cfg->home, "project", err);
		if (project == NULL) {
			error_set_field(err, E_INVALID_PARAMS, "project",
			    "project \"%s\" must be an absolute path without \"..\"",
			    req->project);
			return NULL;
		}
	}
	if (req->provider != NULL && (provider = config_find_binding(
	    cfg->providers, cfg->n_providers, req->provider)) == NULL) {
		policy_unknown_provider(cfg, req->provider, err);
		free(project);
		return NULL;
	}
	if (req->sandbox != NULL) {
		name = req->sandbox;
		level = "session";
	} else if ((b = config_find_binding(cfg->models, cfg->n_models,
	    req->model)) != NULL && b->sandbox != NULL) {
		name = b->sandbox, level = "model", what = b->key;
	} else if (provider != NULL && provider->sandbox != NULL) {
		name = provider->sandbox, level = "provider", what = provider->key;
	} else if (project != NULL && (b = policy_find_project(cfg, project)) != NULL) {
		name = b->sandbox, level = "project", what = b->key;
	} else if (project != NULL && cfg->n_projects > 0 &&
	    (repo = policy_worktree_main(project)) != NULL &&
	    (b = policy_find_project(cfg, repo)) != NULL) {
		/* a worktree of a configured project is that project's */
		name = b->sandbox, level = "project", what = b->key;
	} else if ((b = config_find_binding(cfg->spaces, cfg->n_spaces,
	    req->space)) != NULL && b->sandbox != NULL) {
		name = b->sandbox, level = "space", what = b->key;
	} else if (cfg->all_sessions != NULL) {
		name = cfg->all_sessions, level = "all_sessions";
	}
	if (name == NULL)
		p = profile_builtin("none", err);
	else if ((p = profile_get(cfg, name, err)) == NULL && err != NULL &&
	    level != NULL && strcmp(level, "session") == 0)
		snprintf(err->field, sizeof err->field, "sandbox");
	free(project);
	if (p == NULL) {
		free(repo);
		return NULL;
	}
	if (name == NULL)
		rc = asprintf(&p->provenance, "none, by default (nothing chose a sandbox)");
	else if (repo != NULL && strcmp(level, "project") == 0)
		rc = asprintf(&p->provenance, "%s, from project %s (this folder is "
		    "a worktree of %s)", name, what, repo);
	else if (what != NULL)
		rc = asprintf(&p->provenance, "%s, from %s %s", name, level, what);
	else
		rc = asprintf(&p->provenance, "%s, from %s", name, level);
	free(repo);
	if (rc == -1) {
		p->provenance = NULL;
		profile_free(p);
		error_nomem(err);
		return NULL;
	}
	if ((provider != NULL && policy_add_provider(p, provider, err) == -1) ||
	    (p->sandboxed && config_provider_resolve(cfg, provider, p, err) ==
	    -1) ||
	    (p->n_resolve == 0 && profile_resolve_copy(cfg->resolve, cfg->n_resolve,
	    &p->resolve) == -1)) {
		profile_free(p);
		if (!error_isset(err))
			error_nomem(err);
		return NULL;
	}
	if (p->resolve != NULL)
		p->n_resolve = cfg->n_resolve;
	if (provider != NULL && provider->no_sandbox && p->sandboxed) {
		error_set_field(err, E_INVALID_PARAMS, "provider", "provider %s "
		    "cannot run in a sandbox (\"sandbox_capable\": false in the "
		    "config) and the session's profile is %s: choose --sandbox "
		    "none for it, or another provider", provider->key,
		    p->provenance);
		profile_free(p);
		return NULL;
	}
	return p;
}

/* Fill err with a narrowing violation on axis; returns -1. */
static int
policy_widens(sbox_error *err, const char *axis, const char *what)
{
	return error_set_field(err, E_NARROWING, axis,
	    "a session created inside a sandbox cannot widen it: %s", what);
}

/* Is every folder of child inside one of the parent lists? */
static const char *
policy_folders_within(char *const *child, char *const *p1, char *const *p2)
{
	size_t i, j;
	int ok;

	for (i = 0; child != NULL && child[i] != NULL; i++) {
		ok = 0;
		for (j = 0; !ok && p1 != NULL && p1[j] != NULL; j++)
			ok = path_is_under(child[i], p1[j]);
		for (j = 0; !ok && p2 != NULL && p2[j] != NULL; j++)
			ok = path_is_under(child[i], p2[j]);
		if (!ok)
			return child[i];
	}
	return NULL;
}

/* Is an env entry (NAME or PREFIX*) of the child allowed by the parent? */
static int
policy_env_allowed(const struct profile *parent, const char *name)
{
	size_t i, n = strlen(name), pn;

	if (n > 0 && name[n - 1] == '*') {
		for (i = 0; parent->env != NULL && parent->env[i] != NULL; i++) {
			pn = strlen(parent->env[i]);
			if (strcmp(parent->env[i], name) == 0 ||
			    (parent->env[i][pn - 1] == '*' &&
			    strncmp(name, parent->env[i], pn - 1) == 0))
				return 1;
		}
		return 0;
	}
	if (envfilter_named(parent->env, name))
		return 1;
	for (i = 0; parent->env_values != NULL && parent->env_values[i] != NULL; i++) {
		if (strncmp(parent->env_values[i], name, n) == 0 &&
		    parent->env_values[i][n] == '=')
			return 1;
	}
	return 0;
}

/* The smaller of two limits (-1 unset; with zero_inf, 0 means no limit). */
static int64_t
policy_limit_min(int64_t parent, int64_t child, int zero_inf)
{
	if (child < 0)
		return parent;
	if (parent < 0)
		return child;
	if (zero_inf && parent == 0)
		return child;
	if (zero_inf && child == 0)
		return parent;
	return child < parent ? child : parent;
}

/* Check every axis of child against parent; returns 0 or -1 (E_NARROWING). */
static int
policy_check_narrow(const struct profile *pa, const struct profile *c,
    sbox_error *err)
{
	char what[600], name[256];
	const char *bad, *eq;
	size_t i, j;

	if (!c->sandboxed)
		return policy_widens(err, "sandbox",
		    "the parent is sandboxed, the child would not be");
	if (!pa->project_access && c->project_access)
		return policy_widens(err, "project_access",
		    "the parent has no project access");
	if (c->network > pa->network) {
		snprintf(what, sizeof what, "network \"%s\" is wider than \"%s\"",
		    profile_network_name(c->network), profile_network_name(pa->network));
		return policy_widens(err, "network", what);
	}
	for (i = 0; pa->network != PROFILE_NET_INTERNET && c->hosts != NULL &&
	    c->hosts[i] != NULL; i++) {
		for (j = 0; pa->hosts != NULL && pa->hosts[j] != NULL; j++) {
			if (hostpat_subsumes(pa->hosts[j], c->hosts[i]))
				break;
		}
		if (pa->hosts == NULL || pa->hosts[j] == NULL) {
			snprintf(what, sizeof what, "host \"%s\" is not allowed", c->hosts[i]);
			return policy_widens(err, "hosts", what);
		}
	}
	for (i = 0; pa->network != PROFILE_NET_INTERNET &&
	    c->provider_hosts != NULL && c->provider_hosts[i] != NULL; i++) {
		for (j = 0; pa->provider_hosts != NULL &&
		    pa->provider_hosts[j] != NULL; j++) {
			if (hostpat_subsumes(pa->provider_hosts[j],
			    c->provider_hosts[i]))
				break;
		}
		if (pa->provider_hosts == NULL || pa->provider_hosts[j] == NULL) {
			snprintf(what, sizeof what, "provider host \"%s\" is not "
			    "reachable in the parent", c->provider_hosts[i]);
			return policy_widens(err, "provider_hosts", what);
		}
	}
	if (c->provider_home && (!pa->provider_home || pa->provider == NULL ||
	    c->provider == NULL || strcmp(pa->provider, c->provider) != 0))
		return policy_widens(err, "provider_home",
		    "the parent has no home folder of this provider");
#define SUBSET(list, axis, label) \
	for (i = 0; c->list != NULL && c->list[i] != NULL; i++) { \
		if (!strv_contains(pa->list, c->list[i])) { \
			snprintf(what, sizeof what, label " \"%s\" is not allowed", c->list[i]); \
			return policy_widens(err, axis, what); \
		} \
	}
	SUBSET(private_hosts, "private_hosts", "private host");
	SUBSET(mcp_servers, "mcp_servers", "MCP server");
	SUBSET(exclude, "exclude", "exclusion");
#undef SUBSET
	for (i = 0; i < c->n_local_ports; i++) {
		for (j = 0; j < pa->n_local_ports; j++) {
			if (pa->local_ports[j] == c->local_ports[i])
				break;
		}
		if (j == pa->n_local_ports) {
			snprintf(what, sizeof what, "local port %d is not allowed",
			    c->local_ports[i]);
			return policy_widens(err, "local_ports", what);
		}
	}
	if ((bad = policy_folders_within(c->folders_rw, pa->folders_rw, NULL)) != NULL) {
		snprintf(what, sizeof what, "folder %s is not writable in the parent", bad);
		return policy_widens(err, "folders.read_write", what);
	}
	if ((bad = policy_folders_within(c->folders_ro, pa->folders_rw,
	    pa->folders_ro)) != NULL) {
		snprintf(what, sizeof what, "folder %s is not readable in the parent", bad);
		return policy_widens(err, "folders.read_only", what);
	}
	for (i = 0; c->env != NULL && c->env[i] != NULL; i++) {
		if (!policy_env_allowed(pa, c->env[i])) {
			snprintf(what, sizeof what, "variable %s is not passed", c->env[i]);
			return policy_widens(err, "env", what);
		}
	}
	for (i = 0; c->env_values != NULL && c->env_values[i] != NULL; i++) {
		eq = strchr(c->env_values[i], '=');
		if (eq == NULL || (size_t)(eq - c->env_values[i]) >= sizeof name)
			continue;
		memcpy(name, c->env_values[i], (size_t)(eq - c->env_values[i]));
		name[eq - c->env_values[i]] = '\0';
		if (!policy_env_allowed(pa, name)) {
			snprintf(what, sizeof what, "variable %s is not passed", name);
			return policy_widens(err, "env_values", what);
		}
	}
	if (pa->run_outside == PROFILE_RUN_NEVER && c->run_outside != PROFILE_RUN_NEVER)
		return policy_widens(err, "run_outside",
		    "the parent never runs commands outside");
	return 0;
}

/* The profile of a session created from inside a sandboxed session. */
struct profile *
policy_narrow(const struct profile *parent, const struct profile *child,
    sbox_error *err)
{
	struct profile *r;
	char *prov;
	size_t i;

	if (parent->sandboxed && policy_check_narrow(parent, child, err) == -1)
		return NULL;
	if ((r = profile_copy(child, err)) == NULL)
		return NULL;
	if (!parent->sandboxed)
		return r;
	for (i = 0; parent->folders_deny != NULL && parent->folders_deny[i] != NULL; i++) {
		if (strv_add_unique(&r->folders_deny, parent->folders_deny[i]) == -1)
			goto enomem;
	}
	r->limits.pids = policy_limit_min(parent->limits.pids, child->limits.pids, 0);
	r->limits.memory_mb = policy_limit_min(parent->limits.memory_mb,
	    child->limits.memory_mb, 0);
	r->limits.tmp_mb = policy_limit_min(parent->limits.tmp_mb, child->limits.tmp_mb, 0);
	r->limits.output_mb = policy_limit_min(parent->limits.output_mb,
	    child->limits.output_mb, 0);
	r->limits.timeout_s = policy_limit_min(parent->limits.timeout_s,
	    child->limits.timeout_s, 1);
	r->limits.nofile = policy_limit_min(parent->limits.nofile, child->limits.nofile, 0);
	r->limits.cache_mb = policy_limit_min(parent->limits.cache_mb,
	    child->limits.cache_mb, 0);
	profile_resolve_free(r->resolve, r->n_resolve);
	r->resolve = NULL;
	r->n_resolve = 0;
	if (profile_resolve_copy(parent->resolve, parent->n_resolve, &r->resolve) == -1)
		goto enomem;
	r->n_resolve = r->resolve ? parent->n_resolve : 0;
	if (asprintf(&prov, "%s, inside a session sandboxed with %s",
	    child->provenance ? child->provenance : child->name, parent->name) == -1)
		goto enomem;
	free(r->provenance);
	r->provenance = prov;
	return r;
enomem:
	profile_free(r);
	error_nomem(err);
	return NULL;
}

/* Does argv match one of p->exclude (see exclude_match)? */
int
policy_exclude_match(const struct profile *p, char *const *argv)
{
	return exclude_match(p->exclude, argv, NULL) != NULL;
}
