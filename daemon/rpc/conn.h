/* conn.h: client connections (internal to the daemon core). */
#ifndef SBOX_CONN_H
#define SBOX_CONN_H

#include <sys/types.h>
#include <sys/queue.h>
#include <jansson.h>

struct conn;
struct rpc_call;

/* Handles one received line (with the fds that came with it): dispatch.c. */
typedef void (*conn_line_fn)(struct conn *c, char *line, size_t len,
    int *fds, int nfds);
/* Name the function that handles each received line (at start). */
void conn_on_line(conn_line_fn fn);
/* At start: name the connections' functions to the layers under rpc/
 * (daemon/client.h). */
void conn_start(void);
/* Take over an accepted client socket (peer already checked). */
struct conn *conn_new(int fd, uid_t uid, gid_t gid, pid_t pid,
    const char *sandbox_session);
/* Close a connection now (pending calls are cancelled). */
void conn_close(struct conn *c);
/* Queue one JSON message to the client; -1 if it cannot be queued. */
int conn_send(struct conn *c, const json_t *msg);
/* Close every connection (daemon shutdown), after writing what is queued. */
void conn_close_all(void);
/* Close the longest-idle connection of uid (any uid when any_uid) to make
 * room for a new client: 0, or -1 when none is idle. */
int conn_evict_idle(uid_t uid, int any_uid);
/* From the daemon's timer: close connections idle past the idle timeout. */
void conn_tick(void);
/* Count connections of one uid. */
int conn_count_uid(uid_t uid);
/* Track a pending call on its connection (for in-flight limits and cancel). */
void conn_call_add(struct conn *c, struct rpc_call *call);
void conn_call_remove(struct conn *c, struct rpc_call *call);
/* Find a pending call by its JSON-RPC id (for $/cancelRequest). */
struct rpc_call *conn_call_find(struct conn *c, const json_t *id);
/* Requests in flight on the connection. */
int conn_inflight(const struct conn *c);

#endif
