/* rpc-call.c: a client's call as the layers under rpc/ see it: each
 * function hands the call to what rpc/dispatch.c named at start. */
#include "daemon/rpc-call.h"

#include <stddef.h>

static const struct rpc_call_ops *rpc_call_ops;

/* Name the functions that handle calls (rpc/dispatch.c, at start). */
void
rpc_call_set_ops(const struct rpc_call_ops *ops)
{
	rpc_call_ops = ops;
}

/* The connection a call came on (NULL for no call: the daemon's own work). */
struct conn *
rpc_call_conn(struct rpc_call *call)
{
	return call != NULL ? rpc_call_ops->conn(call) : NULL;
}

/* The method name of a call. */
const char *
rpc_call_method(struct rpc_call *call)
{
	return rpc_call_ops->method(call);
}

/* The JSON-RPC id of a call. */
const json_t *
rpc_call_id(const struct rpc_call *call)
{
	return rpc_call_ops->id(call);
}

/* Number of fds the client passed with this request. */
int
rpc_call_nfds(struct rpc_call *call)
{
	return rpc_call_ops->nfds(call);
}

/* Hand over one passed fd (the call no longer closes it). */
int
rpc_call_take_fd(struct rpc_call *call, int i)
{
	return rpc_call_ops->take_fd(call, i);
}

/* Look at one passed fd without taking it (-1 when there is none). */
int
rpc_call_peek_fd(struct rpc_call *call, int i)
{
	return rpc_call_ops->peek_fd(call, i);
}

/* Register what to do if the call is cancelled or its client disconnects. */
void
rpc_call_on_cancel(struct rpc_call *call, rpc_cancel_cb cb, void *arg)
{
	rpc_call_ops->on_cancel(call, cb, arg);
}

/* Finish a pending call with a result; frees the call. */
void
rpc_call_reply(struct rpc_call *call, json_t *result)
{
	rpc_call_ops->reply(call, result);
}

/* Finish a pending call with an error; frees the call. */
void
rpc_call_fail(struct rpc_call *call, const sbox_error *err)
{
	rpc_call_ops->fail(call, err);
}

/* A call lost its client: cancel it. */
void
rpc_call_orphan(struct rpc_call *call)
{
	rpc_call_ops->orphan(call);
}
