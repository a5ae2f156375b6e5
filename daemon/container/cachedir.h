/* cachedir.h: sbox's own package-cache folders on disk (the trees of
 * policy/caches.h under <state_dir>/caches/<profile>/): made before a
 * container starts, sized and cleared for `sbox cache`. A sandbox can put
 * anything in them (links to host files, sockets, folders without
 * permissions, deep nests): every walk here goes from a held descriptor
 * with openat/fstatat, never follows a link, never leaves the device of
 * the cache root, and removes a link or a hard link's name, never what it
 * points at. */
#ifndef SBOX_CACHEDIR_H
#define SBOX_CACHEDIR_H

#include <stdint.h>
#include <sys/types.h>

#include "protocol/error.h"

/* Folders deeper than this below a tree are neither sized nor removed. */
#define CACHEDIR_MAX_DEPTH 128

/* What a walk found (or freed). */
struct cachedir_usage {
	uint64_t bytes;      /* disk use (st_blocks), every name counted */
	uint64_t files;      /* entries that are not folders */
	uint64_t dirs;       /* folders */
	uint64_t links;      /* symbolic links among files (never followed) */
	uint64_t skipped;    /* entries left alone: other device, too deep,
	                        unreadable, or not removable */
};

/* Make <state_dir>/caches/<profile> and every tree of the table in it
 * (mode 0700, owned by uid/gid; the caches folder itself stays sboxd's,
 * 0711), without following links; an existing folder is re-owned and
 * re-moded, a link or a file in the way is an error. */
int cachedir_prepare(const char *state_dir, const char *profile, uid_t uid,
    gid_t gid, sbox_error *err);
struct profile;
struct plan;
/* The cache root under state_dir a new session of profile p in project
 * (its real path) binds: the project's own (<profile>/projects/<key>, the
 * default) or, with "caches": "profile", the profile's (policy/caches.h
 * caches_profile_root), made for owner uid/gid; *root is NULL (and 0 returned) for a profile without caches
 * ("lab", "none"). A session made from inside a sandbox (parent: the plan
 * of the session it was made in) gets its parent's caches, or none when
 * its parent has none: never another profile's. The caller frees *root. */
int cachedir_session_root(const char *state_dir, const struct profile *p,
    const char *project, const struct plan *parent, uid_t uid, gid_t gid,
    char **root, sbox_error *err);
/* What the sessions of profile p see of package caches, for sandbox.show:
 * {trees: [{path, tools, writes_to}], shared_with, scope ("project" or
 * "profile"), sharing, host_caches, limit_bytes, root};
 * host paths (writes_to, root) only when !inside. NULL on ENOMEM. */
struct json_t;
struct json_t *cachedir_describe(const char *state_dir, const struct profile *p,
    int inside);
/* Open one of sboxd's own folders (absolute; no sandbox can write there,
 * so links on the way are followed; walks below refuse them). -1 with
 * errno. */
int cachedir_open(const char *path);
/* Add what the entry name of folder dfd holds (itself included) to u.
 * Never follows links; stays on device dev. */
void cachedir_measure(int dfd, const char *name, dev_t dev,
    struct cachedir_usage *u);
/* Remove everything inside the folder name of dfd (keeping the folder
 * itself when keep is set, else removing it too), adding what was freed to
 * freed and what could not be removed to freed->skipped. */
void cachedir_clear(int dfd, const char *name, dev_t dev, int keep,
    struct cachedir_usage *freed);

#endif
