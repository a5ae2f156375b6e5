/* session-client.c: a session that closes with the connection that created
 * it (session.create's close_with_client): when that connection goes away
 * (its client exited, was killed, or closed it), the session is closed and
 * recorded as ended_with_client. Only the creating connection is bound: no
 * client can tie another's session to itself. */
#include "daemon/session/session-internal.h"
#include "daemon/session/session.h"

#include <stdlib.h>
#include <string.h>

#include "daemon/client.h"
#include "daemon/log.h"
#include "daemon/rpc-call.h"

/* What a connection's close callback holds: the session it closes. */
struct session_client_tie {
	char          id[17];
	unsigned long conn;
};

/* The creating connection closed: close its session, if that session is
 * still live and still bound to exactly this connection. */
static void
session_client_gone(struct conn *c, void *arg)
{
	struct session_client_tie *t = arg;
	struct session *s = session_find(t->id, NULL);

	(void)c;
	if (s != NULL && s->with_client != 0 && s->with_client == t->conn &&
	    s->state < SESSION_CLOSING) {
		log_info("session %s: the client that created it went away",
		    s->id);
		session_close_now(s, SESSION_ENDED_WITH_CLIENT, 0);
	}
	free(t);
}

/* Bind s to the connection of call: it closes when that connection does. */
int
session_client_bind(struct session *s, struct rpc_call *call, sbox_error *err)
{
	struct conn *c = call != NULL ? rpc_call_conn(call) : NULL;
	struct session_client_tie *t;

	if (c == NULL)
		return error_set_field(err, E_INVALID_PARAMS, "close_with_client",
		    "close_with_client needs a client connection");
	if ((t = calloc(1, sizeof *t)) == NULL)
		return error_nomem(err);
	memcpy(t->id, s->id, sizeof t->id);
	t->conn = client_id(c);
	s->with_client = t->conn;
	client_on_close(c, session_client_gone, t);
	return 0;
}
