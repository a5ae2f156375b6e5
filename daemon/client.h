/* client.h: a client connection as the layers under rpc/ see it: an opaque
 * handle with a stable id, notifications to it, a function called when it
 * closes. rpc/conn.c holds the connections and names its functions at start
 * (client_set_ops); everything here goes through them. */
#ifndef SBOX_CLIENT_H
#define SBOX_CLIENT_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#include "daemon/hooks.h"

/* client_close_cb and the table rpc/conn.c fills (struct client_ops) are
 * in daemon/hooks.h, with every upward hook. */
/* Name the functions that hold the connections (rpc/conn.c, at start). */
void client_set_ops(const struct client_ops *ops);

/* Look a live connection up by id (NULL if it has gone). */
struct conn *client_find(unsigned long id);
/* A stable id for the connection (for ownership of commands, subscriptions). */
unsigned long client_id(const struct conn *c);
/* The session id the client runs inside, or NULL for a host client. */
const char *client_sandbox_session(const struct conn *c);
/* Send a JSON-RPC notification to one client (steals params; c may be
 * NULL). Returns -1 if the client is gone or over its output limit (then it
 * is being disconnected). */
int client_notify(struct conn *c, const char *method, json_t *params);
/* Bytes queued to the client and not yet written (for backpressure). */
size_t client_pending_output(const struct conn *c);
/* Register a function called once when the connection closes. */
void client_on_close(struct conn *c, client_close_cb cb, void *arg);
/* Take over a socket as a client connection (a sandboxed command's channel
 * to sboxd: sandbox_session names its session); NULL on failure. */
struct conn *client_open(int fd, uid_t uid, gid_t gid, pid_t pid,
    const char *sandbox_session);
/* Close every connection of clients inside one session (it is closing). */
void client_close_session(const char *session);
/* Send now what was made for the client while its lines are handled (the
 * replies to its earlier requests: before a command of its runs); c may
 * be NULL. */
void client_flush(struct conn *c);

#endif
