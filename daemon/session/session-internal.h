/* session-internal.h: what session.c (the registry, notes, answers, close)
 * and session-create.c (a session made) share; not for other rooms. */
#ifndef SBOX_SESSION_INTERNAL_H
#define SBOX_SESSION_INTERNAL_H

#include <jansson.h>

#include "daemon/session/session.h"

struct session_waiter {
	struct rpc_call       *call;
	struct session_waiter *next;
};

/* A new random session id: 16 hex characters. */
void session_new_id(char out[17]);
/* session-scratch.c: give s its recovery note and scratch folder (the
 * pair made ahead, whose id s then takes, when it is intact); 0, or -1
 * with err. */
int session_scratch_make(struct session *s, sbox_error *err);
/* Make the next session's pair soon, from the loop. */
void session_scratch_later(void);
/* The crash note of a session: written before its folders are made,
 * dropped once it is cleaned up. */
int session_write_note(struct session *s);
void session_drop_note(const struct session *s);
/* Free a session's memory (it is out of the registry). */
void session_free(struct session *s);
/* The client's variables not passed into the sandbox, kept sorted. */
void session_env_dropped(struct session *s, json_t *client_env);
/* The session.create answer: the session and its warnings. */
json_t *session_created_json(const struct session *s);
/* Answer every session.create waiting for this session. */
void session_answer(struct session *s, const sbox_error *err);
/* Close a session now (sync: wait for its container). */
void session_close_now(struct session *s, const char *reason, int sync);
/* Put a new session in the registry / take it out. */
void session_register(struct session *s);
void session_unregister(struct session *s);

/* session-spare.c: the spare session of one-shot creates. */
struct session_spare_key *session_spare_key(const struct session_params *p,
    const char *project);
void session_spare_key_free(struct session_spare_key *k);
char *session_spare_dump(const struct session *s);
void session_spare_later(struct session_spare_key *k);
void session_spare_keep(struct session *s);
struct session *session_spare_take(const struct session_spare_key *k,
    int project_fd);
void session_spare_reject(struct session *s);
void session_spare_closed(struct session *s);
void session_spare_stop(void);
/* session-create.c: how many times the protected-names file was loaded
 * (a spare made with other names is not taken). */
unsigned session_protected_gen(void);

#endif
