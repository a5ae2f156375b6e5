/* rpc-call.h: a client's call as the layers under rpc/ see it: an opaque
 * handle they answer once, later (rpc_call_reply or rpc_call_fail), with
 * the fds that came with it and what to do if it is cancelled. The calls
 * are made and answered by rpc/dispatch.c, which names its functions at
 * start (rpc_call_set_ops); everything here goes through them. */
#ifndef SBOX_RPC_CALL_H
#define SBOX_RPC_CALL_H

#include <jansson.h>

#include "daemon/hooks.h"
#include "protocol/error.h"

/* A handler (or the function it hands the call to) keeps the call and
 * answers it later, exactly once. */
#define RPC_LATER 1

/* rpc_cancel_cb and the table rpc/dispatch.c fills (struct rpc_call_ops)
 * are in daemon/hooks.h, with every upward hook. */
/* Name the functions that handle calls (rpc/dispatch.c, at start). */
void rpc_call_set_ops(const struct rpc_call_ops *ops);

/* The connection a call came on (NULL once that client has gone, or for a
 * NULL call: the daemon's own work). */
struct conn *rpc_call_conn(struct rpc_call *call);
/* The method name of a call. */
const char *rpc_call_method(struct rpc_call *call);
/* The JSON-RPC id of a call (NULL for a notification). */
const json_t *rpc_call_id(const struct rpc_call *call);
/* File descriptors the client passed with this request (SCM_RIGHTS); the call
 * owns them until rpc_call_take_fd() hands one over (then -1 is left). */
int rpc_call_nfds(struct rpc_call *call);
int rpc_call_take_fd(struct rpc_call *call, int i);
/* One passed fd, still owned by the call (-1 when there is none). */
int rpc_call_peek_fd(struct rpc_call *call, int i);
/* Register what to do if the call is cancelled or its client disconnects. */
void rpc_call_on_cancel(struct rpc_call *call, rpc_cancel_cb cb, void *arg);
/* Finish a pending call with a result (steals the reference); frees the call. */
void rpc_call_reply(struct rpc_call *call, json_t *result);
/* Finish a pending call with an error; frees the call. */
void rpc_call_fail(struct rpc_call *call, const sbox_error *err);
/* A call lost its client (its connection closed): cancel it. */
void rpc_call_orphan(struct rpc_call *call);

#endif
