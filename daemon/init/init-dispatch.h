/* init-dispatch.h: performing a notified call, and sbox-init's own writes
 * (init-dispatch.c). */
#ifndef SBOX_INIT_DISPATCH_H
#define SBOX_INIT_DISPATCH_H

#include <stddef.h>
#include <sys/types.h>

#include "daemon/init/init-types.h"

/* Perform one notified call for its caller: 0 or an errno; an opened file
 * is returned in *fd (then the answer is that fd). */
int init_dispatch_call(struct init_sv_call *call, int *fd);
/* sbox-init's own writes, decided like a command's: an fd (open) or 0
 * (mkdir), or -errno; why gets the guard's reason when it refused. */
int init_dispatch_file_open(const char *path, int flags, mode_t mode,
    char *why, size_t whylen);
int init_dispatch_file_mkdir(const char *path, mode_t mode, char *why,
    size_t whylen);

#endif
