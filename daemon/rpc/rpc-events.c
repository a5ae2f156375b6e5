/* rpc-events.c: events.subscribe and events.unsubscribe. */
#include "daemon/events.h"
#include "daemon/rpc/rpc.h"

/* events.subscribe {topics?}: start receiving events.event notifications. */
static int
rpc_events_subscribe(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	json_t *topics = params ? json_object_get(params, "topics") : NULL;
	json_t *since = params ? json_object_get(params, "since") : NULL;
	long id;

	if (since != NULL)
		return events_subscribe_since(call, topics,
		    json_integer_value(since), err);
	if ((id = events_subscribe(rpc_call_conn(call), topics)) < 0)
		return error_nomem(err);
	*result = json_pack("{s:I, s:i, s:i, s:I}", "subscription",
	    (json_int_t)id, "replayed", 0, "missed", 0, "seq",
	    (json_int_t)events_last_seq());
	return 0;
}

/* events.unsubscribe {subscription}: stop one subscription. */
static int
rpc_events_unsubscribe(struct rpc_call *call, json_t *params, json_t **result,
    sbox_error *err)
{
	json_int_t id = json_integer_value(json_object_get(params, "subscription"));

	if (events_unsubscribe(rpc_call_conn(call), (long)id) == -1)
		return error_set_field(err, E_NOT_FOUND, "subscription",
		    "no subscription %lld on this connection", (long long)id);
	*result = json_pack("{s:b}", "unsubscribed", 1);
	return 0;
}

static const struct params_field rpc_events_subscribe_params[] = {
	{ "topics", PARAMS_STRING_ARRAY, 0, 64 },
	{ "since", PARAMS_INT, 0, 0 },
	{ NULL, 0, 0, 0 },
};
static const struct params_field rpc_events_unsubscribe_params[] = {
	{ "subscription", PARAMS_INT, 1, 0 },
	{ NULL, 0, 0, 0 },
};

const struct rpc_method rpc_events_methods[] = {
	{ "events.subscribe", rpc_events_subscribe_params, rpc_events_subscribe, 0,
	  "receive events.event notifications for some or all topics" },
	{ "events.unsubscribe", rpc_events_unsubscribe_params,
	  rpc_events_unsubscribe, 0, "stop one subscription" },
	{ NULL, NULL, NULL, 0, NULL },
};
