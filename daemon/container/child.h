/* child.h: the daemon's one SIGCHLD handler and a registry of child
 * processes to reap. Every process sboxd forks must be registered here
 * (nothing else in sboxd calls waitpid), so that exits are never lost. */
#ifndef SBOX_CHILD_H
#define SBOX_CHILD_H

#include <sys/types.h>
#include "protocol/error.h"

struct event_base;

/* Called once, from the event loop, when a watched pid has exited and has
 * been reaped; status is as from waitpid(). */
typedef void (*child_cb)(pid_t pid, int status, void *arg);

/* Install the SIGCHLD handler on base (idempotent; one base only). */
int child_init(struct event_base *base, sbox_error *err);
/* Watch pid: cb(pid, status, arg) runs once it has exited (reaped by us).
 * Call right after fork/spawn, before returning to the event loop. */
int child_watch(pid_t pid, child_cb cb, void *arg, sbox_error *err);
/* Stop watching pid (cb will not run; the caller reaps it). */
void child_unwatch(pid_t pid);
/* Reap pid synchronously, waiting at most timeout_ms, then SIGKILL it and
 * wait for it; unwatches it. For shutdown paths. Returns its status. */
int child_reap_now(pid_t pid, int timeout_ms);
/* Remove the handler and forget every watch (for tests and shutdown). */
void child_shutdown(void);

#endif
