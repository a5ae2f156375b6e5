/* plan-explode.c: mount points inside a read-only grant. A bind (a cache,
 * a tmpfs, ...) whose destination does not exist on the host, inside a
 * read-only bind of a host folder (such as "read_only": ["~"]), would need
 * its mount point made in that folder: bwrap cannot (read-only), and sbox
 * never writes to the host for it. The read-only bind of that folder is
 * then replaced by sbox's own tree: a tmpfs at the folder, with each of its
 * entries bound read-only again (a link made again as the same link), so
 * the mount point is made in the tmpfs. Repeated down the path as needed
 * (~ then ~/.cache for ~/.cache/pip). Hides and protections that follow
 * see the entries' own binds, as they saw the folder's. */
#include "policy/policy.h"

#include <stdlib.h>
#include <string.h>

#include "policy/path.h"
#include "policy/plan-builder.h"
#include "policy/plan-explode.h"
#include "policy/strv.h"

#define PLAN_EXPLODE_MAX 256	/* entries of one folder bound one by one (bwrap
				   takes about 10 ms a bind at that size) */

/* The last mount of p before end whose destination strictly holds dst. */
static ssize_t
plan_explode_parent(const struct plan *p, size_t end, const char *dst)
{
	size_t i = end;

	while (i-- > 0)
		if (path_is_under(dst, p->mounts[i].dst) &&
		    strcmp(dst, p->mounts[i].dst) != 0)
			return (ssize_t)i;
	return -1;
}

/* Move the mounts appended since from to just after position at. */
static void
plan_explode_move(struct plan *p, size_t at, size_t from)
{
	size_t n = p->n_mounts - from, k = from - (at + 1);
	struct plan_mount *tmp;

	if (n == 0 || k == 0 || (tmp = malloc(n * sizeof *tmp)) == NULL)
		return;		/* (k == 0: already there) */
	memcpy(tmp, p->mounts + from, n * sizeof *tmp);
	memmove(p->mounts + at + 1 + n, p->mounts + at + 1, k * sizeof *tmp);
	memcpy(p->mounts + at + 1, tmp, n * sizeof *tmp);
	free(tmp);
}

/* Replace the read-only bind at position at by a tmpfs holding a bind (or
 * a link) for each of its host entries; the number of mounts added, -1
 * when it cannot (too many entries, ENOMEM: b->oom). */
static int
plan_explode_one(struct plan_builder *b, size_t at)
{
	struct plan *p = b->plan;
	char **names, *dir, *real, *path, *to, *want;
	size_t i, from = p->n_mounts;
	struct plan_mount *m;
	int is_dir, added = 0;
	mode_t mode;

	if ((dir = strdup(p->mounts[at].dst)) == NULL) {
		b->oom = 1;
		return -1;
	}
	names = b->fs->list(b->fs->arg, dir);
	if (strv_len(names) > PLAN_EXPLODE_MAX) {
		strv_free(names);
		free(dir);
		return -1;
	}
	real = b->fs->resolve ? b->fs->resolve(b->fs->arg, dir) : NULL;
	for (i = 0; !b->oom && names != NULL && names[i] != NULL; i++) {
		if ((path = path_join(dir, names[i])) == NULL ||
		    (want = path_join(real ? real : dir, names[i])) == NULL) {
			free(path);
			b->oom = 1;
			break;
		}
		to = b->fs->resolve ? b->fs->resolve(b->fs->arg, path) : NULL;
		if (to != NULL && strcmp(to, want) != 0)	/* a link */
			m = plan_builder_add_mount(b, PLAN_MOUNT_SYMLINK, to, path,
			    p->mounts[at].rule);
		else if (plan_builder_exists(b, path, &is_dir, &mode) &&
		    (S_ISDIR(mode) || S_ISREG(mode))) {
			m = plan_builder_add_mount(b, PLAN_MOUNT_RO_BIND, path, path,
			    p->mounts[at].rule);
			if (m != NULL)
				m->is_dir = is_dir;
		} else
			m = NULL;	/* sockets, fifos, devices: left out */
		added += m != NULL;
		free(to);
		free(want);
		free(path);
	}
	free(real);
	strv_free(names);
	if (!b->oom && strv_add_unique(&b->exploded, dir) == -1)
		b->oom = 1;
	free(dir);
	if (b->oom)
		return -1;
	m = &p->mounts[at];
	free(m->src);
	m->src = NULL;
	m->kind = PLAN_MOUNT_TMPFS;
	m->mode = 0755;
	m->size_bytes = p->limits.tmp_bytes;
	m->optional = 0;
	m->is_dir = 1;
	plan_explode_move(p, at, from);
	return added;
}

/* Make every mount point of the mounts from first on creatable without
 * writing to the host (see the top of this file). -1 when a folder has too
 * many entries to bind one by one (err names it). */
int
plan_explode(struct plan_builder *b, size_t first, sbox_error *err)
{
	struct plan *p = b->plan;
	const struct plan_mount *m, *e;
	ssize_t j;
	size_t i;
	int n;

	for (i = first; !b->oom && i < p->n_mounts; i++) {
		m = &p->mounts[i];
		if (m->missing || plan_builder_exists(b, m->dst, NULL, NULL))
			continue;	/* its mount point is there */
		while (!b->oom && (j = plan_explode_parent(p, i, p->mounts[i].dst))
		    >= 0) {
			e = &p->mounts[j];
			if (e->kind != PLAN_MOUNT_RO_BIND || e->src == NULL ||
			    strcmp(e->src, e->dst) != 0)
				break;	/* a tmpfs, or sbox's own: made there */
			if ((n = plan_explode_one(b, (size_t)j)) < 0) {
				if (b->oom)
					return error_nomem(err);
				return error_set_field(err, E_INVALID_PARAMS,
				    "folders.read_only", "%s holds more than %d "
				    "entries: sbox cannot make the mount point of "
				    "%s inside it without writing to it; grant "
				    "its folders one by one", e->dst,
				    PLAN_EXPLODE_MAX, p->mounts[i].dst);
			}
			i += (size_t)n;	/* the mount moved down */
		}
	}
	return b->oom ? error_nomem(err) : 0;
}

/* Make each exploded grant's tmpfs read-only again, last. */
void
plan_explode_seal(struct plan_builder *b)
{
	size_t i;

	for (i = 0; b->exploded != NULL && b->exploded[i] != NULL; i++)
		plan_builder_add_mount(b, PLAN_MOUNT_REMOUNT_RO, NULL, b->exploded[i],
		    PLAN_RULE_PROFILE_RO);
	strv_free(b->exploded);
	b->exploded = NULL;
}
