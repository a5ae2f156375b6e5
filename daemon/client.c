/* client.c: a client connection as the layers under rpc/ see it: each
 * function hands over to what rpc/conn.c named at start. */
#include "daemon/client.h"

static const struct client_ops *client_ops;

/* Name the functions that hold the connections (rpc/conn.c, at start). */
void
client_set_ops(const struct client_ops *ops)
{
	client_ops = ops;
}

/* Look a live connection up by id. */
struct conn *
client_find(unsigned long id)
{
	return client_ops->find(id);
}

/* A stable id for the connection. */
unsigned long
client_id(const struct conn *c)
{
	return client_ops->id(c);
}

/* The session a client runs inside, or NULL for a host client. */
const char *
client_sandbox_session(const struct conn *c)
{
	return client_ops->sandbox_session(c);
}

/* Send a JSON-RPC notification to one client (steals params). */
int
client_notify(struct conn *c, const char *method, json_t *params)
{
	return client_ops->notify(c, method, params);
}

/* Bytes queued to the client and not yet written. */
size_t
client_pending_output(const struct conn *c)
{
	return client_ops->pending_output(c);
}

/* Register a function called once when the connection closes. */
void
client_on_close(struct conn *c, client_close_cb cb, void *arg)
{
	client_ops->on_close(c, cb, arg);
}

/* Take over a socket as a client connection. */
struct conn *
client_open(int fd, uid_t uid, gid_t gid, pid_t pid,
    const char *sandbox_session)
{
	return client_ops->open(fd, uid, gid, pid, sandbox_session);
}

/* Close every connection of clients inside one session. */
void
client_close_session(const char *session)
{
	client_ops->close_session(session);
}

/* Send now what was kept for the client while its lines are handled. */
void
client_flush(struct conn *c)
{
	if (c != NULL && client_ops->flush != NULL)
		client_ops->flush(c);
}
