/* rpc.h: the method-table interface every rpc-*.c file implements.
 *
 * A handler gets the call, its (already checked) params, and either
 *   - returns 0 and sets *result (a new reference): dispatch replies;
 *   - returns -1 with err filled: dispatch turns it into a JSON-RPC error
 *     (the one place in the daemon where that happens);
 *   - returns RPC_LATER: the handler keeps `call` and finishes it later with
 *     rpc_call_reply() or rpc_call_fail(), exactly once.
 */
#ifndef SBOX_RPC_H
#define SBOX_RPC_H

#include <jansson.h>
#include <sys/types.h>
#include "protocol/error.h"
#include "protocol/params.h"

#define RPC_LATER 1

struct conn;
struct rpc_call;

typedef int (*rpc_handler)(struct rpc_call *call, json_t *params,
    json_t **result, sbox_error *err);

enum rpc_flags {
	RPC_HOST_ONLY = 1 << 0, /* refused for clients that are inside a sandbox */
	RPC_NOTIFY    = 1 << 1, /* a notification (no id, no reply) is expected */
	RPC_SANDBOX_OK = 1 << 2,/* offered to clients inside a sandbox (through
	                           their session's channel), scoped to it */
};

struct rpc_method {
	const char                *name;   /* "noun.verb" */
	const struct params_field *params; /* table ending in {NULL}; NULL = none */
	rpc_handler                fn;
	unsigned                   flags;
	const char                *summary;/* one line, for rpc.hello and docs */
};

/* Called when a pending (RPC_LATER) call's client goes away or cancels. */
typedef void (*rpc_cancel_cb)(struct rpc_call *call, void *arg);

/* The connection a call came on (NULL once that client has gone, or for a
 * NULL call: the daemon's own work). */
struct conn *rpc_call_conn(struct rpc_call *call);
/* The method name of a call. */
const char *rpc_call_method(struct rpc_call *call);
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

/* Peer credentials of a connection (SO_PEERCRED). */
uid_t conn_uid(const struct conn *c);
pid_t conn_pid(const struct conn *c);
/* The session id the client runs inside, or NULL for a host client. */
const char *conn_sandbox_session(const struct conn *c);
/* Send a JSON-RPC notification to one client (steals params). Returns -1 if
 * the client is gone or over its output limit (then it is being disconnected). */
int conn_notify(struct conn *c, const char *method, json_t *params);
/* A stable id for the connection (for ownership of commands, subscriptions). */
unsigned long conn_id(const struct conn *c);
/* Look a live connection up by id (NULL if it has gone). */
struct conn *conn_find(unsigned long id);
/* Register a function called once when the connection closes. */
typedef void (*conn_close_cb)(struct conn *c, void *arg);
void conn_on_close(struct conn *c, conn_close_cb cb, void *arg);
/* Close every connection of clients inside one session (it is closing). */
void conn_close_session(const char *session);
/* Bytes queued to the client and not yet written (for backpressure). */
size_t conn_pending_output(const struct conn *c);

/* Method tables, one per rpc-*.c file; each ends with {NULL}. */
extern const struct rpc_method rpc_rpc_methods[];     /* rpc-rpc.c: rpc.* */
extern const struct rpc_method rpc_daemon_methods[];  /* rpc-daemon.c: daemon.* */
extern const struct rpc_method rpc_events_methods[];  /* rpc-events.c: events.* */
extern const struct rpc_method rpc_sandbox_methods[]; /* rpc-sandbox.c: sandbox.* */
extern const struct rpc_method rpc_session_methods[]; /* rpc-session.c: session.* */
extern const struct rpc_method rpc_provider_methods[]; /* rpc-provider.c: session.status, choices */
struct config;
/* The config's providers as sandbox.show lists them (rpc-provider.c). */
json_t *rpc_provider_list(const struct config *cfg);
extern const struct rpc_method rpc_command_methods[]; /* rpc-command.c: command.* */
extern const struct rpc_method rpc_file_methods[];    /* rpc-file.c: file.* */
extern const struct rpc_method rpc_approval_methods[];/* rpc-approval.c: approval.*, audit.* */
extern const struct rpc_method rpc_cache_methods[];   /* rpc-cache.c: cache.* */

/* Find a method by name across all tables (NULL if unknown). */
const struct rpc_method *dispatch_find(const char *name);
/* Call fn(method, arg) for every method of every table. */
void dispatch_each(void (*fn)(const struct rpc_method *m, void *arg), void *arg);

#endif
