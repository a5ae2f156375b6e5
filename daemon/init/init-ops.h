/* init-ops.h: the guard's operations (init-ops.c). */
#ifndef SBOX_INIT_OPS_H
#define SBOX_INIT_OPS_H

#include <stddef.h>
#include <sys/types.h>

#include "daemon/init/init-types.h"
#include "daemon/init/init-walk.h"

/* The mode bits the guard ever sets: never S_ISUID or S_ISGID (the
 * sandbox's filter refuses such a mode before; this is the second layer). */
#define INIT_OPS_MODE_OK 01777

/* The guard's operations, each decided on the name it reaches and
 * performed for the caller t: 0 or an errno (SV_UNDECIDED and the like
 * when it cannot decide); why gets the reason of a refusal when not NULL. */
/* open/openat/creat: the opened fd in *out. */
int init_ops_open(struct init_walk_caller *t, int dirfd, const char *path,
    int flags, mode_t mode, int *out, char *why, size_t whylen);
/* mkdir, mknod, symlink (target): create one name. */
int init_ops_create(struct init_walk_caller *t, int sc, int dirfd,
    const char *path, mode_t mode, dev_t dev, const char *target, char *why,
    size_t whylen);
/* link/linkat. */
int init_ops_link(struct init_walk_caller *t, int odfd, const char *old,
    int ndfd, const char *new, int flags);
/* rename/renameat/renameat2. */
int init_ops_rename(struct init_walk_caller *t, int odfd, const char *old,
    int ndfd, const char *new, unsigned flags);
/* truncate, chmod, fchmodat(2), fchmod: change an existing file (path
 * NULL: the file dirfd is). */
int init_ops_change(struct init_walk_caller *t, int sc, int dirfd,
    const char *path, int nofollow, mode_t mode, off_t len);

/* A reporter of the source of a rename or link that failed with e (as
 * init_reads_source). */
typedef void (*init_ops_source_fn)(struct init_sv_call *call, const char *op,
    int dirfd, const char *path, int e, int gone);
/* Set the reporter of refused sources; init-main.c sets it once at start,
 * before any call is handled. */
void init_ops_set_source(init_ops_source_fn fn);

#endif
