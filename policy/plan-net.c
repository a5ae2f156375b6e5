/* plan-net.c: the plan's limits and network settings from a profile, and
 * the folders a sandbox may never write (the home folder). */
#include "policy/policy.h"

#include <stdlib.h>
#include <string.h>

#include "policy/path.h"
#include "policy/plan-internal.h"
#include "policy/registries.h"
#include "policy/strv.h"

#define PLAN_GIB (1024ULL * 1024 * 1024)
#define PLAN_MIB (1024ULL * 1024)

/* Fill the plan's limits from the defaults and the profile. */
void
plan_limits(struct plan_limits *l, const struct profile *pr)
{
	l->pids = pr->limits.pids >= 0 ? (uint64_t)pr->limits.pids : 512;
	l->memory_bytes = pr->limits.memory_mb >= 0 ?
	    (uint64_t)pr->limits.memory_mb * PLAN_MIB : 4 * PLAN_GIB;
	l->tmp_bytes = pr->limits.tmp_mb >= 0 ?
	    (uint64_t)pr->limits.tmp_mb * PLAN_MIB : PLAN_GIB;
	l->output_bytes = pr->limits.output_mb >= 0 ?
	    (uint64_t)pr->limits.output_mb * PLAN_MIB : 8 * PLAN_MIB;
	l->timeout_ms = pr->limits.timeout_s >= 0 ?
	    (uint64_t)pr->limits.timeout_s * 1000 : 0;
	l->nofile = pr->limits.nofile >= 0 ? (uint64_t)pr->limits.nofile : 1024;
	l->fsize_bytes = 4 * PLAN_GIB;
}

/* Fill the plan's network settings. */
int
plan_net(struct plan *plan, const struct plan_context *ctx,
    const struct profile *pr, sbox_error *err)
{
	struct plan_net *n = &plan->net;
	char **reg = NULL;
	size_t i;
	int ok = 1;

	n->mode = pr->network == PROFILE_NET_INTERNET ? PLAN_NET_INTERNET :
	    pr->network == PROFILE_NET_REGISTRIES ? PLAN_NET_REGISTRIES :
	    pr->network == PROFILE_NET_HOSTS ? PLAN_NET_HOSTS : PLAN_NET_NONE;
	n->hosts = strv_copy(pr->hosts, &ok);
	if (pr->network == PROFILE_NET_REGISTRIES) {
		if (ctx->registry_hosts != NULL)
			reg = strv_copy(ctx->registry_hosts, &ok);
		else if (registries_collect(ctx->home, ctx->env,
		    ctx->registries_file, &reg, err) == -1)
			return -1;
		for (i = 0; reg != NULL && reg[i] != NULL; i++) {
			if (strv_add_unique(&n->hosts, reg[i]) == -1)
				ok = 0;
		}
		strv_free(reg);
	}
	n->private_hosts = strv_copy(pr->private_hosts, &ok);
	n->provider_hosts = strv_copy(pr->provider_hosts, &ok);
	if (pr->n_local_ports > 0) {
		n->local_ports = calloc(pr->n_local_ports, sizeof *n->local_ports);
		if (n->local_ports == NULL)
			ok = 0;
		else {
			memcpy(n->local_ports, pr->local_ports,
			    pr->n_local_ports * sizeof *n->local_ports);
			n->n_local_ports = pr->n_local_ports;
		}
	}
	if (pr->n_resolve > 0) {
		n->resolve = calloc(pr->n_resolve, sizeof *n->resolve);
		if (n->resolve == NULL)
			ok = 0;
		for (i = 0; n->resolve != NULL && i < pr->n_resolve; i++) {
			n->resolve[i].host = strdup(pr->resolve[i].host);
			n->resolve[i].addrs = strv_copy(pr->resolve[i].addrs, &ok);
			n->n_resolve = i + 1;
			if (n->resolve[i].host == NULL)
				ok = 0;
		}
	}
	if (!ok)
		return error_nomem(err);
	return 0;
}

/* Is f one of the folders every program on the host shares (or one that
 * holds one): /tmp, /var/tmp, / -- or /run, /dev/shm or a folder below
 * them? Returns the shared folder, or NULL. */
static const char *
plan_shared_folder(const char *f)
{
	static const char *const holds[] = { "/tmp", "/var/tmp", "/run",
	    "/dev/shm", NULL };
	static const char *const below[] = { "/run", "/dev/shm", NULL };
	size_t i;

	for (i = 0; below[i] != NULL; i++)
		if (path_is_under(f, below[i]))
			return below[i];
	for (i = 0; holds[i] != NULL; i++)
		if (path_is_under(holds[i], f))
			return strcmp(f, "/") == 0 ? "/" : holds[i];
	return NULL;
}

/* Refuse a project or read-write folder where host programs keep their
 * sockets and files (tmux, X11, ssh-agent, D-Bus): a sandbox there would
 * reach them. */
static int
plan_not_shared(const struct profile *pr, const struct plan_context *ctx,
    sbox_error *err)
{
	const char *f = NULL, *field = NULL, *shared = NULL;
	size_t i;

	if (pr->project_access && ctx->project != NULL &&
	    (shared = plan_shared_folder(ctx->project)) != NULL) {
		f = ctx->project;
		field = "project";
	}
	for (i = 0; f == NULL && pr->folders_rw && pr->folders_rw[i]; i++)
		if ((shared = plan_shared_folder(pr->folders_rw[i])) != NULL) {
			f = pr->folders_rw[i];
			field = "folders.read_write";
		}
	if (f == NULL)
		return 0;
	return error_set_field(err, E_INVALID_PARAMS, field, "%s %s %s: a "
	    "folder every program shares (tmux, X11, ssh-agent and D-Bus keep "
	    "their sockets there); a sandbox cannot write there: use a "
	    "project folder of its own, e.g. %s/code/NAME", f,
	    strcmp(f, shared) == 0 ? "is" : path_is_under(f, shared) ?
	    "is below" : "holds", shared, ctx->home ? ctx->home : "~");
}

/* Refuse a project or read-write folder that is the home folder or holds
 * it: its dotfiles, ~/.local/bin and tool settings run programs later. */
int
plan_not_home(const struct profile *pr, const struct plan_context *ctx,
    sbox_error *err)
{
	const char *f = NULL, *field = NULL;
	size_t i;

	if (pr->project_access && ctx->project != NULL &&
	    path_is_under(ctx->home, ctx->project)) {
		f = ctx->project;
		field = "project";
	}
	for (i = 0; f == NULL && pr->folders_rw && pr->folders_rw[i]; i++)
		if (path_is_under(ctx->home, pr->folders_rw[i])) {
			f = pr->folders_rw[i];
			field = "folders.read_write";
		}
	if (f == NULL)
		return plan_not_shared(pr, ctx, err);
	return error_set_field(err, E_INVALID_PARAMS, field, "%s is %s: a "
	    "sandbox cannot write there (dotfiles, ~/.local/bin and tool "
	    "settings run programs later); use a project folder below it, "
	    "e.g. %s/code/NAME", f, strcmp(f, ctx->home) == 0 ?
	    "your home folder" : "a folder that holds your home folder",
	    ctx->home);
}
