/* diskguard.h: what sandboxes write never takes the disk sboxd needs.
 *
 * Two parts, the same as root and as an ordinary user (no quota, loop
 * image or tmpfs needs privileges this way, and none is on every system):
 *
 * - A reserve: sboxd holds a file <state_dir>/reserve of
 *   daemon.disk_reserve_mb (allocated with fallocate, so the blocks are
 *   really taken). While it is held, sandboxes run the file system full
 *   before sboxd does; the moment free space is short (less than the
 *   reserve), before a command starts or a session is made and from a
 *   timer, sboxd frees it, so its own records (the store) still fit. It
 *   is taken again once there is room for it twice over.
 * - A size limit per cache root (a project's caches, or a profile's with
 *   "caches": "profile": limits.cache_mb, default 4 GiB) and per scratch
 *   folder of a session (the same limit), measured in a child process (a
 *   sandbox decides how big a tree is; the event loop never walks it):
 *   every second while space is short, else when a new root appears, when
 *   free space fell by DISKGUARD_DROP since the last walk (at most every
 *   DISKGUARD_MEASURE_S), when a command starts DISKGUARD_EXEC_S after
 *   its roots' last measure, and every DISKGUARD_IDLE_S. A root over its limit, or one that grew while space was short,
 *   is "full": the running commands of its sessions are killed and new
 *   commands refused (E_LIMIT, saying how to clear it) until a measure
 *   finds it under its limit again (after `sbox cache clear`).
 *
 * The kernel still bounds each file (RLIMIT_FSIZE, limits.tmp_mb's
 * tmpfs); what this adds is the bound on the sum and the reserve. */
#ifndef SBOX_DISKGUARD_H
#define SBOX_DISKGUARD_H

#include "daemon/hooks.h"
#include <jansson.h>
#include <stdint.h>

#include "protocol/error.h"

struct event_base;
struct plan;

#define DISKGUARD_TICK_MS   1000   /* free space checked */
#define DISKGUARD_MEASURE_S 5      /* cache roots measured at most this
                                      often while space is not short, */
#define DISKGUARD_DROP      (64ULL << 20) /* when free space fell by this, */
#define DISKGUARD_IDLE_S    300    /* or this long after the last time, */
#define DISKGUARD_EXEC_S    30     /* or when a command starts this long
                                      after its roots' last measure */

/* {caches, scratch, tmp}: which bound holds each (measured or tmpfs), for
 * sandbox.status; limit is the session's cache limit. */
json_t *diskguard_bounds(const struct plan *plan, uint64_t limit);
/* At start, before the store: compare the reserve with the state disk;
 * scale it down (warned) or refuse (-1 with err saying what to set). */
int diskguard_size_reserve(sbox_error *err);
/* Take the reserve and start the timer (base NULL: stop, freeing it). */
void diskguard_start(struct event_base *base);
/* What the guard asks of the sessions: diskguard_hooks (daemon/hooks.h);
 * a full root it tells on the event bus (disk.root_full {root}). */

/* Space was freed (cache clear, scratch removed): measure again at once;
 * done(arg), when not NULL, is called once that measure is in (at once
 * when there is nothing to measure). */
void diskguard_freed(void (*done)(void *), void *arg);
/* Before a command of a session starts (its plan, and its project for
 * the message; plan NULL: a session is being made): free the reserve when
 * space is short; -1 with E_LIMIT when the session's caches are full. */
int diskguard_check(const struct plan *plan, const char *project,
    sbox_error *err);
/* Does a session's plan bind root (its caches or its scratch folder)? */
int diskguard_binds(const struct plan *plan, const char *root);
/* The state file system for sandbox.check and daemon.status: {free_bytes,
 * total_bytes, reserve_bytes, reserve_held, short, full_caches[]}. */
json_t *diskguard_describe(void);

#endif
