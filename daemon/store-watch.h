/* store-watch.h: watching the store from the event loop. */
#ifndef SBOX_STORE_WATCH_H
#define SBOX_STORE_WATCH_H

#include <jansson.h>

#include "daemon/hooks.h"
#include "protocol/error.h"

/* What the watch asks of the sessions: store_watch_hooks, in
 * daemon/hooks.h (this file is at the bottom and includes nothing of
 * session/). */

/* Every flush tick: notice a deleted or replaced database (re-create it and
 * write the live state again), write what is queued and delayed, report a
 * change of the store's health (log, store.degraded / store.recovered),
 * and retry a crash recovery that failed. */
void store_watch_tick(void);
/* The store's health for daemon.status: {ok, error, delayed, ...}. */
json_t *store_watch_health(void);
/* A crash recovery failed at start: retry it from the tick. */
void store_watch_recovery_failed(const char *why);
/* 1 while a recovery of a previous run is still to be done. */
int store_watch_recovery_pending(void);

#endif
