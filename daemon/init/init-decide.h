/* init-decide.h: the file guard's one question (init-decide.c). */
#ifndef SBOX_INIT_DECIDE_H
#define SBOX_INIT_DECIDE_H

#include <stddef.h>

#include "daemon/init/init-types.h"

/* Ask the guard about op on (dir, name) held by fd: 0 or the refusal's
 * errno (reported; why gets the reason when not NULL). */
int init_decide(struct init_walk_caller *t, enum guard_op op, int fd,
    const char *dir, const char *name, char *why, size_t whylen);

#endif
