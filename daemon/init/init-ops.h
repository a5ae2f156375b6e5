/* init-ops.h: the guard's operations (init-ops.c), and sbox-init's own writes. */
#ifndef SBOX_INIT_OPS_H
#define SBOX_INIT_OPS_H

#include <stddef.h>
#include <sys/types.h>

#include "daemon/init/init-types.h"

/* init-ops.c: sbox-init's own writes, decided like a command's: an fd
 * (open) or 0 (mkdir), or -errno; why gets the guard's reason when it
 * refused. */
int init_ops_file_open(const char *path, int flags, mode_t mode,
    char *why, size_t whylen);
int init_ops_file_mkdir(const char *path, mode_t mode, char *why,
    size_t whylen);

/* init-ops.c: perform one notified call for its caller: 0 or an errno; an
 * opened file is returned in *fd (then the answer is that fd). */
int init_ops_call(struct init_sv_call *call, int *fd);
/* Ask the guard about op on (dir, name) held by fd: 0 or the refusal's
 * errno (reported; why gets the reason when not NULL). */
int init_ops_decide(struct init_walk_caller *t, enum guard_op op, int fd,
    const char *dir, const char *name, char *why, size_t whylen);

#endif
