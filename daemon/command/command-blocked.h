/* command-blocked.h: what the sandbox refused, told as it happens
 * (command-blocked.c): command.blocked to the client that runs the
 * command, and the hosts the proxy allowed but could not reach. */
#ifndef SBOX_COMMAND_BLOCKED_H
#define SBOX_COMMAND_BLOCKED_H

#include "daemon/command/command-state.h"

/* A new entry of a command's blocked.KIND ("files", "hosts",
 * "unreachable"): command.blocked to the client that runs it, at once (on a
 * relayed terminal, once the command's line has ended). */
void command_blocked_notify(struct command *c, const char *kind,
    json_t *entry);
/* Tell the refusals held for c's terminal now (its end, before the
 * answer). */
void command_blocked_flush(struct command *c);
/* Free what c holds for its refusals. */
void command_blocked_free(struct command *c);
/* An allowed host the proxy could not reach (DNS failure, connection
 * refused, timeout): note it once on the session's running commands, in
 * blocked.unreachable {host, port, cause}. */
void command_note_unreachable(struct session *s, const char *host, int port,
    const char *cause);

#endif
