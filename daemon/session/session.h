/* session.h: the daemon's live sessions: one resolved profile, one plan, one
 * container (when sandboxed), one proxy, and the session's commands. */
#ifndef SBOX_SESSION_H
#define SBOX_SESSION_H

#include <jansson.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include "daemon/hooks.h"
#include "protocol/error.h"

struct rpc_call;
struct profile;
struct plan;
struct container;
struct proxy_handle;
struct command;
struct session_gitcfg;

enum session_state {
	SESSION_STARTING,
	SESSION_READY,
	SESSION_CLOSING,
	SESSION_CLOSED,
};

struct session_waiter;

struct session {
	TAILQ_ENTRY(session) entry;
	char                 id[17];
	char                *title;
	json_t              *keep_seen;  /* {FILE: the kept keys as last
	                                    seen inside} (session-keep.c) */
	char               **telemetry_noted; /* its provider's background
	                                          hosts refused so far (each
	                                          recorded once) */
	char                *project;
	int                  project_fd;  /* the project, held since it was checked */
	char                *scratch;
	char                *provider;
	char                *model;
	char                *space;
	char                *parent;      /* session the creator ran inside, or NULL */
	struct profile      *profile;     /* resolved (and narrowed) profile */
	struct plan         *plan;
	struct container    *ct;          /* NULL when not sandboxed */
	struct proxy_handle *proxy;
	enum session_state   state;
	char               **env;         /* base environment of its commands */
	struct session_waiter *waiters;   /* session.create calls waiting for ready */
	TAILQ_HEAD(, command) commands;
	int                  ncommands;
	json_t              *refused;     /* hosts refused: [{host, port, count, ...}] */
	json_t              *env_dropped; /* client env names not passed in (sorted) */
	char               **home_moved;  /* entries of its provider's home
	                                     moved aside when it was made */
	long long            created_ms;
	uid_t                creator_uid;
	struct session_gitcfg *gitcfg;     /* what its repositories' git config
	                                     names, and the files watched */
	unsigned long        with_client; /* close_with_client: the id of the
	                                     connection that created it, or 0 */
	long long            active_ms;   /* last client request about it or
	                                     running command (idle_close_s) */
	struct session_spare_key *spare;  /* a spare not taken yet: what it was
	                                     made for (session-spare.c); it is
	                                     then out of the registry, unrecorded */
	struct session_spare_key *one_shot; /* a one-shot session: the key of the
	                                     spare to make when it closes */
	char                *spare_dump;  /* a spare's plan as compared */
};

struct session_spare_key;

/* What session.create was asked for. */
struct session_params {
	const char *project;
	const char *sandbox;
	const char *title;
	const char *provider;
	const char *model;
	const char *space;
	json_t     *env;          /* the client's environment {NAME: VALUE} */
	const char *parent;       /* the session the client runs inside, or NULL */
	uid_t       uid;          /* the client's uid */
	int         close_with_client; /* close it when the creating
	                                  connection goes away */
	int         one_shot;     /* one command, then closed (sbox run): a
	                             spare made ahead may serve it */
	struct session_spare_key *spare; /* the daemon's own create of a spare
	                             (session-spare.c), else NULL */
};

/* What a session asks the rooms above it: session_hooks, declared with
 * every upward hook in daemon/hooks.h; what it only tells them goes on the
 * event bus (session.host_failed, session.file_refused, session.closing). */

/* session-gitcfg.c: read what the repositories of the session's writable
 * folders name in their git config and keep it read-only in its plan
 * (before the container starts); 0 or -1. */
int session_gitcfg_start(struct session *s, sbox_error *err);
/* Before a command starts: when a watched git config file changed, read
 * again and send the new protected paths to the running guard; 0 or -1
 * (then the command must not start). */
int session_gitcfg_refresh(struct session *s, sbox_error *err);
/* Release the session's git config state. */
void session_gitcfg_free(struct session *s);

/* Number of live sessions. */
int session_count(void);
/* Find a live session by id (NULL, with E_SESSION_NOT_FOUND, if none). */
struct session *session_find(const char *id, sbox_error *err);
/* The session after s in the list (the first when s is NULL), or NULL. */
struct session *session_next(const struct session *s);
/* For the disk guard: the live (not closing) session after *it (*it NULL:
 * the first), its plan and its caches' size limit; 0 when none is left. */
int session_next_live(const void **it, const struct plan **plan,
    uint64_t *limit);
/* May a session be created now? Host clients (parent NULL) only while the
 * table has room; a session created through parent counts against the
 * budget of its top-level session (all its descendants) and may not use
 * the share kept for host clients. 0, or -1 with E_LIMIT. */
int session_access_budget(const char *parent, sbox_error *err);
/* May a client inside session viewer (NULL: a host client) use s? Only its
 * own session and the sessions created from it, and theirs. */
int session_access_visible(const struct session *s, const char *viewer);
/* Find a live session the client of a call may use (else
 * E_SESSION_NOT_FOUND, revealing nothing about other sessions). */
struct session *session_access_lookup(struct rpc_call *call, const char *id,
    sbox_error *err);
/* Create a session; the call is answered when its container is ready
 * (RPC_LATER), or -1 with err at once. With call NULL nobody is answered:
 * *result is then {"session": ID} and the caller watches the session's
 * state (session_find) itself. */
int session_create(const struct session_params *p, struct rpc_call *call,
    json_t **result, sbox_error *err);
/* session-client.c: a session that closes with the connection that made
 * it (close_with_client): bind s to the call's connection; 0, or -1 with
 * err when the call has no connection. */
int session_client_bind(struct session *s, struct rpc_call *call,
    sbox_error *err);
/* session-idle.c: from the daemon's timer: close the sessions idle past
 * the config's idle_close_s (no running command, no client request about
 * them, no close_with_client client). */
void session_idle_tick(void);
/* The reason recorded when such a session closes with its client. */
#define SESSION_ENDED_WITH_CLIENT "ended_with_client"
/* Close a session: every process ends, the container and proxy go, the
 * scratch folder and placeholders are removed; recorded with reason. */
void session_close(struct session *s, const char *reason);
/* The session as JSON (live fields added to what the store holds). */
json_t *session_to_json(const struct session *s);
/* Close every live session at once (daemon shutdown), recording why. */
void session_close_all(const char *reason);
/* Remove the scratch folder made ahead for the next session, and make no
 * more (daemon shutdown; session-scratch.c). */
void session_scratch_drop(void);
/* At start: mark what a previous run left live as ended by a crash and
 * remove its leftovers (scratch folders, placeholders): every note in
 * <state>/sessions of no live session (session-recover.c). Idempotent: a
 * failed recovery is retried (store-watch.c). */
int session_recover(sbox_error *err);
/* The database was re-created: insert every live session and its running
 * commands again (session-recover.c). */
int session_store_rewrite(sbox_error *err);
/* Where the sessions' scratch folders ("scratch") and recovery notes
 * ("notes") live; id NULL: the folder. Caller frees. */
char *session_path(const char *kind, const char *id);
/* Insert a session in the store (state starting). */
int session_record(struct session *s, uid_t uid, sbox_error *err);
/* May a session created inside parent work in project (held as fd)?
 * (session-narrow.c) */
int session_narrow_project(const struct session *parent, const char *project,
    int fd, sbox_error *err);
/* The profile for a request: a child's parent profile when it names none,
 * else the named one narrowed to its parent's. */
struct profile *session_narrow_resolve(const struct session_params *p,
    sbox_error *err);
/* From a timer: publish the host.refused summaries of intervals that
 * ended (session-access.c). */
void session_access_tick(void);
/* Called by the proxy for each refused host of a session. */
/* The file guard refused an operation of container command ct_id: note it
 * on the command, publish file.refused (container_refused_cb). */
struct container;
struct container_refusal;
void session_access_file_refused(struct container *ct,
    const struct container_refusal *r, void *arg);
void session_access_host_refused(const char *session, const char *host, int port,
    const char *reason, const char *rule, void *arg);
/* The proxy could not reach an allowed host: noted on the running
 * commands (blocked.unreachable). */
void session_access_host_failed(const char *session, const char *host,
    int port, const char *cause, void *arg);
/* session.allow_host: let one more host through a live session's proxy. */
int session_access_allow_host(struct session *s, const char *host, sbox_error *err);

#endif
