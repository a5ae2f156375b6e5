/* init-child.h: a command's process before its exec (init-child.c). */
#ifndef SBOX_INIT_CHILD_H
#define SBOX_INIT_CHILD_H

#include "daemon/init/init-spawnreq.h"

/* Why the child could not run its command (sent through the pipe). */
struct init_exec_failure {
	int stage; /* 0 stdio, 1 cwd, 2 limits, 3 exec, 4 file guard */
	int err;
};

/* Read which signals sbox-init does not leave at their default (once,
 * before the first child). */
void init_child_sigs_scan(void);
/* In a forked child: set up, install the file guard, exec r; never
 * returns (a failure goes through pipefd). */
void init_child_run(struct init_spawnreq *r, const int *fds, int pipefd,
    int guardfd, int slave) __attribute__((noreturn));
/* In a spare: set up, install the file guard, wait on reqfd for the one
 * request it is for and run it; never returns. */
void init_child_spare(int pipefd, int guardfd, int reqfd)
    __attribute__((noreturn));

#endif
