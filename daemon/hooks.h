/* hooks.h: every upward call of sboxd in one place. The rooms are layered
 * (daemon/README.md: main.c > rpc/ > check/ > command/ > session/ >
 * proxy/ > container/ > the bottom); a room never includes one above it.
 * Where a lower room needs an ANSWER from a higher one, it calls a hook
 * declared here, which main.c fills at start (main_wire); each member
 * names its target (file: function). Where a lower room only TELLS a
 * higher one something, it publishes on the event bus instead
 * (daemon/events.h: events_tell, or events_publish for what clients see
 * too), and the higher room's function is subscribed with events_on in
 * main_wire; the topics are listed at the end of this file.
 *
 * 27 hooks (5 session, 1 disk guard, 2 store watch, 10 call, 9 client)
 * where there were 33: the 6 that only told are events now. */
#ifndef SBOX_HOOKS_H
#define SBOX_HOOKS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/error.h"

struct conn;
struct container;
struct container_exclude;
struct plan;
struct rpc_call;
struct session;

/* session/ asks command/ (filled in main_wire; a hook left NULL does
 * nothing). */
struct session_hooks {
	/* command/command.c: command_note_refusal. A host the proxy
	 * refused: noted on the session's running commands; the command's id
	 * when exactly one was running, else 0 (stored with the refusal). */
	long long (*host_refused)(struct session *s, const char *host, int port,
	    const char *rule, const char *reason);
	/* command/blocked.c: blocked_explain. The plan's rule that explains
	 * a refused path: the message (caller frees) with *op and *rule, or
	 * NULL when the sandbox did not do it. */
	char *(*explain)(const struct plan *plan, const char *path,
	    const char *cwd, int errnum, int writing, const char **op,
	    const char **rule);
	/* command/exclude.c: exclude_from_inside. A program inside matched
	 * the profile's exclude patterns (the container's on_exclude, which
	 * takes its descriptors; arg is the session). */
	void (*exclude)(struct container *ct, struct container_exclude *x,
	    void *arg);
	/* command/command-session.c: command_session_running. The number
	 * of the session's running commands. */
	int (*commands_running)(const struct session *s);
	/* command/command-session.c: command_session_rewrite. The database
	 * was re-created: insert the session's commands again; adds those
	 * written to *written, returns how many failed (err: the last). */
	int (*commands_rewrite)(struct session *s, int *written,
	    sbox_error *err);
};
extern struct session_hooks session_hooks;     /* session/session.c */

/* container/diskguard.c asks session/. */
struct diskguard_hooks {
	/* session/session.c: session_next_live. The live session after *it
	 * (*it NULL: the first; an opaque cursor): its plan and its roots'
	 * size limit; 0 when none is left. */
	int (*next)(const void **it, const struct plan **plan,
	    uint64_t *limit);
};
extern struct diskguard_hooks diskguard_hooks; /* container/diskguard.c */

/* daemon/store-watch.c (the bottom) asks session/. */
struct store_watch_hooks {
	/* session/session-recover.c: session_recover. Redo the crash
	 * recovery of a previous run; 0 or -1 with err. */
	int (*recover)(sbox_error *err);
	/* session/session-recover.c: session_store_rewrite. The database
	 * was re-created: write the live state into it again; 0 or -1. */
	int (*rewrite)(sbox_error *err);
};
extern struct store_watch_hooks store_watch_hooks; /* daemon/store-watch.c */

/* Called when a pending call's client goes away or cancels. */
typedef void (*rpc_cancel_cb)(struct rpc_call *call, void *arg);

/* A client's call as the rooms under rpc/ see it (daemon/rpc-call.h):
 * rpc/dispatch.c's table dispatch_call_ops, named by dispatch_start
 * (called in main_wire) through rpc_call_set_ops. */
struct rpc_call_ops {
	struct conn   *(*conn)(struct rpc_call *call);     /* dispatch_call_conn */
	const char    *(*method)(struct rpc_call *call);   /* dispatch_call_method */
	const json_t  *(*id)(const struct rpc_call *call); /* dispatch_call_id */
	int            (*nfds)(struct rpc_call *call);     /* dispatch_call_nfds */
	int            (*take_fd)(struct rpc_call *call, int i);
	                                                /* dispatch_call_take_fd */
	int            (*peek_fd)(struct rpc_call *call, int i);
	                                                /* dispatch_call_peek_fd */
	void           (*on_cancel)(struct rpc_call *call, rpc_cancel_cb cb,
	                   void *arg);                 /* dispatch_call_on_cancel */
	void           (*reply)(struct rpc_call *call, json_t *result);
	                                                /* dispatch_call_reply */
	void           (*fail)(struct rpc_call *call, const sbox_error *err);
	                                                /* dispatch_call_fail */
	void           (*orphan)(struct rpc_call *call); /* dispatch_call_orphan */
};

/* Called once when a connection closes. */
typedef void (*client_close_cb)(struct conn *c, void *arg);

/* A client connection as the rooms under rpc/ see it (daemon/client.h):
 * rpc/conn.c's table conn_client_ops, named by conn_start (called in
 * main_wire) through client_set_ops. */
struct client_ops {
	struct conn  *(*find)(unsigned long id);               /* conn_find */
	unsigned long (*id)(const struct conn *c);             /* conn_id */
	const char   *(*sandbox_session)(const struct conn *c);
	                                               /* conn_sandbox_session */
	int           (*notify)(struct conn *c, const char *method,
	                  json_t *params);                      /* conn_notify */
	size_t        (*pending_output)(const struct conn *c);
	                                                /* conn_pending_output */
	void          (*on_close)(struct conn *c, client_close_cb cb,
	                  void *arg);                          /* conn_on_close */
	struct conn  *(*open)(int fd, uid_t uid, gid_t gid, pid_t pid,
	                  const char *sandbox_session);         /* conn_new */
	void          (*close_session)(const char *session);
	                                                /* conn_close_session */
	void          (*flush)(struct conn *c);                 /* conn_flush */
};

/* What the rooms tell upward on the event bus (events_tell: the daemon's
 * own subscribers only), each subscribed in main_wire:
 *
 *   topic                   told by                      subscriber
 *   session.host_failed     session/session-access.c     command/command-session.c:
 *     {host, port, cause}   (the proxy could not reach     command_session_on_host_failed
 *                           an allowed host)               (command_note_unreachable)
 *   session.file_refused    session/session-access.c     command/command-session.c:
 *     {ct_id, path, op,     (the file guard refused a      command_session_on_file_refused
 *     rule, message,        command's operation)           (command_note_file)
 *     reason, pid, process}
 *   session.closing {}      session/session.c            command/approval.c:
 *                           (session_close_now)            approval_on_session_closing,
 *                                                          then command/command-session.c:
 *                                                          command_session_on_closing
 *   disk.root_full {root}   container/diskguard.c        command/command-session.c:
 *                           (a cache or scratch root is    command_session_on_root_full
 *                           over its limit)                (kill its sessions' writers)
 *   daemon.stopping {why}   daemon/sboxd.c               main.c: main_on_stopping
 *                           (sboxd_shutdown)               (main_shutdown)
 */

#endif
