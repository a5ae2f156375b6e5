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
#include "daemon/rpc-call.h"
#include "protocol/error.h"
#include "protocol/params.h"

struct conn;
struct rpc_call;

typedef int (*rpc_handler)(struct rpc_call *call, json_t *params,
    json_t **result, sbox_error *err);

enum rpc_flags {
	RPC_HOST_ONLY = 1 << 0, /* refused for clients that are inside a sandbox */
	RPC_NOTIFY    = 1 << 1, /* a notification (no id, no reply) is expected */
	RPC_SANDBOX_OK = 1 << 2,/* offered to clients inside a sandbox (through
	                           their session's channel), scoped to it */
	RPC_STORE_WAIT = 1 << 3,/* a handler that fails with sbox.StoreBusy
	                           before doing anything is run again from a
	                           timer while the store stays locked (up to
	                           DISPATCH_STORE_WAIT_MS), not failed */
};

struct rpc_method {
	const char                *name;   /* "noun.verb" */
	const struct params_field *params; /* table ending in {NULL}; NULL = none */
	rpc_handler                fn;
	unsigned                   flags;
	const char                *summary;/* one line, for rpc.hello and docs */
};

/* The calls' own functions (rpc_call_reply, rpc_call_fail, ...) are in
 * daemon/rpc-call.h: the layers under rpc/ answer calls too. */

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

/* dispatch.c: handle one received line (with the fds that came with it). */
void dispatch_line(struct conn *c, char *line, size_t len, int *fds, int nfds);
/* dispatch.c, at start: handle every connection's lines, and answer the
 * calls of the layers under rpc/ (daemon/rpc-call.h). */
void dispatch_start(void);
/* Find a method by name across all tables (NULL if unknown). */
const struct rpc_method *dispatch_find(const char *name);
/* Call fn(method, arg) for every method of every table. */
void dispatch_each(void (*fn)(const struct rpc_method *m, void *arg), void *arg);

#endif
