/* store-watch.c: the store seen from the event loop. The database file is
 * checked on every flush tick (SQLITE_FCNTL_HAS_MOVED, 200 ms): a deleted
 * or replaced file is re-created and the live sessions and running commands
 * are written into it again. Writes the database refuses (full disk, a
 * lock held by another process) are kept by the store and retried here;
 * a change of health is logged once and published (store.degraded,
 * store.recovered). */
#include "daemon/store-watch.h"

#include <stdio.h>
#include <string.h>

#include "daemon/events.h"
#include "daemon/log.h"
#include "daemon/sboxd.h"
#include "protocol/error.h"
#include "store/store.h"

#define STORE_WATCH_RECOVER_MS 2000   /* between tries of a failed recovery */

static int store_watch_degraded;        /* store.degraded was published */
static int store_watch_recover;         /* a recovery is still to be done */
static long long store_watch_recover_at;
static unsigned long long store_watch_recover_tries;
static char store_watch_recover_error[ERROR_MSG_MAX];
static unsigned long long store_watch_dropped; /* last dropped count logged */
struct store_watch_hooks store_watch_hooks;    /* named at start (main.c; daemon/hooks.h) */

/* The store's counters as JSON. */
json_t *
store_watch_health(void)
{
	struct store_stats s;

	store_stats(sboxd.store, &s);
	return json_pack("{s:b, s:s?, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
	    "s:b, s:s?, s:I, s:I, s:I, s:I, s:I}",
	    "ok", s.healthy && !store_watch_recover,
	    "error", s.last_error[0] != '\0' && !s.healthy ? s.last_error : NULL,
	    "pending", (json_int_t)s.pending,
	    "delayed", (json_int_t)s.delayed,
	    "delayed_total", (json_int_t)s.delayed_total,
	    "dropped", (json_int_t)s.dropped,
	    "dropped_refusals", (json_int_t)s.dropped_refusals,
	    "dropped_events", (json_int_t)s.dropped_events,
	    "merged_refusals", (json_int_t)s.merged,
	    "reopened", (json_int_t)s.reopened,
	    "recovery_pending", store_watch_recover,
	    "recovery_error", store_watch_recover ?
	    store_watch_recover_error : NULL,
	    /* issue 45: the records kept while the store cannot write */
	    "queued", (json_int_t)s.pending,
	    "spilled", (json_int_t)s.spilled,
	    "spilled_total", (json_int_t)s.spilled_total,
	    "spill_bytes", (json_int_t)s.spill_bytes,
	    "lost", (json_int_t)s.dropped);
}

/* A crash recovery failed at start: retry it from the tick. */
void
store_watch_recovery_failed(const char *why)
{
	store_watch_recover = 1;
	store_watch_recover_at = sboxd_now_ms() + STORE_WATCH_RECOVER_MS;
	snprintf(store_watch_recover_error, sizeof store_watch_recover_error,
	    "%s", why);
	events_publish("store.degraded", NULL, json_pack("{s:s, s:s}",
	    "reason", "recovery", "error", why));
}

/* 1 while a recovery of a previous run is still to be done. */
int
store_watch_recovery_pending(void)
{
	return store_watch_recover;
}

/* Retry the crash recovery when it is due. */
static void
store_watch_retry_recovery(void)
{
	sbox_error err;

	if (!store_watch_recover || sboxd_now_ms() < store_watch_recover_at)
		return;
	store_watch_recover_tries++;
	error_clear(&err);
	if (store_watch_hooks.recover != NULL &&
	    store_watch_hooks.recover(&err) == -1) {
		store_watch_recover_at = sboxd_now_ms() + STORE_WATCH_RECOVER_MS;
		snprintf(store_watch_recover_error,
		    sizeof store_watch_recover_error, "%s", err.message);
		if (store_watch_recover_tries % 30 == 1)
			log_error("recovering sessions of a previous run "
			    "(try %llu): %s", store_watch_recover_tries,
			    err.message);
		return;
	}
	store_watch_recover = 0;
	log_info("recovered the sessions of a previous run (try %llu)",
	    store_watch_recover_tries + 1);
	events_publish("store.recovered", NULL, json_pack("{s:s}", "reason",
	    "recovery"));
}

/* The database file was deleted or replaced: re-create it and write the
 * live state into it again. */
static void
store_watch_moved(void)
{
	static int failing;	/* said once per streak of failed tries */
	sbox_error err;

	if (!failing)
		log_error("store: the database %s was deleted or replaced while "
		    "sboxd ran; re-creating it and writing the live sessions "
		    "again", store_path(sboxd.store));
	error_clear(&err);
	if (store_reopen(sboxd.store, &err) == -1) {
		if (!failing++)
			log_error("store: cannot re-create %s: %s (retrying)",
			    store_path(sboxd.store), err.message);
		if (!store_watch_degraded) {
			store_watch_degraded = 1;
			events_publish("store.degraded", NULL, json_pack(
			    "{s:s, s:s}", "reason", "moved", "error",
			    err.message));
		}
		return;
	}
	failing = 0;
	events_store_reopened();
	if (store_watch_hooks.rewrite != NULL &&
	    store_watch_hooks.rewrite(&err) == -1)
		log_error("store: writing the live state again: %s",
		    err.message);
	store_retry_now(sboxd.store);	/* now the kept writes, in order */
	events_publish("store.degraded", NULL, json_pack("{s:s, s:s}",
	    "reason", "moved", "path", store_path(sboxd.store)));
	store_watch_degraded = 1;
}

/* Log and publish a change of the store's health. */
static void
store_watch_health_change(void)
{
	struct store_stats s;

	store_stats(sboxd.store, &s);
	if (!s.healthy && !store_watch_degraded) {
		store_watch_degraded = 1;
		log_error("store: writes are failing (%s); %zu kept to write "
		    "later", s.last_error, s.delayed);
		events_publish("store.degraded", NULL, json_pack(
		    "{s:s, s:s, s:I, s:I}", "reason", "write", "error",
		    s.last_error, "delayed", (json_int_t)s.delayed,
		    "dropped", (json_int_t)s.dropped));
	} else if (s.healthy && store_watch_degraded && s.pending == 0) {
		store_watch_degraded = 0;
		log_info("store: writes go through again (%llu kept and "
		    "written, %llu dropped)", s.delayed_total, s.dropped);
		events_publish("store.recovered", NULL, json_pack("{s:s, s:I, "
		    "s:I}", "reason", "write", "delayed_total",
		    (json_int_t)s.delayed_total, "dropped",
		    (json_int_t)s.dropped));
	}
	if (s.dropped != store_watch_dropped) {
		log_warn("store: %llu record(s) lost: the queue and its spill "
		    "file are full (in all %llu refusals, %llu events, %llu "
		    "delayed writes); the counts are in daemon status",
		    s.dropped - store_watch_dropped, s.dropped_refusals,
		    s.dropped_events, s.dropped_delayed);
		store_watch_dropped = s.dropped;
	}
}

/* Every flush tick: watch, write, report, retry. */
void
store_watch_tick(void)
{
	sbox_error err;

	if (store_fault_moved(sboxd.store))
		store_watch_moved();
	error_clear(&err);
	(void)store_flush(sboxd.store, &err);
	store_watch_health_change();
	store_watch_retry_recovery();
}
