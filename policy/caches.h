/* caches.h: the package-cache trees a sandbox writes, and where sbox keeps
 * its own copy of each. No I/O.
 *
 * A sandboxed profile with project access gets sbox's own cache trees,
 * kept per project and profile under sboxd's state folder
 * (<state_dir>/caches/<profile>/projects/<key>/<name>, key: a hash of the
 * project's real path, its path written beside in a file "project") and
 * bound read-write at the place the tool looks (~/<rel>). A profile with
 * "caches": "profile" shares one set among all its projects
 * (<state_dir>/caches/<profile>/<name>). The host's own caches are never
 * bound into a sandbox, and sbox's are never bound back onto the host's:
 * what a sandbox writes there is read only by later sandboxes of the same
 * project and profile (of the same profile when shared). */
#ifndef SBOX_POLICY_CACHES_H
#define SBOX_POLICY_CACHES_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/error.h"

struct profile;

/* Size of the caches of one project (or shared profile) by default. */
#define CACHES_LIMIT_MB_DEFAULT 4096
/* Folder of the per-project cache roots below a profile's. */
#define CACHES_PROJECTS "projects"
/* File in a project's cache root naming the project. */
#define CACHES_PROJECT_FILE "project"

struct cache_tree {
	const char *name;   /* folder under the profile's cache root: "npm" */
	const char *rel;    /* where tools look, relative to home: ".npm" */
	const char *tools;  /* who reads and fills it, for people */
};

/* The cache trees, in a fixed order, ending with { NULL }. */
extern const struct cache_tree caches_table[];

/* Number of entries of caches_table. */
size_t caches_count(void);
/* The tree called name (its folder under the root), or NULL. */
const struct cache_tree *caches_find(const char *name);
/* The tree whose place in home is rel (".npm"), or NULL. */
const struct cache_tree *caches_find_rel(const char *rel);
/* The folder holding every profile's caches: <state_dir>/caches (malloc'd,
 * NULL on ENOMEM or a state_dir that is not absolute). */
char *caches_base(const char *state_dir);
/* The cache root of one profile: <state_dir>/caches/<profile>; NULL with
 * err when the name cannot be a folder name (profile names are checked by
 * profile_name_valid) or on ENOMEM. */
char *caches_profile_root(const char *state_dir, const char *profile,
    sbox_error *err);
/* The key of a project's caches: 16 hex digits of a hash (FNV-1a, 64
 * bits) of its real path (a collision is told apart by the project file:
 * cachedir.c then adds "-N"). */
void caches_project_key(const char *project, char out[17]);
/* Apply the profile key "caches" ("project" or "profile") at JSON path f. */
int caches_profile_apply(struct profile *p, const json_t *v, const char *f,
    sbox_error *err);
/* Bytes the caches of one project (or shared profile) may hold:
 * limits.cache_mb, else CACHES_LIMIT_MB_DEFAULT. */
uint64_t caches_limit_bytes(const struct profile *p);

#endif
