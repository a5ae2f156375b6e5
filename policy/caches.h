/* caches.h: the package-cache trees a sandbox writes, and where sbox keeps
 * its own copy of each. No I/O.
 *
 * A sandboxed profile with project access gets sbox's own cache trees,
 * kept per profile under sboxd's state folder
 * (<state_dir>/caches/<profile>/<name>) and bound read-write at the place
 * the tool looks (~/<rel>). The host's own caches are never bound into a
 * sandbox, and sbox's are never bound back onto the host's: what a sandbox
 * writes there is read only by later sandboxes of the same profile. */
#ifndef SBOX_POLICY_CACHES_H
#define SBOX_POLICY_CACHES_H

#include <stddef.h>

#include "protocol/error.h"

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

#endif
