/* rpc-rpc.c: rpc.hello, rpc.ping and the $/cancelRequest notification. */
#include <time.h>

#include "daemon/rpc/rpc.h"
#include "daemon/sboxd.h"
#include "protocol/envelope.h"

/* Append one method's name and summary to an array. */
static void
rpc_rpc_list_one(const struct rpc_method *m, void *arg)
{
	json_array_append_new(arg, json_pack("{s:s, s:s, s:b}", "name", m->name,
	    "summary", m->summary ? m->summary : "",
	    "notification", (m->flags & RPC_NOTIFY) != 0));
}

/* rpc.hello {protocol, client?}: check versions, list methods and limits. */
static int
rpc_rpc_hello(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	json_int_t proto = json_integer_value(json_object_get(params, "protocol"));
	json_t *methods = NULL;

	(void)call;
	if (proto != PROTOCOL_VERSION)
		return error_set_field(err, E_PROTOCOL_VERSION, "protocol",
		    "client speaks protocol %lld, sboxd speaks %d; use an sbox "
		    "client of the same version", (long long)proto,
		    PROTOCOL_VERSION);
	/* the list (4.6 kB) only for a client that reads it: the CLI says
	 * hello on every command and asks without it */
	if (!json_is_false(json_object_get(params, "methods"))) {
		methods = json_array();
		dispatch_each(rpc_rpc_list_one, methods);
	}
	*result = json_pack("{s:i, s:s, s:s, s:o*, s:{s:I, s:i, s:i, s:i, s:I, s:i, s:i, "
	    "s:i}}",
	    "protocol", PROTOCOL_VERSION, "server", "sboxd",
	    "version", SBOX_VERSION, "methods", methods, "limits",
	    "max_line_bytes", (json_int_t)sboxd.lim.max_line,
	    "max_connections", sboxd.lim.max_conns,
	    "max_connections_per_uid", sboxd.lim.max_conns_per_uid,
	    "max_inflight_per_connection", sboxd.lim.max_inflight,
	    "max_output_queue_bytes", (json_int_t)sboxd.lim.max_output_queue,
	    "proxy_max_connections", sboxd.lim.proxy_max_conns,
	    "max_sessions", sboxd.lim.max_sessions,
	    "max_sessions_per_session", sboxd.lim.max_children);
	return 0;
}

/* rpc.ping: answer at once. */
static int
rpc_rpc_ping(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	struct timespec ts;

	(void)call; (void)params; (void)err;
	clock_gettime(CLOCK_REALTIME, &ts);
	*result = json_pack("{s:b, s:I}", "pong", 1, "time_ms",
	    (json_int_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	return 0;
}

/* $/cancelRequest is handled in dispatch; this entry documents it. */
static int
rpc_rpc_cancel(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	(void)call; (void)params; (void)result;
	return error_set(err, E_INVALID_REQUEST,
	    "$/cancelRequest is a notification");
}

static const struct params_field rpc_rpc_hello_params[] = {
	{ "protocol", PARAMS_INT, 1, 0 },
	{ "client", PARAMS_STRING, 0, 256 },
	{ "methods", PARAMS_BOOL, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_rpc_cancel_params[] = {
	{ "id", PARAMS_ANY, 1, 0 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_rpc_methods[] = {
	{ "rpc.hello", rpc_rpc_hello_params, rpc_rpc_hello, RPC_SANDBOX_OK,
	  "check the protocol version; list methods and limits" },
	{ "rpc.ping", NULL, rpc_rpc_ping, RPC_SANDBOX_OK, "answer at once" },
	{ "$/cancelRequest", rpc_rpc_cancel_params, rpc_rpc_cancel,
	  RPC_NOTIFY | RPC_SANDBOX_OK,
	  "notification: cancel a pending request of this connection" },
	{ NULL, NULL, NULL, 0, NULL },
};
