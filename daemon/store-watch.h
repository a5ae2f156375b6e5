/* store-watch.h: watching the store from the event loop. */
#ifndef SBOX_STORE_WATCH_H
#define SBOX_STORE_WATCH_H

#include <jansson.h>

#include "protocol/error.h"

/* What the watch asks of the sessions (named at start by main.c: this file
 * is at the bottom and includes nothing of session/). */
struct store_watch_hooks {
	/* Redo the crash recovery of a previous run; 0 or -1 with err. */
	int (*recover)(sbox_error *err);
	/* The database was re-created: write the live state into it again. */
	int (*rewrite)(sbox_error *err);
};
extern struct store_watch_hooks store_watch_hooks;

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
