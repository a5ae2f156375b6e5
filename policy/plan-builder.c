/* plan-builder.c: the small steps every part of plan building shares: is a
 * path there (through the builder's plan_fs), a mount or a path rule
 * appended to the plan, a grant recorded, a "gitdir:" file read. */
#include "policy/plan-builder.h"

#include <stdlib.h>
#include <string.h>

#include "policy/path.h"
#include "policy/policy.h"

/* Does path exist? Fills *is_dir and *mode when it does. */
int
plan_builder_exists(struct plan_builder *b, const char *path, int *is_dir,
    mode_t *mode)
{
	struct stat st;

	if (b->fs->stat(b->fs->arg, path, &st) == -1)
		return 0;
	if (is_dir != NULL)
		*is_dir = S_ISDIR(st.st_mode);
	if (mode != NULL)
		*mode = st.st_mode;
	return 1;
}

/* Fill the mount past p's last (room for it made by the caller), paths
 * copied, and count it; NULL on ENOMEM (nothing counted). */
struct plan_mount *
plan_builder_put_mount(struct plan *p, enum plan_mount_kind kind,
    const char *src, const char *dst, const char *rule)
{
	struct plan_mount *m = &p->mounts[p->n_mounts];

	memset(m, 0, sizeof *m);
	m->kind = kind;
	m->rule = rule;
	m->src = src ? strdup(src) : NULL;
	m->dst = strdup(dst);
	if (m->dst == NULL || (src != NULL && m->src == NULL)) {
		free(m->src);
		free(m->dst);
		return NULL;
	}
	p->n_mounts++;
	return m;
}

/* Append a mount operation (paths copied). */
struct plan_mount *
plan_builder_add_mount(struct plan_builder *b, enum plan_mount_kind kind,
    const char *src, const char *dst, const char *rule)
{
	struct plan *p = b->plan;
	struct plan_mount *m;

	if (p->n_mounts == b->cap_mounts) {
		b->cap_mounts = b->cap_mounts ? b->cap_mounts * 2 : 32;
		m = realloc(p->mounts, b->cap_mounts * sizeof *m);
		if (m == NULL) {
			b->oom = 1;
			return NULL;
		}
		p->mounts = m;
	}
	if ((m = plan_builder_put_mount(p, kind, src, dst, rule)) == NULL)
		b->oom = 1;
	return m;
}

/* Append a path rule for plan_explain. */
void
plan_builder_add_rule(struct plan_builder *b, const char *path,
    enum plan_access access, const char *rule)
{
	struct plan *p = b->plan;
	struct plan_path_rule *r;

	if (p->n_rules == b->cap_rules) {
		b->cap_rules = b->cap_rules ? b->cap_rules * 2 : 32;
		r = realloc(p->rules, b->cap_rules * sizeof *r);
		if (r == NULL) {
			b->oom = 1;
			return;
		}
		p->rules = r;
	}
	r = &p->rules[p->n_rules];
	if ((r->path = strdup(path)) == NULL) {
		b->oom = 1;
		return;
	}
	r->access = access;
	r->rule = rule;
	p->n_rules++;
}

/* Record a grant (emitted later, sorted by depth). */
struct plan_grant *
plan_builder_grant(struct plan_builder *b, enum plan_mount_kind kind,
    const char *path, const char *rule, enum plan_access access, int optional)
{
	struct plan_grant *g;

	g = realloc(b->grants, (b->n_grants + 1) * sizeof *g);
	if (g == NULL) {
		b->oom = 1;
		return NULL;
	}
	b->grants = g;
	g = &b->grants[b->n_grants];
	memset(g, 0, sizeof *g);
	if ((g->path = strdup(path)) == NULL) {
		b->oom = 1;
		return NULL;
	}
	g->kind = kind;
	g->rule = rule;
	g->access = access;
	g->optional = optional;
	g->is_dir = 1;
	plan_builder_exists(b, path, &g->is_dir, NULL);
	g->seq = b->n_grants++;
	return g;
}

/* The folder named by a "gitdir: X" (or "commondir" X) file, resolved
 * against base; NULL when the file says nothing usable. */
char *
plan_builder_read_gitdir(struct plan_builder *b, const char *file,
    const char *base, int prefixed)
{
	char *buf, *s, *e, *out;

	if ((buf = b->fs->read(b->fs->arg, file, 4096)) == NULL)
		return NULL;
	s = buf;
	if (prefixed) {
		if (strncmp(s, "gitdir:", 7) != 0) {
			free(buf);
			return NULL;
		}
		s += 7;
	}
	s += strspn(s, " \t");
	e = s + strcspn(s, "\r\n");
	*e = '\0';
	out = s[0] != '\0' ? path_resolve(base, s) : NULL;
	free(buf);
	return out;
}
