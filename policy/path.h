/* path.h: absolute path spelling for policy/: `~` expansion, normalisation
 * and "is this path inside that folder" by whole components. No I/O. */
#ifndef SBOX_POLICY_PATH_H
#define SBOX_POLICY_PATH_H

#include "protocol/error.h"

/* Expand a leading `~` or `~/` with home, then normalise (see path_normalize).
 * Relative paths, `~user` and `..` components are refused (E_CONFIG, field).
 * Returns a malloc'd path or NULL. */
char *path_expand(const char *path, const char *home, const char *field,
    sbox_error *err);
/* Normalise an absolute path: collapse `//`, drop `.` components and any
 * trailing slash ("/" stays "/"). Refuses relative paths and `..`. */
char *path_normalize(const char *path, const char *field, sbox_error *err);
/* True when path equals dir or lies below it (component-wise). */
int path_is_under(const char *path, const char *dir);
/* Number of components of an absolute normalised path ("/" is 0). */
int path_depth(const char *path);
/* rel resolved against the absolute folder base (rel may be absolute), with
 * "." and ".." handled lexically; malloc'd, NULL when invalid or ENOMEM. */
char *path_resolve(const char *base, const char *rel);
/* dir + "/" + name as a malloc'd string (no normalisation), NULL on ENOMEM. */
char *path_join(const char *dir, const char *name);

#endif
