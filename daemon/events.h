/* events.h: the daemon's event bus. Features publish; subscribers (clients
 * that called events.subscribe) get `events.event` notifications, and the
 * daemon's own rooms, subscribed with events_on, are called at once. A room
 * that only tells a room above it something (nothing to answer) tells it
 * here rather than through a hook (daemon/hooks.h): events_tell, which
 * reaches only the daemon's own subscribers (not stored, not sent). */
#ifndef SBOX_EVENTS_H
#define SBOX_EVENTS_H

#include <jansson.h>

#include "protocol/error.h"

struct conn;

/* Publish an event on a topic ("host.refused", "approval.requested", ...);
 * steals data. It is recorded in the store (batched) and sent to every
 * subscriber whose topic filter matches. */
void events_publish(const char *topic, const char *session, json_t *data);
/* A subscriber inside the daemon: called at once, in the order of
 * events_on, with the event's topic, session (or NULL) and data (borrowed:
 * valid during the call). */
typedef void (*events_fn)(const char *topic, const char *session,
    const json_t *data, void *arg);
/* Call fn for every event on topic (exact name) published or told from now
 * on; 0, or -1 when the daemon's subscribers are full (EVENTS_ON_MAX). */
#define EVENTS_ON_MAX 32
int events_on(const char *topic, events_fn fn, void *arg);
/* Tell the daemon's own subscribers of topic (events_on) something that is
 * theirs only: not stored, not sent to any client. Steals data (NULL: {}). */
void events_tell(const char *topic, const char *session, json_t *data);

/* Subscribe a connection to topics (NULL or empty = all); returns a sub id. */
long events_subscribe(struct conn *c, json_t *topics);
/* events.subscribe with since: subscribe, answer the call, then replay the
 * stored events with seq > since (at most 1000, the newest) before any live
 * one. Returns RPC_LATER (answered), or -1 with err. */
struct rpc_call;
int events_subscribe_since(struct rpc_call *call, json_t *topics,
    long long since, sbox_error *err);
/* The daemon stops cleanly: the next one goes on from the last seq. */
void events_close(void);
/* The database was re-created: reserve seqs in the new one. */
void events_store_reopened(void);
/* The seq of the last event published (0 when none ever was). */
long long events_last_seq(void);
/* Drop one subscription of a connection (0) or report it unknown (-1). */
int events_unsubscribe(struct conn *c, long id);
/* Number of subscribers currently connected that match a topic. */
int events_subscribers(const char *topic);
/* The same, counting only clients that are not inside a sandbox and whose
 * subscription names the topic (not "every topic" or "*"). */
int events_host_subscribers(const char *topic);

#endif
