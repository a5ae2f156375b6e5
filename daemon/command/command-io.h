/* command-io.h: a command's stdio: fds passed by the client, pipes streamed
 * as command.output notifications, kept output, backpressure, stdin. */
#ifndef SBOX_COMMAND_IO_H
#define SBOX_COMMAND_IO_H

#include "daemon/command/command-state.h"

/* Set up the command's stdio for its mode (on a terminal only its kept
 * output: command_tty_setup makes the relay); fds[0..2] get the child's ends
 * (the caller passes them to the spawn, then closes them). In fds mode
 * they are given (taken, set to -1) or else the call's. */
int command_io_setup(struct command *c, struct rpc_call *call, int *given,
    int want_stdin, int fds[3], sbox_error *err);
/* Close the child's ends after the spawn. */
void command_io_close_child_fds(int fds[3]);
/* Close our end of the command's stdin. */
void command_io_close_inputs(struct command *c);
/* True while output copied to the client's own fds is still queued. */
int command_io_forward_pending(const struct command *c);
/* The command is over: close our copies of the client's fds (after what is
 * queued for them is written) so that their readers see EOF. */
void command_io_close_forwards(struct command *c);
/* Stop reading the command's output (it is over). */
void command_io_close_outputs(struct command *c);
/* Release every stdio resource. */
void command_io_free(struct command *c);
/* A finished command: close its pipes, keep its output. */
void command_io_release(struct command *c);
/* Read callbacks of an output stream (command-tty.c reads the master with
 * them). */
void command_io_read_cb(struct bufferevent *bev, void *arg);
void command_io_event_cb(struct bufferevent *bev, short what, void *arg);
/* Copy a stream's output to fd (a client's own; taken) as it comes. */
int command_io_forward_to(struct command *c, struct command_stream *st,
    int fd, sbox_error *err);
/* Open a client's fd again as a new, non-blocking description of the same
 * file (its own flags stay untouched); -1 when it cannot be. */
int command_io_reopen(int client_fd, int flags);

/* stdio "fds" inside a sandbox: refuse a terminal or another device among
 * the client's descriptors. */
int command_io_check_fds(const struct command *c, const int fds[3],
    sbox_error *err);
/* Write to a pipes-mode command's stdin; eof closes it. */
int command_io_write(struct command *c, const void *data, size_t n, int eof,
    sbox_error *err);
/* Output kept for a command: {stdout, stderr (base64), output_truncated,
 * output_dropped (bytes dropped for the output budgets)}. */
json_t *command_output(const struct command *c);

#endif
