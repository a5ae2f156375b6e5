/* init-killtree.h: ending a command's processes (init-killtree.c). */
#ifndef SBOX_INIT_KILLTREE_H
#define SBOX_INIT_KILLTREE_H

#include <sys/types.h>

/* Signal every process a command started: its group, its descendants and
 * their sessions and groups (init-killtree.c). */
void init_killtree(pid_t root, int sig);

#endif
