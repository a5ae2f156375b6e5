/* command-io.h: a command's stdio: fds passed by the client, pipes streamed
 * as command.output notifications, kept output, backpressure, stdin. */
#ifndef SBOX_COMMAND_IO_H
#define SBOX_COMMAND_IO_H

#include "daemon/command.h"

/* Set up the command's stdio for its mode; fds[0..2] get the child's ends
 * (the caller passes them to the spawn, then closes them). */
int command_io_setup(struct command *c, struct rpc_call *call, int want_stdin,
    int fds[3], sbox_error *err);
/* Close the child's ends after the spawn. */
void command_io_close_child_fds(int fds[3]);
/* Close our end of the command's stdin. */
void command_io_close_inputs(struct command *c);
/* Stop reading the command's output (it is over). */
void command_io_close_outputs(struct command *c);
/* Release every stdio resource. */
void command_io_free(struct command *c);
/* Finish when the exit is known and the streams are at EOF (command.c). */
void command_maybe_finish(struct command *c);

#endif
