/* sessions.h: the write behind a delayed session state
 * (sessions.c; for store/ only). */
#ifndef SBOX_STORE_SESSIONS_H
#define SBOX_STORE_SESSIONS_H

#include "store/store-types.h"

int store_session_set_state_now(struct store *st, const char *id,
    const char *state, const char *reason, sbox_error *err);

#endif
