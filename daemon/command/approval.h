/* approval.h: running a command outside the sandbox. A request is recorded,
 * published as `approval.requested` and waits until a person on a host
 * client decides (approval.decide), it times out, its client goes away or
 * its session closes. Allowed once: the command runs on the host, in the
 * project folder, with the user's rights; the decision and the result are in
 * the store before the client is told. */
#ifndef SBOX_APPROVAL_H
#define SBOX_APPROVAL_H

#include <jansson.h>

#include "daemon/command/command.h"
#include "protocol/error.h"

struct conn;
struct rpc_call;
struct session;

/* Most requests of one session waiting for a decision at once, whatever
 * the config says (approvals.burst is the budget; this is the bound). */
#define APPROVAL_MAX_PENDING 16

/* What a run-outside request asks for (command.run_outside, or a
 * command.exec that matched one of the profile's `exclude` patterns). */
struct approval_params {
	struct session    *s;
	json_t            *argv;        /* array of strings (borrowed) */
	const char        *cwd;         /* NULL: the project; relative: in it */
	const char        *reason;      /* required */
	json_t            *env;         /* {NAME: VALUE} or NULL (borrowed) */
	enum command_stdio stdio;
	int                want_stdin;
	int                detach;
	long long          timeout_ms;  /* the command's own timeout; 0: default */
	int                umask;       /* the asker's (-1: unknown, then 022) */
	int                terminal;    /* the asker is a host client at a
	                                 * terminal (checked by the caller): it
	                                 * may answer the request itself */
	/* The file to run (its real path on the host), fixed by who asked
	 * (an exclusion: the file the kernel was asked to run); NULL: argv[0]
	 * looked up in the host's PATH. dev/ino: that file's (0: unchecked). */
	const char        *program;
	unsigned long long dev, ino;
	/* A program inside that matched `exclude` (daemon/command/exclude.c): no
	 * call; its 3 descriptors are the run's stdio (taken when the request
	 * is made: set to -1), and on_done is told the end. */
	int               *given_fds;
	command_done_cb    on_done;
	void              *done_arg;
	long long         *id_out;      /* the request's id (may be NULL) */
};

/* Ask to run a command outside the sandbox. Refused at once (E_DENIED,
 * recorded) when the profile says never or no approver is connected;
 * otherwise RPC_LATER: the call is answered when the command ends (or at
 * once for detach), or with E_DENIED when denied or timed out. Without a
 * call, p->on_done is told the end instead, exactly once, and only after
 * RPC_LATER. */
int approval_request(const struct approval_params *p, struct rpc_call *call,
    json_t **result, sbox_error *err);
/* A session is closing: its pending requests are denied. */
void approval_session_closed(struct session *s);
/* Number of requests waiting for a decision. */
int approval_pending_count(void);

#endif
