/* exclude.h: a program started inside a sandbox that matches the profile's
 * `exclude` patterns runs outside it, through approval (see exclude.c). */
#ifndef SBOX_EXCLUDE_DAEMON_H
#define SBOX_EXCLUDE_DAEMON_H

#include "daemon/container/container.h"

/* The container's on_exclude callback (arg: the session). */
void exclude_from_inside(struct container *ct, struct container_exclude *x,
    void *arg);

#endif
