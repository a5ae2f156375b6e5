/* approval-internal.h: a run-outside request as approval.c and
 * approval-what.c (what it would run) share it. */
#ifndef SBOX_APPROVAL_INTERNAL_H
#define SBOX_APPROVAL_INTERNAL_H

#include <sys/queue.h>

#include <event2/event.h>

#include "daemon/command/approval.h"
#include "daemon/command/approval-limit.h"
#include "daemon/command/hostexec.h"

struct approval;

/* Another asker of an identical request, waiting for the same decision. */
struct approval_waiter {
	LIST_ENTRY(approval_waiter) entry;
	struct approval   *a;
	struct rpc_call   *call;
	command_done_cb    on_done;
	void              *done_arg;
	int                fds[3];
};

struct approval {
	LIST_ENTRY(approval) entry;
	long long          id;
	struct session    *s;
	char               root[APPROVAL_LIMIT_KEY]; /* whose budget */
	json_t            *same;       /* what identical requests share */
	int                terminal;   /* the asker may answer it itself */
	LIST_HEAD(, approval_waiter) waiters;
	struct rpc_call   *call;
	json_t            *argv;
	struct hostexec_target target; /* program, folder, environment */
	int                writable;   /* the sandbox can write the program */
	int                cwd_writable; /* ... or the folder */
	json_t            *env;        /* the variables added {NAME: VALUE} */
	json_t            *dropped;    /* the names refused */
	enum command_stdio stdio;
	int                want_stdin;
	int                detach;
	long long          timeout_ms;
	struct event      *timer;      /* no answer in time: denied */
	int                fds[3];     /* given stdio (-1: none) */
	command_done_cb    on_done;    /* no call: told the end */
	void              *done_arg;
};

/* Fix what a request would run: the folder (held), the program, the
 * variables added and dropped, the environment and the umask (a owns
 * them); *unsafe says why the program may not run outside, or NULL. */
/* The pending request with this id, or NULL. */
struct approval *approval_find(long long id);
/* Decide a live request: record, publish, then deny or run it; -1 with err
 * when it could not be recorded (nothing changed). */
int approval_settle(struct approval *a, const char *decision, const char *by,
    sbox_error *err);
/* Answer a request's call with a denial and forget it. */
void approval_fail(struct approval *a, const char *decision, const char *by);
/* Tell a waiter the request ended without running for it, and free it. */
void approval_waiter_end(struct approval_waiter *w, const char *msg);
/* The first waiter of a becomes its asker; 1, or 0 when none could. */
int approval_promote(struct approval *a);
int approval_prepare(struct approval *a, const struct approval_params *p,
    const char **unsafe, sbox_error *err);

#endif
