/* init-tty.h: a command's terminal (init-tty.c). */
#ifndef SBOX_INIT_TTY_H
#define SBOX_INIT_TTY_H

#include <sys/types.h>

/* init-tty.c: a command's terminal, in the container's own devpts. */
/* A new pty pair sized rows x cols (close-on-exec, O_NOCTTY); 0 or errno. */
int init_tty_open(unsigned short rows, unsigned short cols, int *master,
    int *slave);
/* In a forked child after setsid(): slave becomes the controlling terminal
 * and fds 0, 1, 2; 0 or an errno. */
int init_tty_child(int slave);
/* For the file guard: what /dev/tty means for process tgid (its own
 * controlling terminal) opened with flags; the fd or -errno. */
int init_tty_open_ctty(pid_t tgid, int flags);

#endif
