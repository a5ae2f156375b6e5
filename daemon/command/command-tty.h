/* command-tty.h: a command on a terminal of its sandbox (command-tty.c):
 * the relay of the pty's master, typing on it, its window size. */
#ifndef SBOX_COMMAND_TTY_H
#define SBOX_COMMAND_TTY_H

#include "daemon/command/command-state.h"

/* Set up the relay for the command's mode (before the spawn). */
int command_tty_setup(struct command *c, struct rpc_call *call,
    sbox_error *err);
/* The pty's master came from sbox-init (taken). */
void command_tty_master(struct command *c, int master);
/* Bytes for the terminal (command.write); eof is refused. */
int command_tty_write(struct command *c, const void *data, size_t n, int eof,
    sbox_error *err);
/* Change the window size of a command's terminal. */
int command_tty_resize(struct command *c, const struct ttysize *size,
    sbox_error *err);
/* Release the relay. */
void command_tty_free(struct command *c);

#endif
