/* container-launch.h: the process that becomes bwrap (see
 * container-launch.c). */
#ifndef SBOX_CONTAINER_LAUNCH_H
#define SBOX_CONTAINER_LAUNCH_H

#include <spawn.h>
#include <sys/types.h>
#include "daemon/container/container-bind.h"
#include "protocol/error.h"

/* In the process that becomes bwrap, as root: a private mount namespace
 * pruned of what bwrap (at path keep) does not need, an empty /tmp for the
 * trees. -1 with errno. */
int container_launch_stage(const char *keep);
/* In the forked child before exec, as root: stage the trees (in the
 * namespace container_launch_stage makes; made now unless staged) and
 * become run_uid. -1 with errno. */
int container_launch_child(const struct container_binds *b, const char *keep,
    int staged);
/* In the process that becomes bwrap (a fork of sboxd, or a spare made
 * ahead): stage the binds, put src at fds 0-5 and the held binds at
 * CFD_BINDS + i, exec bwrap. Never returns. */
void container_launch_exec(const char *bwrap, char *const *argv,
    const int src[6], const struct container_binds *b, int staged);
/* The same for binds that are not staged and no cgroup to join, without a
 * fork (posix_spawn); the pid, or -1 with err. */
pid_t container_launch_spawn(const char *bwrap, char *const *argv,
    const int src[6], const struct container_binds *b, sbox_error *err);
/* Signal attributes of a posix_spawn child: all at their defaults (glibc's
 * own two included), nothing blocked. 0 or an errno. */
int container_launch_sigattr(posix_spawnattr_t *at);

#endif
