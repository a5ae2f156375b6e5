/* command-follow.h: other clients following a command (command-follow.c):
 * command.follow, and the notifications that tie a request to its command
 * (command.started), carry its output and tell its end. */
#ifndef SBOX_COMMAND_FOLLOW_H
#define SBOX_COMMAND_FOLLOW_H

#include "daemon/command/command-state.h"

/* command.follow; *result is never set (the call is answered inside, then
 * the kept output is sent): RPC_LATER or -1. */
int command_follow(struct command *c, struct rpc_call *call, json_t **result,
    sbox_error *err);
/* command.started {request, command, session} to the requesting client. */
void command_follow_started(const struct command *c, struct rpc_call *call);
/* A chunk of output (stderr when err_stream) to the followers. */
void command_follow_chunk(struct command *c, int err_stream, const void *data,
    size_t n);
/* The command is over: command.exited to the followers, who are dropped. */
void command_follow_end(struct command *c);
/* How a command ended: {command, session, state, exit_code, signal,
 * timed_out, duration_ms}. */
json_t *command_follow_exit_json(const struct command *c);

#endif
