/* init-reads.h: the read reporter (init-reads.c). */
#ifndef SBOX_INIT_READS_H
#define SBOX_INIT_READS_H

#include "daemon/init/init-types.h"

/* init-reads.c: the read reporter (which read-only opens are notified:
 * policy/guard-filter.c). Handle a notified read-only open: -1 when call is not one (the guard
 * handles it), SV_ANSWERED when answered here, else 0 or an errno with an
 * opened file in *fd, as init_dispatch_call. */
int init_reads_call(struct init_sv_call *call, int *fd);
/* A rename or link of (dirfd, path) failed with e: report it when a hidden
 * path refused it (the source is hidden and either gone: ENOENT, or a
 * stand-in: EBUSY). */
void init_reads_source(struct init_sv_call *call, const char *op, int dirfd,
    const char *path, int e, int gone);
struct guard_rule;
/* The hidden rule that decides the absolute path (a refusal the
 * stand-ins saw), or NULL. */
const struct guard_rule *init_reads_rule(const char *path);

#endif
