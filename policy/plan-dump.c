/* plan-dump.c: reading a finished plan: its text form (golden tests,
 * debugging), the rule that explains a path, and freeing it. */
#include "policy/plan.h"
#include "policy/guard.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "policy/path.h"
#include "policy/strv.h"

/* "hidden", "read-only", "read-write". */
const char *
plan_access_name(enum plan_access a)
{
	switch (a) {
	case PLAN_ACCESS_RO:
		return "read-only";
	case PLAN_ACCESS_RW:
		return "read-write";
	default:
		return "hidden";
	}
}

/* The short name of a mount kind. */
static const char *
plan_dump_kind(enum plan_mount_kind k)
{
	switch (k) {
	case PLAN_MOUNT_RO_BIND:	return "ro-bind";
	case PLAN_MOUNT_RW_BIND:	return "rw-bind";
	case PLAN_MOUNT_TMPFS:		return "tmpfs";
	case PLAN_MOUNT_PROC:		return "proc";
	case PLAN_MOUNT_DEV:		return "dev";
	case PLAN_MOUNT_DIR:		return "dir";
	case PLAN_MOUNT_HIDE_FILE:	return "hide-file";
	case PLAN_MOUNT_HIDE_DIR:	return "hide-dir";
	case PLAN_MOUNT_SYMLINK:	return "symlink";
	case PLAN_MOUNT_REMOUNT_RO:	return "remount-ro";
	}
	return "?";
}

/* A stable, line-oriented text form of the whole plan. */
void
plan_dump(const struct plan *p, FILE *f)
{
	const struct plan_mount *m;
	size_t i, j;

	fprintf(f, "sandboxed %d\n", p->sandboxed);
	fprintf(f, "project %s\n", p->project ? p->project : "-");
	fprintf(f, "scratch %s\n", p->scratch ? p->scratch : "-");
	fprintf(f, "home %s\ncwd %s\nhostname %s\n", p->home ? p->home : "-",
	    p->cwd ? p->cwd : "-", p->hostname ? p->hostname : "-");
	fprintf(f, "uid %u gid %u\n", (unsigned)p->uid, (unsigned)p->gid);
	for (i = 0; i < p->n_mounts; i++) {
		m = &p->mounts[i];
		fprintf(f, "mount %s", plan_dump_kind(m->kind));
		if (m->src != NULL && (m->src[0] != '/' || m->dst == NULL ||
		    strcmp(m->src, m->dst) != 0))
			fprintf(f, " %s ->", m->src);
		fprintf(f, " %s", m->dst ? m->dst : "-");
		if (m->optional)
			fprintf(f, " optional");
		if (m->missing)
			fprintf(f, " missing");
		fprintf(f, " %s", m->is_dir ? "dir" : "file");
		if (m->mode != 0)
			fprintf(f, " mode=%04o", (unsigned)m->mode);
		if (m->size_bytes != 0)
			fprintf(f, " size=%" PRIu64, m->size_bytes);
		fprintf(f, " (%s)\n", m->rule ? m->rule : "-");
	}
	for (i = 0; i < p->n_rules; i++)
		fprintf(f, "rule %s %s (%s)\n", plan_access_name(p->rules[i].access),
		    p->rules[i].path, p->rules[i].rule ? p->rules[i].rule : "-");
	for (i = 0; p->env != NULL && p->env[i] != NULL; i++)
		fprintf(f, "env %s\n", p->env[i]);
	fprintf(f, "net mode %s\n", p->net.mode == PLAN_NET_INTERNET ? "internet" :
	    p->net.mode == PLAN_NET_REGISTRIES ? "registries" :
	    p->net.mode == PLAN_NET_HOSTS ? "hosts" : "none");
	for (i = 0; p->net.hosts != NULL && p->net.hosts[i] != NULL; i++)
		fprintf(f, "net host %s\n", p->net.hosts[i]);
	for (i = 0; p->net.private_hosts != NULL && p->net.private_hosts[i] != NULL; i++)
		fprintf(f, "net private %s\n", p->net.private_hosts[i]);
	for (i = 0; p->net.provider_hosts != NULL && p->net.provider_hosts[i] != NULL; i++)
		fprintf(f, "net provider %s\n", p->net.provider_hosts[i]);
	for (i = 0; i < p->net.n_local_ports; i++)
		fprintf(f, "net local-port %d\n", p->net.local_ports[i]);
	for (i = 0; i < p->net.n_resolve; i++) {
		fprintf(f, "net resolve %s", p->net.resolve[i].host);
		for (j = 0; p->net.resolve[i].addrs != NULL &&
		    p->net.resolve[i].addrs[j] != NULL; j++)
			fprintf(f, " %s", p->net.resolve[i].addrs[j]);
		fprintf(f, "\n");
	}
	fprintf(f, "limit pids %" PRIu64 "\n", p->limits.pids);
	fprintf(f, "limit memory %" PRIu64 "\n", p->limits.memory_bytes);
	fprintf(f, "limit tmp %" PRIu64 "\n", p->limits.tmp_bytes);
	fprintf(f, "limit output %" PRIu64 "\n", p->limits.output_bytes);
	fprintf(f, "limit timeout-ms %" PRIu64 "\n", p->limits.timeout_ms);
	fprintf(f, "limit nofile %" PRIu64 "\n", p->limits.nofile);
	fprintf(f, "limit fsize %" PRIu64 "\n", p->limits.fsize_bytes);
	fprintf(f, "syscalls 0x%x\n", p->syscalls);
}

/* Free a plan and everything it owns. */
void
plan_free(struct plan *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n_mounts; i++) {
		free(p->mounts[i].src);
		free(p->mounts[i].dst);
	}
	free(p->mounts);
	for (i = 0; i < p->n_rules; i++)
		free(p->rules[i].path);
	free(p->rules);
	strv_free(p->env);
	strv_free(p->net.hosts);
	strv_free(p->net.private_hosts);
	strv_free(p->net.provider_hosts);
	free(p->net.local_ports);
	for (i = 0; i < p->net.n_resolve; i++) {
		free(p->net.resolve[i].host);
		strv_free(p->net.resolve[i].addrs);
	}
	free(p->net.resolve);
	free(p->project);
	free(p->scratch);
	free(p->home);
	free(p->cwd);
	free(p->hostname);
	if (p->guard != NULL) {
		guard_spec_free(p->guard);
		free(p->guard);
	}
	free(p);
}

/* The rule that decides path (longest matching prefix; later rules win ties). */
const struct plan_path_rule *
plan_explain(const struct plan *p, const char *path)
{
	const struct plan_path_rule *best = NULL;
	size_t i;

	for (i = 0; p != NULL && path != NULL && i < p->n_rules; i++) {
		if (!path_is_under(path, p->rules[i].path))
			continue;
		if (best == NULL || strlen(p->rules[i].path) >= strlen(best->path))
			best = &p->rules[i];
	}
	return best;
}
