/* init-ops.h: the guard's operations (init-ops.c), and sbox-init's own
 * writes. */
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

/* A reporter of the source of a rename or link that failed with e (as
 * init_reads_source). */
typedef void (*init_ops_source_fn)(struct init_sv_call *call, const char *op,
    int dirfd, const char *path, int e, int gone);
/* Set the reporter of refused sources; init-main.c sets it once at start,
 * before any call is handled. */
void init_ops_set_source(init_ops_source_fn fn);

#endif
