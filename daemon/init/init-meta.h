/* init-meta.h: unlink, rmdir, chown, utime... (init-meta.c). */
#ifndef SBOX_INIT_META_H
#define SBOX_INIT_META_H

#include "daemon/init/init-types.h"

/* init-meta.c: unlink, unlinkat, rmdir, the chown, utime and removexattr
 * families: decided on the resolved name (an fd's: on its file, read back
 * and checked) and performed here on the held folder or descriptor. 0 or
 * an errno, or SV_UNDECIDED. */
int init_meta_call(struct init_sv_call *call, struct init_walk_caller *t);

#endif
