/* events.c: the event bus: publish to subscribers, record in the store. */
#include "daemon/events.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

#include "daemon/log.h"
#include "daemon/client.h"
#include "daemon/rpc-call.h"
#include "daemon/sboxd.h"
#include "store/store.h"

struct events_sub {
	LIST_ENTRY(events_sub) entry;
	long           id;
	unsigned long  conn;    /* connection id */
	json_t        *topics;  /* array of topic names/patterns, or NULL = all */
};

#define EVENTS_REPLAY_MAX  1000  /* events one subscribe replays at most */
#define EVENTS_REPLAY_PAGE 500
#define EVENTS_RESERVE     1000  /* seqs taken ahead in the store */

static LIST_HEAD(, events_sub) events_subs = LIST_HEAD_INITIALIZER(events_subs);
static long events_next_sub = 1;
static long long events_seq;      /* the last event's seq (= its store id) */
static long long events_reserved; /* seqs up to this are taken in the store */
static int events_seq_loaded;

/* An event's time as events.event gives it (UTC, to the second). */
static void
events_time(long long ms, char *buf, size_t len)
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The seq of the last event published: seqs go on from the store's last
 * id (across restarts of the daemon), so a reconnecting client can ask for
 * the rest. */
long long
events_last_seq(void)
{
	long long last, first;
	sbox_error err;

	if (!events_seq_loaded && sboxd.store != NULL) {
		if (store_event_bounds(sboxd.store, &last, &first, &err) == 0 &&
		    last > events_seq)
			events_seq = last;
		events_seq_loaded = 1;
	}
	return events_seq;
}

/* The seq of a new event. Seqs are taken in the store ahead of use, so
 * that after a crash (events not yet written are lost) the next daemon never
 * gives again a seq a client has seen. */
static long long
events_next_seq(void)
{
	sbox_error err;

	events_last_seq();
	if (++events_seq > events_reserved && sboxd.store != NULL) {
		events_reserved = events_seq + EVENTS_RESERVE;
		if (store_event_set_last(sboxd.store, events_reserved, &err) == -1)
			log_error("store: %s", err.message);
	}
	return events_seq;
}

/* The database was re-created: take seqs ahead in the new one, going on
 * from the last one published (ids never go back). */
void
events_store_reopened(void)
{
	sbox_error err;

	events_reserved = events_seq + EVENTS_RESERVE;
	if (store_event_set_last(sboxd.store, events_reserved, &err) == -1)
		log_error("store: %s", err.message);
}

/* The daemon stops cleanly: give back the seqs taken ahead, so the next
 * daemon goes on from the last one. */
void
events_close(void)
{
	sbox_error err;

	if (sboxd.store == NULL || events_reserved == 0)
		return;
	if (store_flush(sboxd.store, &err) == -1 ||
	    store_event_set_last(sboxd.store, events_seq, &err) == -1)
		log_error("store: %s", err.message);
}

/* Does a topic match a pattern ("host.refused", "host.*", "*")? */
static int
events_topic_match(const char *pattern, const char *topic)
{
	size_t n = strlen(pattern);

	if (strcmp(pattern, "*") == 0 || strcmp(pattern, topic) == 0)
		return 1;
	return n >= 2 && pattern[n - 1] == '*' && pattern[n - 2] == '.' &&
	    strncmp(pattern, topic, n - 1) == 0;
}

/* Does a subscription want a topic? */
static int
events_sub_wants(const struct events_sub *s, const char *topic)
{
	size_t i;
	json_t *t;

	if (s->topics == NULL || json_array_size(s->topics) == 0)
		return 1;
	json_array_foreach(s->topics, i, t) {
		if (events_topic_match(json_string_value(t), topic))
			return 1;
	}
	return 0;
}

/* The daemon's own subscribers, in the order they came. */
static struct {
	const char *topic;
	events_fn   fn;
	void       *arg;
} events_local[EVENTS_ON_MAX];
static int events_nlocal;

/* Call fn for every event on topic from now on. */
int
events_on(const char *topic, events_fn fn, void *arg)
{
	if (events_nlocal == EVENTS_ON_MAX || topic == NULL || fn == NULL)
		return -1;
	events_local[events_nlocal].topic = topic;
	events_local[events_nlocal].fn = fn;
	events_local[events_nlocal].arg = arg;
	events_nlocal++;
	return 0;
}

/* Call the daemon's subscribers of topic. */
static void
events_call_local(const char *topic, const char *session, const json_t *data)
{
	int i;

	for (i = 0; i < events_nlocal; i++)
		if (strcmp(events_local[i].topic, topic) == 0)
			events_local[i].fn(topic, session, data,
			    events_local[i].arg);
}

/* Tell the daemon's own subscribers of topic; steals data. */
void
events_tell(const char *topic, const char *session, json_t *data)
{
	if (data == NULL)
		data = json_object();
	if (data != NULL)
		events_call_local(topic, session, data);
	json_decref(data);
}

/* Publish an event on a topic; steals data. */
void
events_publish(const char *topic, const char *session, json_t *data)
{
	struct events_sub *s;
	struct { unsigned long conn; long sub; } *to = NULL;
	size_t nto = 0, cap = 0, i;
	struct conn *c;
	json_t *ev, *p;
	char when[32];
	struct timespec ts;
	long long seq, ms;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	events_time(ms, when, sizeof when);
	if (data == NULL)
		data = json_object();
	seq = events_next_seq();
	if (sboxd.store != NULL)
		store_event_add_seq(sboxd.store, seq, ms, topic, session, data,
		    NULL);
	events_call_local(topic, session, data);
	ev = json_pack("{s:I, s:s, s:s?, s:s, s:O}", "seq", (json_int_t)seq,
	    "topic", topic, "session", session, "time", when, "data", data);
	/* Sending can disconnect a slow subscriber, which drops its
	 * subscriptions from the list: pick the recipients first. */
	LIST_FOREACH(s, &events_subs, entry) {
		if (!events_sub_wants(s, topic))
			continue;
		if (nto == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			void *n = realloc(to, ncap * sizeof *to);
			if (n == NULL)
				break;
			to = n;
			cap = ncap;
		}
		to[nto].conn = s->conn;
		to[nto].sub = s->id;
		nto++;
	}
	for (i = 0; ev != NULL && i < nto; i++) {
		if ((c = client_find(to[i].conn)) == NULL)
			continue;
		p = json_deep_copy(ev);
		json_object_set_new(p, "subscription", json_integer(to[i].sub));
		client_notify(c, "events.event", p);
	}
	free(to);
	json_decref(ev);
	json_decref(data);
}

/* Drop every subscription of a connection that closed. */
static void
events_conn_closed(struct conn *c, void *arg)
{
	struct events_sub *s, *next;

	(void)arg;
	for (s = LIST_FIRST(&events_subs); s != NULL; s = next) {
		next = LIST_NEXT(s, entry);
		if (s->conn == client_id(c)) {
			LIST_REMOVE(s, entry);
			json_decref(s->topics);
			free(s);
		}
	}
}

/* Subscribe a connection to topics (NULL or empty = all); returns a sub id. */
long
events_subscribe(struct conn *c, json_t *topics)
{
	struct events_sub *s, *other;
	int first = 1;

	if ((s = calloc(1, sizeof *s)) == NULL)
		return -1;
	LIST_FOREACH(other, &events_subs, entry) {
		if (other->conn == client_id(c))
			first = 0;
	}
	s->id = events_next_sub++;
	s->conn = client_id(c);
	s->topics = topics ? json_incref(topics) : NULL;
	LIST_INSERT_HEAD(&events_subs, s, entry);
	if (first)
		client_on_close(c, events_conn_closed, NULL);
	return s->id;
}

/* Drop one subscription of a connection (0) or report it unknown (-1). */
int
events_unsubscribe(struct conn *c, long id)
{
	struct events_sub *s;

	LIST_FOREACH(s, &events_subs, entry) {
		if (s->id == id && s->conn == client_id(c)) {
			LIST_REMOVE(s, entry);
			json_decref(s->topics);
			free(s);
			return 0;
		}
	}
	return -1;
}

/* Number of live subscribers whose filter matches a topic. */
int
events_subscribers(const char *topic)
{
	struct events_sub *s;
	int n = 0;

	LIST_FOREACH(s, &events_subs, entry) {
		if (client_find(s->conn) != NULL && events_sub_wants(s, topic))
			n++;
	}
	return n;
}

/* Does a subscription name a topic itself ("approval.requested" or
 * "approval.*"), rather than taking every topic? */
static int
events_sub_names(const struct events_sub *s, const char *topic)
{
	size_t i;
	json_t *t;

	json_array_foreach(s->topics, i, t) {
		if (strcmp(json_string_value(t), "*") != 0 &&
		    events_topic_match(json_string_value(t), topic))
			return 1;
	}
	return 0;
}

/* Number of live host (not sandboxed) subscribers that name a topic (a
 * subscription to every topic does not count). */
int
events_host_subscribers(const char *topic)
{
	struct events_sub *s;
	struct conn *c;
	int n = 0;

	LIST_FOREACH(s, &events_subs, entry) {
		if ((c = client_find(s->conn)) != NULL &&
		    client_sandbox_session(c) == NULL && events_sub_names(s, topic))
			n++;
	}
	return n;
}

/* The stored events after since that a subscription wants, at most the
 * newest EVENTS_REPLAY_MAX; *missed counts those left out (pruned from the
 * store or past the bound). */
static json_t *
events_replay_list(json_t *topics, long long since, long long *missed,
    sbox_error *err)
{
	struct events_sub want = { .topics = topics };
	long long last, first, at = since;
	json_t *keep = json_array(), *page, *row;
	size_t i;

	*missed = 0;
	if (store_event_bounds(sboxd.store, &last, &first, err) == -1)
		goto fail;
	(void)last;
	if (first == 0)
		first = events_last_seq() + 1;
	if (since + 1 < first)
		*missed += first - since - 1;   /* pruned (any topic) */
	for (;;) {
		page = store_event_list(sboxd.store, at, EVENTS_REPLAY_PAGE, err);
		if (page == NULL)
			goto fail;
		json_array_foreach(page, i, row) {
			at = json_integer_value(json_object_get(row, "id"));
			if (!events_sub_wants(&want, json_string_value(
			    json_object_get(row, "topic"))))
				continue;
			json_array_append(keep, row);
			if (json_array_size(keep) > EVENTS_REPLAY_MAX) {
				json_array_remove(keep, 0);
				(*missed)++;
			}
		}
		i = json_array_size(page);
		json_decref(page);
		if (i < EVENTS_REPLAY_PAGE)
			break;
	}
	return keep;
fail:
	json_decref(keep);
	return NULL;
}

/* Subscribe, and first replay the stored events with seq > since (as
 * events.event notifications with "replayed": true, oldest first): nothing
 * is published between the replay and the switch to live events, so none
 * is missed or sent twice. Answers the call itself (RPC_LATER), or -1. */
int
events_subscribe_since(struct rpc_call *call, json_t *topics, long long since,
    sbox_error *err)
{
	struct conn *c = rpc_call_conn(call);
	json_t *list, *row, *ev;
	long long missed = 0;
	char when[32];
	long id;
	size_t i;

	if (sboxd.store == NULL)
		return error_set(err, E_STORE, "no store to replay events from");
	if ((list = events_replay_list(topics, since < 0 ? 0 : since, &missed,
	    err)) == NULL)
		return -1;
	if ((id = events_subscribe(c, topics)) < 0) {
		json_decref(list);
		return error_nomem(err);
	}
	rpc_call_reply(call, json_pack("{s:I, s:I, s:I, s:I}", "subscription",
	    (json_int_t)id, "replayed", (json_int_t)json_array_size(list),
	    "missed", (json_int_t)missed, "seq", (json_int_t)events_last_seq()));
	json_array_foreach(list, i, row) {
		events_time(json_integer_value(json_object_get(row,
		    "created_at_ms")), when, sizeof when);
		ev = json_pack("{s:O, s:O, s:O, s:s, s:O, s:I, s:b}", "seq",
		    json_object_get(row, "id"), "topic", json_object_get(row,
		    "topic"), "session", json_object_get(row, "session"), "time",
		    when, "data", json_object_get(row, "data") ?
		    json_object_get(row, "data") : json_null(), "subscription",
		    (json_int_t)id, "replayed", 1);
		if (ev != NULL && client_notify(c, "events.event", ev) == -1)
			break;
	}
	json_decref(list);
	return RPC_LATER;
}
